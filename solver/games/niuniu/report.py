"""Niu Niu's part of ``bull report`` and of the README's headline numbers: per preset,
the exact probability of every category and the exact edge of every bet, each checked
by the simulator, with two plots."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

from solver.games.niuniu.matchups import shoe_sums
from solver.games.niuniu.odds import EdgeResult, edge_of, niuniu_edge, odds
from solver.games.niuniu.rules import NiuNiuRules, load_rules
from solver.games.niuniu.simulate import simulate_niuniu
from solver.kit.exact import OddsResult, exact_commission, fraction_text, percent
from solver.kit.markdown import (
    ReportContext,
    ev_text,
    figure,
    md_table,
    odds_rows,
    rules_block,
)

__all__ = ["PRESETS", "SHOE_DECKS", "headline", "risk_headline", "section"]

PRESETS = ("classic", "casino", "no_faces", "shoe6")
"""The presets the report covers, in order."""
PLOTTED = ("classic", "casino")
"""The 52-card presets the plots compare."""
HEADLINE_BETS = (("classic", ("equal", "double")), ("casino", ("standard",)))
SHOE_DECKS = (1, 2, 3, 4, 5, 6, 7, 8)
"""The shoe sizes of the report's "one deck to eight" table (classic rules, ties push)."""


def headline(tables: str | os.PathLike[str] | None = None) -> tuple[list[str], str]:
    """The README headline rows (each preset's default and other bets) and their note."""
    rows = []
    for preset, bets in HEADLINE_BETS:
        for bet in bets:
            e = niuniu_edge(preset, bet, None, tables)
            rows.append(
                f"| Niu Niu `{preset}`, {bet} bet, {percent(e.commission, 0)} commission "
                f"| {ev_text(e.ev)} | `{fraction_text(e.ev)}` | {percent(-e.ev, 3)} |"
            )
    return rows, "Niu Niu averages over all 2,598,960 x 1,533,939 pairs of disjoint hands"


def risk_headline(tables: str | os.PathLike[str] | None = None) -> list[str]:
    """The README's risk rows: `classic`, double bet, heads-up and at a full table."""
    from solver.games.niuniu.risk import table_risk

    t = None if tables is None else str(tables)
    rows = []
    for n in (1, 9):
        r = table_risk("classic", {"bet": "double"}, t, n, 1000)
        lo, hi = (math.sqrt(max(0.0, v)) for v in r.variance_interval)
        sd = f"{r.sd:.4f}" + (" (exact)" if n == 1 else f" [{lo:.4f}, {hi:.4f}]")
        cells = []
        for row in r.reserve:
            if row["method"] == "simulated":
                cells.append(f"{row['amount']:g} [{row['low']:g}, {row['high']:g}]")
            elif row["method"] == "bound":
                cells.append(f"{row['low']:g} seen, at most {row['amount']:g}")
            elif n > 1:
                cells.append(f"{row['amount']:g} (exact)")
            else:
                cells.append(f"{row['amount']:g}")
        who = "heads-up" if n == 1 else f"a full table of {n} players"
        rows.append(
            f"| Niu Niu `classic`, double bet, 5% commission, {who} "
            f"| {float(r.mean):+.6f} (`{fraction_text(r.mean)}`) | {sd} | "
            + " | ".join(cells)
            + " |"
        )
    return rows


def section(ctx: ReportContext) -> None:
    """Append the Niu Niu section to the report ``ctx``."""
    md = ctx.md
    md += ["## Niu Niu", ""]
    shoe = load_rules("shoe6")
    curve = _curve_edges(ctx, shoe)  # also serves preset shoe6 (its sums are cached)
    nn_odds = {p: odds(p, ctx.tables) for p in PRESETS}
    nn_edges: dict[str, EdgeResult] = {}
    for preset in PRESETS:
        rules = load_rules(preset)
        md += [
            f"### Preset `{preset}`",
            "",
            rules.description,
            "",
            f"Deck `{rules.deck}` ({rules.deck_size} cards, {rules.hands:,} hands); specials "
            f"counted (low to high): {', '.join(rules.specials) or 'none'}; "
            f"tie-break `{rules.tie_break}`, ties `{rules.on_tie}`; bets "
            f"{', '.join(rules.bets)}; commission {rules.commission:g} of the player's winnings.",
            "",
        ]
        md += rules_block(preset, rules.to_data())
        md += ["#### Categories", ""]
        md += md_table(
            ["category", "hands", "probability", "exact"], odds_rows(nn_odds[preset], "category")
        )
        md += [""]
        for bet in rules.bets:
            e = niuniu_edge(rules, bet, None, ctx.tables)
            if preset in PLOTTED:
                nn_edges[f"{preset}/{bet}"] = e
            fair = niuniu_edge(rules, bet, 0, ctx.tables)
            three = niuniu_edge(rules, bet, 0.03, ctx.tables)
            md += [
                f"#### Edge: {bet} bet",
                "",
                f"Over all {e.pairs:,} ordered pairs of disjoint hands "
                f"(computed in {e.seconds:.1f} s).",
                "",
            ]
            md += md_table(
                ["commission", "player's EV", "exact", "house edge"],
                [
                    [
                        f"{float(x.commission):g}",
                        ev_text(x.ev),
                        f"`{fraction_text(x.ev)}`",
                        percent(-x.ev),
                    ]
                    for x in (e, three, fair)
                ],
            )
            md += [
                "",
                f"P(win) {percent(e.p_win)}, P(loss) {percent(e.p_loss)}, P(push) "
                f"{percent(e.p_push)} (exact `{fraction_text(e.p_win)}`, "
                f"`{fraction_text(e.p_loss)}`, `{fraction_text(e.p_push)}`).",
                "",
                "The winning hand's category (either side; the two hands are "
                "exchangeable, so each side wins with each category equally often), and "
                "the player's EV holding each category:",
                "",
            ]
            md += md_table(
                ["category", "P(winning hand is this)", "player's EV holding it"],
                [
                    [
                        lb.replace("_", " "),
                        percent(e.winner_category[lb]),
                        ev_text(e.ev_by_category[lb]) if lb in e.ev_by_category else "—",
                    ]
                    for lb in e.winner_category
                ],
            )
            md += [""]
            mc = simulate_niuniu(rules, bet, None, rounds=ctx.simulate_rounds, players=4, seed=2026)
            ctx.check(f"Niu Niu {preset}, {bet} bet", e.ev, mc)
    _shoe_section(ctx, shoe, curve)
    from solver.games.niuniu.grab import report_section

    report_section(ctx)  # grab the banker: EV as banker by the four visible cards
    md += ["### Special hands before precedence", ""]
    md += md_table(
        ["special", "hands", "probability", "exact"],
        odds_rows(nn_odds["classic"], "specials_before_precedence"),
    )
    md += [""]
    if ctx.plots:
        _plot_categories(ctx.image("niuniu_categories.png"), nn_odds)
        _plot_ev(ctx.image("niuniu_ev_by_class.png"), nn_edges)
        md += [
            "![Niu Niu category frequencies](niuniu_categories.png)",
            "",
            "![Niu Niu EV by hand class](niuniu_ev_by_class.png)",
            "",
        ]
    _risk_sections(ctx)


CURVE_BATCH = 3
"""Shoe sizes counted in one pass for the report (each holds ~180 MB of counts while
it is counted; all eight at once peaked near 2.5 GB)."""


def _curve_edges(
    ctx: ReportContext, shoe: NiuNiuRules
) -> tuple[dict[str, list[EdgeResult]], float]:
    """The edges of every bet at each of the report's shoe sizes, a few sizes per pass
    (each size's sums cached: preset ``shoe6`` reads the 6-deck ones)."""
    sizes = list(ctx.shoe_decks)
    c = exact_commission(None, shoe.commission)
    edges: dict[str, list[EdgeResult]] = {bet: [] for bet in shoe.bets}
    seconds = 0.0
    for i in range(0, len(sizes), CURVE_BATCH):
        ctx.progress(f"niuniu: shoes of {', '.join(map(str, sizes[i : i + CURVE_BATCH]))} decks")
        batch = shoe_sums(shoe, sizes[i : i + CURVE_BATCH], ctx.tables)
        for d, mu in batch.items():
            for bet in shoe.bets:
                edges[bet].append(edge_of(replace(shoe, decks=d), mu, bet, c))
            seconds += mu.seconds
        del batch
    return edges, seconds


def _shoe_section(
    ctx: ReportContext, shoe: NiuNiuRules, curve: tuple[dict[str, list[EdgeResult]], float]
) -> None:
    """How the edge moves from one deck to an 8-deck shoe (classic rules, ties push)."""
    md = ctx.md
    edges, seconds = curve
    sizes = [e.decks for e in edges[shoe.bets[0]]]
    md += [
        "### From one deck to an 8-deck shoe",
        "",
        "Classic rules (ties push), the banker's hand dealt from what the player's leaves "
        "in a shoe of N decks: every figure exact, over all C(52N, 5) · C(52N - 5, 5) "
        f"ordered deals of two hands ({CURVE_BATCH} sizes per pass, {seconds:.0f} s). With "
        "several decks two hands can be exactly equal (a push), and a hand may hold a "
        "card twice.",
        "",
    ]
    rows = []
    for i, d in enumerate(sizes):
        eq, db = edges["equal"][i], edges["double"][i]
        rows.append(
            [
                str(d),
                percent(-eq.ev, 3),
                f"`{fraction_text(eq.ev)}`",
                percent(-db.ev, 3),
                percent(eq.p_push, 3),
            ]
        )
    md += md_table(
        [
            "decks",
            "house edge, equal",
            "player's EV, equal (exact)",
            "house edge, double",
            "P(push)",
        ],
        rows,
    )
    if 1 in sizes:
        at = sizes.index(1)
        same = all(
            edges[bet][at].ev == niuniu_edge("classic", bet, None, ctx.tables).ev
            for bet in shoe.bets
        )
        md += [
            "",
            "The one-deck row comes out of the shoe computation (hands that repeat a card "
            "weigh 0) and equals preset `classic`'s figures exactly: "
            + ("**yes**." if same else "**NO — a defect**."),
            "",
        ]
    else:
        md += [""]
    if ctx.plots:
        _plot_shoe(ctx.image("niuniu_shoe.png"), sizes, edges)
        md += ["![Niu Niu edge by shoe size](niuniu_shoe.png)", ""]


def _plot_shoe(path: Path, decks: list[int], edges: dict[str, list[EdgeResult]]) -> None:
    fig = figure(8, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    for bet, es in edges.items():
        ax.plot(decks, [100 * float(-e.ev) for e in es], marker="o", label=f"house edge, {bet}")
    ax.plot(
        decks, [100 * float(e.p_push) for e in edges["equal"]], marker="s", ls="--", label="P(push)"
    )
    ax.set_xlabel("decks in the shoe")
    ax.set_ylabel("percent")
    ax.set_title("Niu Niu classic: exact house edge and P(push) by shoe size")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def _plot_categories(path: Path, res: dict[str, OddsResult]) -> None:
    fig = figure(10, 5)
    ax = fig.add_subplot(1, 1, 1)
    labels = [lb for lb, _ in res["casino"].sections["category"]]
    width = 0.4
    for i, preset in enumerate(PLOTTED):
        d = dict(res[preset].sections["category"])
        total = res[preset].totals["category"]
        xs = [j + (i - 0.5) * width for j in range(len(labels))]
        ax.bar(xs, [d.get(lb, 0) / total for lb in labels], width, label=preset)
    ax.set_yscale("log")
    ax.set_xticks(
        range(len(labels)), [lb.replace("_", " ") for lb in labels], rotation=40, ha="right"
    )
    ax.set_ylabel("probability (log scale)")
    ax.set_title("Niu Niu: probability of each category (all 2,598,960 hands)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def _plot_ev(path: Path, edges: dict[str, EdgeResult]) -> None:
    fig = figure(10, 5)
    ax = fig.add_subplot(1, 1, 1)
    labels = list(edges["casino/standard"].ev_by_category)
    width = 0.8 / len(edges)
    for i, (key, e) in enumerate(edges.items()):
        xs = [j + (i - (len(edges) - 1) / 2) * width for j in range(len(labels))]
        ax.bar(
            xs,
            [float(e.ev_by_category.get(lb, float("nan"))) for lb in labels],
            width,
            label=key.replace("/", ", ") + " bet",
        )
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(
        range(len(labels)), [lb.replace("_", " ") for lb in labels], rotation=40, ha="right"
    )
    ax.set_ylabel("player's EV per stake holding this hand")
    ax.set_title("Niu Niu: the player's exact EV by the class of his hand (5% commission)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def _risk_sections(ctx: ReportContext) -> None:
    """The banker at a full table, per preset (its default bet; classic also double)."""
    from solver.games.niuniu.risk import table_risk
    from solver.kit.banker import BankerRisk
    from solver.kit.risk_report import risk_section

    tables = None if ctx.tables is None else str(ctx.tables)
    runs = [(p, load_rules(p).bet(None)) for p in PRESETS] + [("classic", "double")]
    for preset, bet in dict.fromkeys(runs):
        md_bet = f"{bet} bet"
        ctx.md += [f"### Risk: `{preset}`, {md_bet}", ""]
        seats = 9 if load_rules(preset).decks == 1 else 16
        seats = min(seats, load_rules(preset).deck_size * load_rules(preset).decks // 5 - 1)

        def risk(n: int, preset: str = preset, bet: str = bet) -> BankerRisk:
            def show(done: int, total: int) -> None:
                ctx.progress(f"niuniu {preset} {bet}: simulating tables {done:,}/{total:,}")

            return table_risk(preset, {"bet": bet}, tables, n, 1000, None, show, ctx.sim_tables)

        risk_section(ctx, "niuniu", "Niu Niu", preset, md_bet, risk, seats, tag=bet)
