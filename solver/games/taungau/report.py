"""Tau Ngau's part of ``bull report`` and of the README's headline numbers: per preset,
the exact distribution of the best score and the exact edge with and without the
decline decision, each checked by the simulator, with two plots."""

from __future__ import annotations

import os
from pathlib import Path

from solver.games.taungau.odds import TauNgauEdge, odds, taungau_edge
from solver.games.taungau.rules import load_rules
from solver.games.taungau.simulate import simulate_taungau
from solver.kit.exact import OddsResult, fraction_text, percent
from solver.kit.markdown import (
    ReportContext,
    ev_text,
    figure,
    md_table,
    odds_rows,
    rules_block,
)

__all__ = ["PRESETS", "headline", "section"]

PRESETS = ("macau", "pagat")
"""The presets the report covers, in order."""


def headline(tables: str | os.PathLike[str] | None = None) -> tuple[list[str], str]:
    """The README headline rows (macau three ways, pagat) and their note."""
    m = taungau_edge("macau", None, tables)
    p = taungau_edge("pagat", None, tables)
    rows = [
        f"| Tau Ngau `macau`, always declaring | {ev_text(m.ev_always_declare)} | "
        f"`{fraction_text(m.ev_always_declare)}` | {percent(-m.ev_always_declare, 3)} |",
        f"| Tau Ngau `macau`, declining optimally, banker reveals last | "
        f"{ev_text(m.ev_optimal_last)} | `{fraction_text(m.ev_optimal_last)}` | "
        f"{percent(-m.ev_optimal_last, 3)} |",
        f"| Tau Ngau `macau`, declining optimally, banker reveals first | "
        f"{ev_text(m.ev_optimal_first)} | `{fraction_text(m.ev_optimal_first)}` | "
        f"{percent(-m.ev_optimal_first, 3)} |",
        f"| Tau Ngau `pagat` (P(win) {percent(p.p_win, 2)}, P(push) {percent(p.p_push, 2)}, "
        f"P(loss) {percent(p.p_loss, 2)}) | {ev_text(p.ev_optimal)} | "
        f"`{fraction_text(p.ev_optimal)}` | {percent(-p.ev_optimal, 3)} |",
    ]
    return rows, "Tau Ngau over all 201,376 x 80,730 pairs of disjoint tile hands"


def section(ctx: ReportContext) -> None:
    """Append the Tau Ngau section to the report ``ctx``."""
    md = ctx.md
    md += ["## Tau Ngau", ""]
    tn_odds = {p: odds(p, ctx.tables) for p in PRESETS}
    tn_edges: dict[str, TauNgauEdge] = {}
    for preset in PRESETS:
        trules = load_rules(preset)
        te = taungau_edge(trules, None, ctx.tables)
        tn_edges[preset] = te
        md += [f"### Preset `{preset}`", "", trules.description, ""]
        md += rules_block(preset, trules.to_data())
        md += ["#### Best score", ""]
        md += md_table(
            ["score", "hands", "probability", "exact"], odds_rows(tn_odds[preset], "best_score")
        )
        md += ["", "#### Edge", "", f"Over all {te.pairs:,} ordered pairs of disjoint hands.", ""]
        md += md_table(
            ["play", "player's EV", "exact"],
            [
                [
                    "always declaring a bull",
                    ev_text(te.ev_always_declare),
                    f"`{fraction_text(te.ev_always_declare)}`",
                ],
                [
                    "declining optimally, banker reveals first",
                    ev_text(te.ev_optimal_first),
                    f"`{fraction_text(te.ev_optimal_first)}`",
                ],
                [
                    "declining optimally, banker reveals last",
                    ev_text(te.ev_optimal_last),
                    f"`{fraction_text(te.ev_optimal_last)}`",
                ],
            ],
        )
        md += [
            "",
            f"Always declaring: P(player wins) {percent(te.p_win)}, P(push) "
            f"{percent(te.p_push)}, P(player loses) {percent(te.p_loss)}.",
            "",
        ]
        if trules.has_decline:
            md += [
                f"Banker reveals last: {te.decline_last:,} of 201,376 hands should "
                "decline. Banker reveals first: decline from these banker scores on:",
                "",
            ]
            md += md_table(
                ["player's score", "decline when the banker scores at least"],
                [[p, "never" if b is None else b] for p, b in te.decline_from.items()],
            )
            md += [""]
        md += ["The player's EV of declaring, by his best score:", ""]
        md += md_table(
            ["best score", "hands", "EV"],
            [
                [s.replace("_", " "), f"{te.hands_by_score[s]:,}", ev_text(v)]
                for s, v in te.ev_by_score.items()
            ],
        )
        md += [""]
        ctx.check(
            f"Tau Ngau {preset}, always declaring",
            te.ev_always_declare,
            simulate_taungau(trules, "declare", rounds=ctx.simulate_rounds, seed=7),
        )
        if trules.has_decline:
            ctx.check(
                f"Tau Ngau {preset}, declining, banker reveals first",
                te.ev_optimal_first,
                simulate_taungau(trules, "first", rounds=ctx.simulate_rounds, seed=8),
            )
    if ctx.plots:
        _plot_scores(ctx.image("taungau_scores.png"), tn_odds)
        _plot_macau_decline(
            ctx.image("macau_decline.png"),
            tn_edges["macau"],
            load_rules("macau").no_bull_payment(0),
        )
        md += [
            "![Tau Ngau best scores](taungau_scores.png)",
            "",
            "![Macau decline thresholds](macau_decline.png)",
            "",
        ]
    _risk_sections(ctx)


def _plot_scores(path: Path, res: dict[str, OddsResult]) -> None:
    fig = figure(10, 4.5)
    for i, preset in enumerate(PRESETS):
        ax = fig.add_subplot(1, 2, i + 1)
        rows = res[preset].sections["best_score"]
        total = res[preset].totals["best_score"]
        ax.bar(
            range(len(rows)),
            [n / total for _, n in rows],
            color=["#999999"] + ["#4f9de0"] * (len(rows) - 1),
        )
        ax.set_xticks(range(len(rows)), ["none" if lb == "no_bull" else lb for lb, _ in rows])
        ax.set_title(f"Tau Ngau {preset}: best score")
        ax.set_xlabel("score (none = no bull)")
        ax.set_ylabel("probability")
    fig.tight_layout()
    fig.savefig(path)


def _plot_macau_decline(path: Path, macau: TauNgauEdge, pays: int) -> None:
    import numpy as np

    fig = figure(12, 5)
    ax = fig.add_subplot(1, 2, 1)
    # what the player is actually paid: a declined bull pays the fixed amount
    grid = np.array([[max(p - b, -pays) for b in range(11)] for p in range(1, 11)], dtype=float)
    image = ax.imshow(grid, cmap="RdYlGn", vmin=-10, vmax=10, origin="lower", aspect="auto")
    fig.colorbar(image, ax=ax, label="player's net in stakes (declined: the amount paid)")
    for pi, p in enumerate(range(1, 11)):
        for b in range(11):
            decline = p - b < -pays
            ax.text(
                b,
                pi,
                "D" if decline else f"{p - b:+d}" if p != b else "0",
                ha="center",
                va="center",
                fontsize=8,
                fontweight="bold" if decline else "normal",
            )
    ax.set_xticks(range(11), ["none"] + [str(b) for b in range(1, 11)])
    ax.set_yticks(range(10), [str(p) for p in range(1, 11)])
    ax.set_xlabel("banker's score")
    ax.set_ylabel("player's score")
    ax.set_title(f"Banker reveals first: player's net; D = decline (pay {pays})")
    ax2 = fig.add_subplot(1, 2, 2)
    scores = [s for s in macau.ev_by_score if s != "no_bull"]
    ax2.bar(
        range(len(scores)),
        [float(macau.ev_by_score[s]) for s in scores],
        color="#4f9de0",
        label="EV of declaring (average over hands)",
    )
    ax2.axhline(-pays, color="#c0392b", linestyle="--", label=f"declining: {-pays}")
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.set_xticks(range(len(scores)), scores)
    ax2.set_xlabel("player's best score")
    ax2.set_ylabel("player's EV per stake")
    ax2.set_title(f"Banker reveals last: {macau.decline_last} of 201,376 hands decline")
    ax2.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(path)


def _risk_sections(ctx: ReportContext) -> None:
    """The banker at a full table (five players from the 32 tiles), per preset."""
    from solver.games.taungau.risk import table_risk
    from solver.kit.banker import BankerRisk
    from solver.kit.risk_report import risk_section

    tables = None if ctx.tables is None else str(ctx.tables)
    for preset in PRESETS:
        r = load_rules(preset)
        setting = f"banker reveals {r.banker_reveals}" if r.has_decline else "even money"
        ctx.md += [f"### Risk: `{preset}`", ""]

        def risk(n: int, preset: str = preset) -> BankerRisk:
            def show(done: int, total: int) -> None:
                ctx.progress(f"taungau {preset}: simulating tables {done:,}/{total:,}")

            # the covariance simulated: the exact one takes minutes per rule set
            return table_risk(preset, {}, tables, n, 1000, None, show, ctx.sim_tables, False)

        risk_section(ctx, "taungau", "Tau Ngau", preset, setting, risk, 5)
