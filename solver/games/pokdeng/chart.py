"""The Pok Deng drawing strategy as a chart: every two-card start grouped by points and
kind, as text and as a PNG (``bull strategy pokdeng``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from solver.core.cards import RANK_NAMES, Card
from solver.core.errors import ParseError, RulesError
from solver.games.pokdeng.play import (
    RulesSpec,
    _policy,
    _resolve,
    advise_batch,
    evaluate_batch,
    overall,
)
from solver.games.pokdeng.strategy import (
    Action,
)

__all__ = ["Chart", "chart_png", "chart_text", "strategy_chart"]


@dataclass(frozen=True)
class Chart:
    """The strategy as a 13 x 13 grid of starts: cell ``(i, j)`` holds ranks i and j
    (0 = A .. 12 = K); ``i == j`` a pair, ``i < j`` suited, ``i > j`` offsuit (ranks
    ``j, i``). Every start in a cell has the same EVs (suit symmetry)."""

    rules: str
    dealer_draws_at_most: int
    action: tuple[tuple[str, ...], ...]
    points: tuple[tuple[int, ...], ...]
    ev_stand: tuple[tuple[Fraction, ...], ...]
    ev_draw: tuple[tuple[Fraction, ...], ...]
    ev_optimal: Fraction
    ev_simple: Fraction

    @staticmethod
    def cell_cards(i: int, j: int) -> tuple[Card, Card]:
        """A representative start of cell (i, j)."""
        if i == j:
            return (i * 4, i * 4 + 1)
        if i < j:
            return (i * 4, j * 4)
        return (j * 4, i * 4 + 1)

    @staticmethod
    def cell_name(i: int, j: int) -> str:
        """``'5-5'``, ``'A-4s'`` (suited), ``'10-Ko'`` (offsuit)."""
        lo, hi = min(i, j), max(i, j)
        kind = "" if i == j else ("s" if i < j else "o")
        return f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]}{kind}"

    def margin(self, i: int, j: int) -> Fraction:
        return abs(self.ev_draw[i][j] - self.ev_stand[i][j])

    def summary(self) -> list[str]:
        """One line per two-card total: what most of its starts do, and the exceptions.

        Exceptions are named by ranks: ``4-10/J/Q/Ks`` is 4 with a 10, J, Q or K of its
        suit; a start without ``s``/``o`` means suited and offsuit alike.
        """
        lines = []
        for pts in range(8):
            cells = [
                (i, j)
                for i in range(13)
                for j in range(13)
                if self.points[i][j] == pts and self.action[i][j] != "pok"
            ]
            draws = [c for c in cells if self.action[c[0]][c[1]] == "draw"]
            stands = [c for c in cells if self.action[c[0]][c[1]] == "stand"]

            def starts(group: list[tuple[int, int]]) -> int:
                return sum(6 if i == j else 4 if i < j else 12 for i, j in group)

            if starts(draws) >= starts(stands):
                main, alt, other = "draw", "stand", stands
            else:
                main, alt, other = "stand", "draw", draws
            line = f"total {pts}: {main}"
            if other:
                line += f"; {alt} with {_group_names(other)}"
            lines.append(line)
        return lines


def _group_names(cells: Sequence[tuple[int, int]]) -> str:
    """Compact names for chart cells (row, column), suited above the diagonal.

    >>> _group_names([(3, 9), (3, 10), (3, 11), (3, 12), (0, 3), (3, 0), (1, 1)])
    'A-4, 2-2, 4-10/J/Q/Ks'
    """
    kinds: dict[tuple[int, int], set[str]] = {}
    for i, j in cells:
        lo, hi = min(i, j), max(i, j)
        kinds.setdefault((lo, hi), set()).add("" if i == j else "s" if i < j else "o")
    groups: dict[tuple[int, str], list[int]] = {}
    for (lo, hi), ks in sorted(kinds.items()):
        suffix = "" if ks in ({"s", "o"}, {""}) else next(iter(ks))
        groups.setdefault((lo, suffix), []).append(hi)
    return ", ".join(
        f"{RANK_NAMES[lo]}-{'/'.join(RANK_NAMES[h] for h in his)}{suffix}"
        for (lo, suffix), his in groups.items()
    )


def strategy_chart(
    rules: RulesSpec = None,
    dealer_draws_at_most: int | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> Chart:
    """The whole strategy as a :class:`Chart` (169 cells = every class of starts)."""
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    reps = np.array([Chart.cell_cards(i, j) for i in range(13) for j in range(13)])
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    adv = advise_batch(reps, k, spec, tables)
    ev = evaluate_batch(reps, spec, tables)
    tot = overall(spec, k, tables)
    den = adv["den"]  # DRAW_DEN for one deck; a shoe's own denominator

    def fractions(nums: Sequence[Any]) -> list[Fraction]:
        return [Fraction(int(n), int(d)) for n, d in zip(nums, den, strict=True)]

    def grid(values: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(values[i * 13 : (i + 1) * 13]) for i in range(13))

    return Chart(
        rules=rs.rules.name,
        dealer_draws_at_most=k,
        action=grid([Action(int(a)).label for a in adv["action"]]),
        points=grid([int(p) for p in ev["points"]]),
        ev_stand=grid(
            [Fraction(int(n), int(d)) for n, d in zip(adv["ev_stand_num"], den, strict=True)]
        ),
        ev_draw=grid(
            [Fraction(int(n), int(d)) for n, d in zip(adv["ev_draw_num"], den, strict=True)]
        ),
        ev_optimal=Fraction(tot["ev_optimal_fraction"]),
        ev_simple=Fraction(tot["ev_simple_fraction"]),
    )


def _cell_text(chart: Chart, i: int, j: int) -> str:
    a = chart.action[i][j]
    if a == "pok":
        return f"P{chart.points[i][j]}"
    m = round(float(chart.margin(i, j)) * 100)
    return f"{a[0].upper()}{'<1' if m == 0 else m:>3}"


def chart_text(chart: Chart) -> str:
    """The chart as a terminal grid, with a legend and a summary by total."""
    head = "    " + "".join(f"{RANK_NAMES[j]:>5}" for j in range(13))
    lines = [
        f"Pok Deng drawing strategy — rules {chart.rules}, dealer draws on "
        f"{chart.dealer_draws_at_most} or less",
        "Row: one card, column: the other. Above the diagonal suited, below offsuit, on it pairs.",
        "D draw, S stand, P8/P9 Pok (no choice). Number: the EV margin in hundredths of a stake.",
        "",
        head,
    ]
    for i in range(13):
        lines.append(
            f"{RANK_NAMES[i]:>3} " + "".join(f"{_cell_text(chart, i, j):>5}" for j in range(13))
        )
    lines.append("")
    lines.extend(chart.summary())
    lines.append(
        f"overall EV per stake: optimal {float(chart.ev_optimal):+.5f}, "
        f"draw on 4 or less {float(chart.ev_simple):+.5f}"
    )
    return "\n".join(lines)


def chart_png(chart: Chart, path: str | os.PathLike[str]) -> None:
    """Draw the chart as a PNG (matplotlib, Agg canvas; imported only here)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.colors import ListedColormap
        from matplotlib.figure import Figure
    except ImportError:
        raise RulesError(
            "the PNG chart needs matplotlib: pip install 'bull-solver[plot]'"
        ) from None
    codes = {"stand": 0, "draw": 1, "pok": 2}
    grid = np.array([[codes[a] for a in row] for row in chart.action])
    fig = Figure(figsize=(9.5, 10.5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.07, 0.12, 0.9, 0.77))
    cmap = ListedColormap(["#f4c542", "#4f9de0", "#9ccf7a"])
    ax.imshow(grid, cmap=cmap, vmin=0, vmax=2)
    from matplotlib.patches import Rectangle

    for i in range(13):
        for j in range(13):
            a = chart.action[i][j]
            if a == "pok":
                label = f"Pok {chart.points[i][j]}"
            else:
                m = float(chart.margin(i, j))
                label = f"{a[0].upper()}\n{m:.2f}" if m >= 0.005 else f"{a[0].upper()}\n{m:.3f}"
            ax.text(
                j,
                i,
                label,
                ha="center",
                va="center",
                fontsize=8.5,
                linespacing=1.1,
                fontweight="bold" if a != "pok" else "normal",
            )
        ax.add_patch(
            Rectangle(
                (i - 0.47, i - 0.47),
                0.94,
                0.94,
                fill=False,
                edgecolor="#333333",
                linewidth=2.0,
                zorder=3,
            )
        )
    ticks = list(range(13))
    ax.set_xticks(ticks, [RANK_NAMES[t] for t in ticks])
    ax.set_yticks(ticks, [RANK_NAMES[t] for t in ticks])
    ax.xaxis.tick_top()
    ax.set_xticks([t - 0.5 for t in range(1, 13)], minor=True)
    ax.set_yticks([t - 0.5 for t in range(1, 13)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0, labelsize=11)
    fig.suptitle(
        f"Pok Deng drawing strategy — rules {chart.rules}, dealer draws on "
        f"{chart.dealer_draws_at_most} or less",
        fontsize=13,
        y=0.985,
    )
    fig.text(
        0.5,
        0.947,
        "your two cards: row and column · upper right: suited · "
        "lower left: offsuit · outlined diagonal: pairs",
        ha="center",
        fontsize=10,
    )
    fig.text(
        0.07,
        0.075,
        "S stand (yellow) · D draw (blue) · Pok: no choice (green). "
        "Number: EV margin of the right action, in stakes.",
        fontsize=9.5,
    )
    fig.text(
        0.07,
        0.05,
        f"Overall player EV per stake: optimal {float(chart.ev_optimal):+.4f}; "
        f"draw on 4 or less {float(chart.ev_simple):+.4f}.",
        fontsize=9.5,
    )
    fig.text(0.07, 0.025, "Heads-up, exact card removal (RULES.md §5).", fontsize=9.5)
    try:
        fig.savefig(os.fspath(path))
    except OSError as exc:
        raise ParseError(f"cannot write PNG file {os.fspath(path)}: {exc.strerror}") from None
