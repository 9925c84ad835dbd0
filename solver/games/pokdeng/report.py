"""Pok Deng's part of ``bull report`` and of the README's headline numbers: per preset,
the exact odds of every kind of hand, the exact edge against every dealer policy, the
EV of every start, each checked by the simulator, and the strategy charts."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from solver.core.indexing import colex_rank_array, multiset_rank_array
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

__all__ = ["POLICIES", "PRESETS", "SHOE_DECKS", "ShoeRow", "headline", "section", "shoe_rows"]

PRESETS = ("standard", "straights")
"""The presets the report covers, in order."""
POLICIES = tuple(range(10))
"""The dealer policies (draws on K or less) the report compares."""
SHOE_DECKS = tuple(range(1, 9))
"""The shoe sizes the report compares (the ``standard`` rules from 1 to 8 decks)."""


@dataclass(frozen=True)
class ShoeRow:
    """One shoe size of the deck comparison: the exact overall figures of the shoe
    strategy (standard rules, dealer draws on 4 or less) and how the strategy moved
    from one deck: ``changed`` counts the 1,326 one-deck starts whose best action
    differs, ``draws`` the multiset starts that draw (of those the shoe deals)."""

    decks: int
    ev_optimal: Fraction
    ev_simple: Fraction
    p_push_optimal: Fraction
    draws: int
    changed: int
    seconds: float


def shoe_rows(
    rules: PokDengRules | None = None, decks: Sequence[int] = SHOE_DECKS
) -> list[ShoeRow]:
    """The deck comparison: one exact shoe solve per size (about 0.3 s each)."""
    import time

    import numpy as np

    from solver.games.pokdeng.hands import all_hands
    from solver.games.pokdeng.shoe import solve_shoe

    base = rules or load_rules("standard")
    ranks = multiset_rank_array(all_hands(2), presorted=True)  # the one-deck starts
    out = []
    first = None
    for n in decks:
        t0 = time.perf_counter()
        sol = solve_shoe(replace(base, decks=n, name=f"{base.name}-{n}"))
        seconds = time.perf_counter() - t0
        rec = sol.overall()
        act = sol.action[ranks]
        first = act if first is None else first
        out.append(
            ShoeRow(
                decks=n,
                ev_optimal=Fraction(rec["ev_optimal_fraction"]),
                ev_simple=Fraction(rec["ev_simple_fraction"]),
                p_push_optimal=Fraction(rec["p_push_optimal_fraction"]),
                draws=rec["draws_optimal"],
                changed=int(np.sum(act != first)),
                seconds=seconds,
            )
        )
    return out


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
    _shoe_section(ctx)
    _dealer_section(ctx)
    _risk_sections(ctx)


def _dealer_section(ctx: ReportContext) -> None:
    """The two-sided game: the player's EV against a fixed dealer, the dealer's best
    response, and the equilibrium (``standard`` rules, heads-up, one deck)."""
    from solver.games.pokdeng.dealer_commands import dealer_report_rows

    rows = dealer_report_rows("standard")
    ctx.md += [
        "### The dealer decides too: best response and equilibrium",
        "",
        "The dealer sees whether the player drew. Against the player's optimal strategy "
        "for a dealer who draws on 4 or less, the dealer's best response (per start and "
        "the player's card count) and the exact equilibrium of the zero-sum game, under "
        "house constraints (`bull strategy pokdeng --dealer best-response|equilibrium "
        "--must-draw-at-most K`; K = -1: free choice). Each equilibrium is certified: "
        "both best responses equal the value exactly.",
        "",
    ]
    ctx.md += md_table(
        ["case", "player's EV", "exact", "house edge"],
        [
            [r.case, ev_text(r.player_ev), f"`{fraction_text(r.player_ev)}`", percent(-r.player_ev)]
            for r in rows
        ],
    )
    ctx.md += [""]


def _shoe_section(ctx: ReportContext) -> None:
    """From one deck to an 8-deck shoe (the ``standard`` rules; preset ``shoe8``)."""
    md = ctx.md
    rows = shoe_rows(decks=ctx.shoe_decks)
    md += [
        "### From one deck to an 8-deck shoe",
        "",
        "The `standard` rules dealt from a shoe of N decks (preset `shoe8`: N = 8), dealer "
        "draws on 4 or less: exact, with card removal in the shoe; every multiset start "
        "weighted by its number of deals. *Changed*: of the 1,326 one-deck starts, how "
        "many have another best action than with one deck. *Starts that draw*: multiset "
        "starts (the shoe adds the 52 pairs of identical cards). "
        f"Computed in {sum(r.seconds for r in rows):.1f} s.",
        "",
    ]
    md += md_table(
        [
            "decks",
            "optimal drawing",
            "exact",
            "draw on 4 or less",
            "P(push), optimal",
            "starts that draw",
            "changed",
        ],
        [
            [
                r.decks,
                ev_text(r.ev_optimal),
                f"`{fraction_text(r.ev_optimal)}`",
                ev_text(r.ev_simple),
                percent(r.p_push_optimal),
                r.draws,
                r.changed,
            ]
            for r in rows
        ],
    )
    md += [""]
    _check_shoe8(ctx, rows[-1])
    if ctx.plots:
        _plot_shoe(ctx.image("pokdeng_shoe.png"), rows)
        md += ["![Pok Deng from one deck to an 8-deck shoe](pokdeng_shoe.png)", ""]


def _check_shoe8(ctx: ReportContext, row: ShoeRow) -> None:
    """The simulator (dealing from a shuffled 8-deck shoe) against the exact shoe8 EVs."""
    if row.decks != 8 or ctx.simulate_rounds < 2:
        return
    import numpy as np

    from solver.games.pokdeng.shoe import solve_shoe
    from solver.games.pokdeng.strategy import Action

    rules = load_rules("shoe8")
    action = solve_shoe(rules).action

    def optimal(hand: Any) -> Any:
        return np.asarray(action[multiset_rank_array(hand)] == Action.DRAW)

    rounds = ctx.simulate_rounds
    ctx.check(
        "Pok Deng shoe8, draw on 4 or less",
        row.ev_simple,
        simulate_pokdeng(rules, "simple", None, rounds=rounds, seed=6),
    )
    ctx.check(
        "Pok Deng shoe8, optimal drawing (the exact shoe strategy as policy)",
        row.ev_optimal,
        simulate_pokdeng(rules, optimal, None, rounds=rounds, seed=7),
    )


def _plot_shoe(path: Path, rows: list[ShoeRow]) -> None:
    fig = figure(9, 4.8)
    ax = fig.add_subplot(1, 2, 1)
    decks = [r.decks for r in rows]
    ax.plot(decks, [float(r.ev_optimal) * 100 for r in rows], marker="o")
    ax.set_xlabel("decks in the shoe")
    ax.set_ylabel("player's exact EV, optimal drawing (% of a stake)")
    ax.set_title("Edge of optimal drawing")
    bx = fig.add_subplot(1, 2, 2)
    bx.plot(decks, [r.draws for r in rows], marker="s", label="multiset starts that draw")
    bx.plot(decks, [r.changed for r in rows], marker="^", label="one-deck starts changed")
    bx.set_xlabel("decks in the shoe")
    bx.set_title("The strategy")
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


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


def _risk_sections(ctx: ReportContext) -> None:
    """The dealer at a full table (up to 16 players drawing optimally), per preset."""
    from solver.games.pokdeng.risk import table_risk
    from solver.kit.banker import BankerRisk
    from solver.kit.risk_report import risk_section

    tables = None if ctx.tables is None else str(ctx.tables)
    for preset in PRESETS:
        k = load_rules(preset).dealer_draws_at_most
        ctx.md += [f"### Risk: `{preset}`", ""]

        def risk(n: int, preset: str = preset) -> BankerRisk:
            def show(done: int, total: int) -> None:
                ctx.progress(f"pokdeng {preset}: simulating tables {done:,}/{total:,}")

            return table_risk(preset, {}, tables, n, 1000, None, show, ctx.sim_tables)

        setting = f"players draw optimally, the dealer on {k} or less"
        risk_section(ctx, "pokdeng", "Pok Deng", preset, setting, risk, 16)
