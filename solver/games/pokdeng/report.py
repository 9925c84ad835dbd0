"""Pok Deng's part of ``bull report`` and of the README's headline numbers: per preset,
the exact odds of every kind of hand, the exact edge against every dealer policy, the
EV of every start, each checked by the simulator, and the strategy charts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from solver.core.indexing import colex_rank_array
from solver.games.pokdeng.odds import PokDengEdge, odds, pokdeng_edge
from solver.games.pokdeng.rules import PokDengRules, load_rules
from solver.games.pokdeng.simulate import simulate_pokdeng
from solver.kit.exact import fraction_text, percent
from solver.kit.markdown import (
    ReportContext,
    ev_text,
    figure,
    md_table,
    odds_rows,
    rules_block,
)

__all__ = ["POLICIES", "PRESETS", "headline", "section"]

PRESETS = ("standard", "straights")
"""The presets the report covers, in order."""
POLICIES = tuple(range(10))
"""The dealer policies (draws on K or less) the report compares."""


def headline(tables: str | os.PathLike[str] | None = None) -> tuple[list[str], str]:
    """The README headline rows (each preset, optimal and simple drawing) and their note."""
    rows = []
    for name in PRESETS:
        pe = pokdeng_edge(name, 4)
        rows.append(
            f"| Pok Deng `{name}`, optimal drawing (dealer draws on 4 or less) | "
            f"{ev_text(pe.ev_optimal)} | `{fraction_text(pe.ev_optimal)}` | "
            f"{percent(-pe.ev_optimal, 3)} |"
        )
        rows.append(
            f"| Pok Deng `{name}`, draw on 4 or less | {ev_text(pe.ev_simple)} | "
            f"`{fraction_text(pe.ev_simple)}` | {percent(-pe.ev_simple, 3)} |"
        )
    return rows, "Pok Deng over all 1,326 starts heads-up with exact card removal"


def _optimal_policy(rules: PokDengRules) -> Callable[[Any], Any]:
    """The exact Pok Deng strategy as a simulator policy: draw where it says draw."""
    import numpy as np

    from solver.games.pokdeng.strategy import Action, solve

    action = solve(rules, rules.dealer_draws_at_most).action

    def optimal(hand: Any) -> Any:
        return np.asarray(action[colex_rank_array(hand)] == Action.DRAW)

    return optimal


def section(ctx: ReportContext) -> None:
    """Append the Pok Deng section to the report ``ctx``."""
    md = ctx.md
    md += [
        "## Pok Deng",
        "",
        "Heads-up, exact card removal (RULES.md §5): the EV averages every dealer "
        "two-card hand from the 50 unseen cards, then the player's and the dealer's "
        "draw cards. A dealer Pok settles at once; heads-up that changes no EV.",
        "",
    ]
    curves: dict[str, list[PokDengEdge]] = {}
    for preset in PRESETS:
        prules = load_rules(preset)
        res = odds(preset, ctx.tables)
        curves[preset] = [pokdeng_edge(prules, k) for k in POLICIES]
        md += [f"### Preset `{preset}`", "", prules.description, ""]
        md += rules_block(preset, prules.to_data())
        for part in ("2_card_type_points", "2_card_deng", "3_card_type", "3_card_deng"):
            md += [f"#### {part.replace('_', ' ').capitalize()}", ""]
            md += md_table(["kind", "hands", "probability", "exact"], odds_rows(res, part))
            md += [""]
        md += ["#### Edge by dealer policy", ""]
        md += md_table(
            [
                "dealer draws on K or less",
                "optimal drawing",
                "exact",
                "draw on 4 or less",
                "exact",
                "starts that draw",
            ],
            [
                [
                    e.dealer_draws_at_most,
                    ev_text(e.ev_optimal),
                    f"`{fraction_text(e.ev_optimal)}`",
                    ev_text(e.ev_simple),
                    f"`{fraction_text(e.ev_simple)}`",
                    e.draws_optimal,
                ]
                for e in curves[preset]
            ],
        )
        md += [""]
        default = curves[preset][prules.dealer_draws_at_most]
        md += [
            f"The player's EV by his two-card start, playing optimally (dealer draws on "
            f"{prules.dealer_draws_at_most} or less):",
            "",
        ]
        md += md_table(
            ["start", "player's EV"],
            [
                [("Pok " + lb[4:]) if lb.startswith("pok_") else f"total {lb}", ev_text(v)]
                for lb, v in default.ev_by_points.items()
            ],
        )
        md += [""]
        ctx.check(
            f"Pok Deng {preset}, draw on 4 or less",
            default.ev_simple,
            simulate_pokdeng(prules, "simple", None, rounds=ctx.simulate_rounds, seed=4),
        )
        ctx.check(
            f"Pok Deng {preset}, optimal drawing (the exact strategy as policy)",
            default.ev_optimal,
            simulate_pokdeng(
                prules, _optimal_policy(prules), None, rounds=ctx.simulate_rounds, seed=5
            ),
        )
        if ctx.plots:
            from solver.games.pokdeng.chart import chart_png, strategy_chart

            chart = strategy_chart(preset, prules.dealer_draws_at_most, ctx.tables)
            chart_png(chart, ctx.image(f"pokdeng_strategy_{preset}.png"))
            md += [f"![Pok Deng strategy, {preset}](pokdeng_strategy_{preset}.png)", ""]
    if ctx.plots:
        _plot_policy(ctx.image("pokdeng_policy.png"), curves)
        md += ["![Pok Deng EV by dealer policy](pokdeng_policy.png)", ""]


def _plot_policy(path: Path, curves: dict[str, list[PokDengEdge]]) -> None:
    fig = figure(9, 4.8)
    ax = fig.add_subplot(1, 1, 1)
    for name, edges in curves.items():
        ks = [e.dealer_draws_at_most for e in edges]
        ax.plot(
            ks, [float(e.ev_optimal) for e in edges], marker="o", label=f"{name}: optimal drawing"
        )
        ax.plot(
            ks,
            [float(e.ev_simple) for e in edges],
            marker="s",
            linestyle="--",
            label=f"{name}: draw on 4 or less",
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("dealer draws on K or less")
    ax.set_ylabel("player's exact EV per stake")
    ax.set_title("Pok Deng: the player's EV against each dealer policy")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
