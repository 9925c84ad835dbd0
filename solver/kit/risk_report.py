"""The risk part of ``bull report`` for one game and rule set, game-blind.

:func:`risk_section` appends, from ``bull risk``'s figures (:class:`BankerRisk`, one per
table size, answered from the cached table sample): a table of the banker's mean, SD and
reserve against the number of players, and three charts — the one-round distribution of
the player's net as bars (exact), a funnel of the house's total after 1 … 100,000 rounds
(mean and the 95 % / 99 % bands, heads-up and at a full table) and the reserve against
the number of players (99 %, 99.9 % with their intervals, and the worst round). Every
chart has its axes labelled with units and the rule set in its title.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from solver.kit.banker import BankerRisk
from solver.kit.markdown import ReportContext, figure, md_table
from solver.kit.risk import z_two_sided

__all__ = ["FUNNEL_ROUNDS", "risk_section"]

FUNNEL_ROUNDS = 100_000
"""The funnel chart's last round."""


def _reserve_cell(r: BankerRisk, i: int) -> str:
    row = r.reserve[i]
    if row["method"] == "simulated":
        return f"{row['amount']:g} [{row['low']:g}, {row['high']:g}]"
    if row["method"] == "bound":
        return f"{row['low']:g} .. {row['amount']:g} (seen .. bound)"
    return f"{row['amount']:g}"


def risk_section(
    ctx: ReportContext,
    game: str,
    title: str,
    preset: str,
    setting: str,
    risk: Callable[[int], BankerRisk],
    max_players: int,
    tag: str = "",
) -> None:
    """Append the risk figures of ``game`` under ``preset`` (``setting``: the bet or
    options in words; ``tag``: a word that tells the charts of one preset apart, e.g.
    the bet) to the report; ``risk(n)`` answers ``bull risk`` for n players, from one to
    ``max_players`` (the game's full table) or ``ctx.players`` when fewer."""
    last = max_players if ctx.players is None else min(ctx.players, max_players)
    sizes = list(range(1, last + 1))
    answers = [risk(n) for n in sizes]
    one, full = answers[0], answers[-1]
    md = ctx.md
    md += [
        f"#### Risk: the banker at a table ({setting})",
        "",
        f"The banker's net per round against N players from one deal (`bull risk {game} "
        f"--rules {preset} --players N`). Mean exact; the covariance of two players' nets "
        f"against one banker hand is {full.covariance:.4f} (99% interval "
        f"{full.covariance_interval[0]:.4f} .. {full.covariance_interval[1]:.4f}, "
        f"{full.covariance_method} over {full.tables:,} tables), so Var = N·Var₁ + "
        "N(N-1)·Cov. The reserve covers the banker's loss in one round with the given "
        "probability (heads-up exact; at more players simulated, with its 99% interval; "
        "the worst round exact heads-up, else exact when dealt in the simulation or an "
        "upper bound).",
        "",
    ]
    rows = []
    for n, r in zip(sizes, answers, strict=True):
        rows.append(
            [
                n,
                f"{float(r.mean):+.4f}",
                f"{r.sd:.4f}",
                _reserve_cell(r, 0),
                _reserve_cell(r, 1),
                _reserve_cell(r, 2),
            ]
        )
    md += md_table(
        ["players", "banker's mean", "SD", "reserve 99%", "reserve 99.9%", "worst round"], rows
    )
    md += [""]
    if not ctx.plots:
        return
    stem = f"{game}_{preset}{'_' + tag if tag else ''}_risk"
    rule = f"{title} `{preset}`, {setting}"
    _plot_distribution(ctx.image(f"{stem}_distribution.png"), one, rule)
    _plot_funnel(ctx.image(f"{stem}_funnel.png"), one, full, rule)
    _plot_reserve(ctx.image(f"{stem}_reserve.png"), sizes, answers, rule)
    md += [
        f"![{title} {preset}: one-round distribution]({stem}_distribution.png)",
        "",
        f"![{title} {preset}: the house's total after 1 to 100,000 rounds]({stem}_funnel.png)",
        "",
        f"![{title} {preset}: reserve against players]({stem}_reserve.png)",
        "",
    ]


def _plot_distribution(path: Path, r: BankerRisk, rule: str) -> None:
    fig = figure(9, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    pts = r.player.points
    xs = [float(a) for a, _ in pts]
    ps = [100 * float(p) for _, p in pts]
    width = 0.8 * min((b - a for a, b in itertools.pairwise(xs)), default=1.0)
    colors = ["tab:red" if x < 0 else "tab:green" if x > 0 else "tab:gray" for x in xs]
    ax.bar(xs, ps, width=width, color=colors)
    ax.set_xlabel("player's net in one round (stakes; negative: the house wins)")
    ax.set_ylabel("probability (%)")
    ax.set_title(
        f"{rule}: one round heads-up, exact (mean {float(r.player.mean):+.4f}, "
        f"SD {r.player.sd:.3f})",
        fontsize=9,
    )
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)


def _plot_funnel(path: Path, one: BankerRisk, full: BankerRisk, rule: str) -> None:
    import numpy as np

    fig = figure(9, 5)
    ax = fig.add_subplot(1, 1, 1)
    t = np.unique(np.round(np.logspace(0, math.log10(FUNNEL_ROUNDS), 200)).astype(int))
    for r, color in ((one, "tab:blue"), (full, "tab:orange")):
        mean, sd = float(r.mean), r.sd
        who = "heads-up" if r.players == 1 else f"{r.players} players"
        ax.plot(t, t * mean, color=color, label=f"mean, {who}")
        for level, alpha in ((95, 0.3), (99, 0.15)):
            half = z_two_sided(level) * sd * np.sqrt(t)
            ax.fill_between(
                t, t * mean - half, t * mean + half, color=color, alpha=alpha, linewidth=0,
                label=f"{level}% band, {who}",
            )  # fmt: skip
    ax.set_xscale("log")
    # symmetric log: the first rounds' spread and the last rounds' drift both show
    ax.set_yscale("symlog", linthresh=max(1.0, 3 * one.sd))
    ax.axhline(0, color="black", linewidth=0.6)
    _plain_ticks(ax)
    ax.set_xlabel("rounds played (log scale)")
    ax.set_ylabel("house's total net (stakes; symmetric log scale)")
    ax.set_title(f"{rule}: the house's total (normal approximation)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)


def _plain_number(v: float, _pos: object = None) -> str:
    """A tick label in plain digits (no mathtext: the log axes' 10^k labels are slow to
    lay out), thousands separated, with the typographic minus sign.

    >>> [_plain_number(v) for v in (1e5, 0.0, 0.5)], _plain_number(-1e3)[1:]
    (['100,000', '0', '0.5'], '1,000')
    >>> _plain_number(-1e3)[0] == "\N{MINUS SIGN}"
    True
    """
    return f"{v:,.15g}".replace("-", "\N{MINUS SIGN}")


def _plain_ticks(ax: Any) -> None:
    """Label the major ticks of both axes in plain digits, the minor ones not at all
    (as the log scales leave them over several decades)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(_plain_number))
        axis.set_minor_formatter(NullFormatter())


def _plot_reserve(path: Path, sizes: list[int], answers: list[BankerRisk], rule: str) -> None:
    fig = figure(9, 4.5)
    ax = fig.add_subplot(1, 1, 1)
    for i, (label, marker) in enumerate((("99%", "o"), ("99.9%", "s"))):
        amount = [r.reserve[i]["amount"] for r in answers]
        lo = [r.reserve[i]["amount"] - r.reserve[i]["low"] for r in answers]
        hi = [r.reserve[i]["high"] - r.reserve[i]["amount"] for r in answers]
        ax.errorbar(
            sizes, amount, yerr=[lo, hi], marker=marker, capsize=3,
            label=f"covers {label} of rounds (99% interval)",
        )  # fmt: skip
    worst = [r.reserve[2]["amount"] for r in answers]
    exact = [r.reserve[2]["method"] == "exact" for r in answers]
    ax.plot(sizes, worst, color="tab:red", linestyle="--", label="the worst round")
    ax.scatter(
        [n for n, e in zip(sizes, exact, strict=True) if not e],
        [w for w, e in zip(worst, exact, strict=True) if not e],
        facecolors="none", edgecolors="tab:red", label="worst: an upper bound",
    )  # fmt: skip
    ax.set_xlabel("players at the table")
    ax.set_ylabel("banker's reserve for one round (stakes)")
    ax.set_title(f"{rule}: the reserve against the number of players", fontsize=9)
    ax.set_xticks(sizes)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
