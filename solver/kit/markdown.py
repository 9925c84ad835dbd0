"""What every game's part of ``bull report`` shares: Markdown tables, number formats,
the rule-set block, a matplotlib figure on the Agg canvas, and :class:`ReportContext`,
the page a game writes its section into (text, images and Monte Carlo checks).

>>> md_table(["a", "b"], [[1, 2]])
['| a | b |', '| --- | --- |', '| 1 | 2 |']
>>> ev_text(Fraction(-1, 40))
'-0.025000'
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from solver.kit.exact import OddsResult, fraction_text, percent

__all__ = [
    "ReportContext",
    "SimulatedMean",
    "ev_text",
    "figure",
    "md_table",
    "odds_rows",
    "rules_block",
]


def ev_text(f: Fraction) -> str:
    """An EV per stake, signed, six decimals."""
    return f"{float(f):+.6f}"


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown table, one line per row."""
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def rules_block(title: str, data: dict[str, Any]) -> list[str]:
    """A folded block with a rule set's full content."""
    return [
        f"<details><summary>Rule set <code>{title}</code> (full content)</summary>",
        "",
        "```json",
        json.dumps(data, indent=2, sort_keys=True, default=str),
        "```",
        "",
        "</details>",
        "",
    ]


def odds_rows(res: OddsResult, section: str) -> list[list[Any]]:
    """The rows (label, count, probability, exact) of one section of an odds result."""
    total = res.totals[section]
    return [
        [
            lb.replace("_", " "),
            f"{n:,}",
            percent(Fraction(n, total)),
            fraction_text(Fraction(n, total)),
        ]
        for lb, n in res.sections[section]
    ]


def figure(width: float, height: float) -> Any:
    """A matplotlib figure on the Agg canvas (matplotlib imported only here)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


class SimulatedMean(Protocol):
    """A Monte Carlo estimate with its interval (``solver.kit.simulation.SimResult``)."""

    @property
    def mean(self) -> float: ...
    @property
    def ci_low(self) -> float: ...
    @property
    def ci_high(self) -> float: ...
    def contains(self, value: float) -> bool: ...


@dataclass
class ReportContext:
    """The report being written: each game appends its Markdown lines to ``md``, the
    PNGs it drew to ``images`` (only when ``plots``), and a row per Monte Carlo check
    (:meth:`check`) for the closing table."""

    folder: Path
    tables: str | os.PathLike[str] | None
    plots: bool
    simulate_rounds: int
    shoe_decks: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
    """The shoe sizes the games' "one deck to a shoe" tables compare."""
    sim_tables: int | None = None
    """Tables simulated per rule set for the risk sections (None: each game's default)."""
    md: list[str] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)
    sims: list[list[Any]] = field(default_factory=list)
    say: Callable[[str], Any] | None = None
    """Where progress goes (the report's status line), if anywhere."""
    players: int | None = None
    """The risk sections' largest table (None: each game's full table)."""

    def progress(self, text: str) -> None:
        """Report progress (a no-op without ``say``)."""
        if self.say is not None:
            self.say(text)

    def check(self, label: str, exact: Fraction, result: SimulatedMean) -> None:
        """Record that the simulation ``result`` cross-checks the exact EV ``exact``."""
        self.sims.append(
            [
                label,
                ev_text(exact),
                f"{result.mean:+.4f}",
                f"[{result.ci_low:+.4f}, {result.ci_high:+.4f}]",
                "yes" if result.contains(float(exact)) else "**NO**",
            ]
        )

    def image(self, name: str) -> Path:
        """The path of a new PNG ``name`` in the report folder (recorded in ``images``)."""
        path = self.folder / name
        self.images.append(path)
        return path
