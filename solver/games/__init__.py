"""The game registry: what a game provides (:class:`Game`) and one entry per game.

The faces — the CLI, the build, the report, the verify and vectors commands — know no
game: they ask this registry for one by name and use only what :class:`Game` says.
Everything that knows a game's rules lives in its package ``solver/games/<game>/``,
which exports one object ``GAME`` satisfying :class:`Game`. Adding a game is a new
package plus one line in :data:`_ENTRIES` (see the README, "Adding a game").

>>> names()
('niuniu', 'taungau', 'pokdeng')
>>> get("taungau").title
'Tau Ngau'
>>> get("poker")
Traceback (most recent call last):
...
solver.core.errors.BullError: unknown game 'poker' (expected one of: niuniu, taungau, pokdeng)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from solver.core.errors import BullError
from solver.core.rules import RuleSet, RuleSpec
from solver.games.niuniu import GAME as _NIUNIU
from solver.games.pokdeng import GAME as _POKDENG
from solver.games.taungau import GAME as _TAUNGAU
from solver.store.tables import set_autobuilder

if TYPE_CHECKING:
    import os

    import numpy.typing as npt
    import pyarrow as pa

    from solver.kit.banker import BankerRisk
    from solver.kit.check import Checker
    from solver.kit.exact import OddsResult
    from solver.kit.markdown import ReportContext
    from solver.kit.notation import Spans

__all__ = ["OPTION_KEYS", "ExactEdge", "Game", "Options", "get", "names"]

OPTION_KEYS = (
    "bet",
    "commission",
    "banker_reveals",
    "dealer_draws_at_most",
    "dealer",
    "must_draw_at_most",
    "player_strategy",
    "dealer_sees",
)
"""The command options that belong to one game or another (see ``Game.options``)."""

Options = Mapping[str, Any]
"""Command options a game may take, by name: ``bet``, ``commission``, ``banker_reveals``,
``dealer_draws_at_most``; ``None`` values mean "not given"."""


class ExactEdge(Protocol):
    """An exact edge result (``bull edge``): JSON and text."""

    def to_json(self) -> dict[str, Any]:
        """The ``bull edge --json`` object."""
        ...

    def text(self) -> str:
        """The plain-text summary."""
        ...


class Game(Protocol):
    """Everything a face may ask of a game.

    Records are the JSON objects of a command's ``--json`` output; the matching
    ``*_text`` method prints one as text. A game that has no such command (only Pok
    Deng advises and draws a strategy chart) raises :class:`BullError` naming it.
    """

    name: str
    """The registry key and CLI spelling, e.g. ``"niuniu"``."""
    title: str
    """The name people read, e.g. ``"Niu Niu"``."""
    default_rules: str
    """The preset used when no ``--rules`` is given (RULES.md §8)."""
    tables: tuple[str, ...]
    """The tables :meth:`build_tables` returns."""
    commands: frozenset[str]
    """Which optional commands (``advise``, ``strategy``) the game has."""
    options: frozenset[str]
    """The command options the game takes: ``bet``, ``commission`` (Niu Niu),
    ``banker_reveals`` (Tau Ngau), ``dealer_draws_at_most`` (Pok Deng)."""

    def accept(self, options: Options) -> dict[str, Any]:
        """The options given, or an error naming one the game does not take."""
        ...

    def presets(self) -> list[str]:
        """The names of the presets shipped with the game."""
        ...

    def load_rules(self, spec: RuleSpec) -> RuleSet:
        """The game's own rule set for a preset name, rule file or dict."""
        ...

    # -- tables
    def build_tables(self) -> dict[str, pa.Table]:
        """Enumerate every hand and return the game's tables (with provenance)."""
        ...

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        """A few facts about a built table for the build summary."""
        ...

    # -- commands
    def eval_records(
        self, hands: Sequence[str], rules: str | None, options: Options, tables: str | None
    ) -> list[dict[str, Any]]: ...

    def eval_text(self, rec: dict[str, Any]) -> str: ...

    def eval_lines(
        self,
        spans: Spans,
        rules: str | None,
        options: Options,
        tables: str | None,
        as_json: bool,
    ) -> pa.Array | None:
        """A block of hands at once: each one's ``eval_text`` or JSON line (with its
        line end), null where a hand is to be answered alone (``None``: none here)."""
        ...

    def eval_ids(
        self,
        ids: npt.ArrayLike,
        rules: str | None,
        options: Options,
        tables: str | None,
        as_json: bool,
    ) -> pa.Array | None:
        """:meth:`eval_lines` of hands given as ids (an (n, k) array), no text parsed."""
        ...

    def compare_record(
        self, player: str, banker: str, rules: str | None, options: Options, tables: str | None
    ) -> dict[str, Any]: ...

    def compare_text(self, rec: dict[str, Any]) -> str: ...

    def advise_record(
        self, hand: str, rules: str | None, options: Options, tables: str | None
    ) -> dict[str, Any]: ...

    def advise_text(self, rec: dict[str, Any]) -> str: ...

    def strategy_record(
        self, rules: str | None, options: Options, tables: str | None, png: str | None
    ) -> dict[str, Any]: ...

    def strategy_text(self, rec: dict[str, Any]) -> str: ...

    # -- exact figures
    def odds(self, rules: str | None, tables: str | None) -> OddsResult:
        """Exact count of every category/score/type under ``rules``."""
        ...

    def edge(self, rules: str | None, options: Options, tables: str | None) -> ExactEdge:
        """The player's exact EV against the banker/dealer."""
        ...

    # -- verify and vectors
    def checker(self, rules: str | None, options: Options, tables: str | None) -> Checker:
        """The checker ``bull verify`` streams claims through."""
        ...

    def learn_language(
        self,
        path: str,
        data: Mapping[str, Any],
        *,
        fmt: str,
        columns: Mapping[str, str],
        batch_size: int,
        options: Options,
    ) -> Any:
        """``bull verify --infer``'s language stage: what a claims file teaches of the
        game's rule language beyond ``data`` (a lesson with ``data`` and scored ``items``),
        or ``None`` for a game without one."""
        ...

    def vectors(
        self, rules: str | None, seed: int, sample: int, options: Options, tables: str | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Conformance vectors and their coverage summary."""
        ...

    # -- research report
    def report_section(self, ctx: ReportContext) -> None:
        """Append the game's section (text, plots, Monte Carlo checks) to the report."""
        ...

    def headline(self, tables: str | os.PathLike[str] | None) -> tuple[list[str], str]:
        """The README headline rows and a note on what they average over."""
        ...

    def risk_headline(self, tables: str | os.PathLike[str] | None) -> list[str]:
        """The README's risk rows (SD and the banker's reserve), if the game has any."""
        ...

    # -- the banker at a full table
    def risk(
        self,
        rules: str | None,
        options: Options,
        tables: str | None,
        players: int,
        rounds: int,
        reserve: Fraction | None = None,
        progress: Callable[[int, int], Any] | None = None,
        sim_tables: int | None = None,
    ) -> BankerRisk:
        """``bull risk``: the banker's net at a table of ``players`` (mean, covariance,
        variance, distribution, reserve, bands after ``rounds``, ruin from ``reserve``);
        ``sim_tables`` tables simulated for the figures at more than one player (default:
        the game's)."""
        ...

    # -- audit
    def hand_space(self, rules: str | None) -> dict[str, Any]:
        """What the game deals under ``rules``: ``kind``, ``hand_size``, ``sizes``,
        ``deck``, ``unit``, ``unit_names``, ``copies`` (the keys of :meth:`audit_spec`
        that need no table or figure; ``bull probe`` asks its questions from them)."""
        ...

    def audit_spec(
        self,
        rules: str | None,
        options: Options,
        tables: str | None,
        arrays: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """What ``bull audit`` and ``bull deal`` need: the dealt hand, the deck, exact
        category and outcome probabilities, vectorised category/strength/settle
        (``solver.games.<game>.audit``); ``arrays``: lookup tables broadcast in."""
        ...

    # -- whole tables (``solver.games.<game>.table``)
    def rank_record(
        self, hands: Sequence[str], rules: str | None, options: Options, tables: str | None
    ) -> dict[str, Any]:
        """``bull rank``: ``order`` (input positions, strongest first) and ``hands``."""
        ...

    def rank_text(self, rec: dict[str, Any]) -> str: ...

    def round_record(
        self,
        banker: str,
        players: Sequence[str],
        rules: str | None,
        options: Options,
        tables: str | None,
    ) -> dict[str, Any]:
        """``bull round``: ``player_results`` (input order, each with its ``net``), ``banker_net``
        (Pok Deng: ``dealer``, ``dealer_net``)."""
        ...

    def round_records(
        self,
        rounds: Sequence[Sequence[str]],
        rules: str | None,
        options: Options,
        tables: str | None,
    ) -> list[dict[str, Any]]:
        """Many rounds (banker's hand first), vectorised: ``bull round --input``."""
        ...

    def round_lines(
        self,
        rounds: Sequence[Sequence[str]],
        rules: str | None,
        options: Options,
        tables: str | None,
        text: bool = False,
    ) -> list[str]:
        """The JSON lines of :meth:`round_records` (``text``: :meth:`round_text` of
        each), rendered fast."""
        ...

    def round_text(self, rec: dict[str, Any]) -> str: ...

    def grab_record(
        self, hand: str, rules: str | None, options: Options, tables: str | None
    ) -> dict[str, Any]:
        """``bull grab``: four visible cards' grab-the-banker odds and bid (Niu Niu)."""
        ...

    def grab_text(self, rec: dict[str, Any]) -> str: ...

    def drill_deck(self, rules: str | None, tables: str | None) -> Any:
        """What ``bull drill`` deals (a :class:`solver.kit.drill.DrillDeck`)."""
        ...


_ENTRIES: dict[str, Game] = {
    "niuniu": _NIUNIU,
    "taungau": _TAUNGAU,
    "pokdeng": _POKDENG,
}
"""One line per game, in the order the faces list them."""


def names() -> tuple[str, ...]:
    """The registered games, in order."""
    return tuple(_ENTRIES)


def get(name: str) -> Game:
    """The game registered as ``name``."""
    try:
        return _ENTRIES[name]
    except KeyError:
        raise BullError(f"unknown game {name!r} (expected one of: {', '.join(_ENTRIES)})") from None


def _build_every_table(target: os.PathLike[str]) -> None:
    """Build every game's tables into ``target`` (the store's autobuild, on first use
    of an install without tables)."""
    from solver.store.build import build_set

    build_set({g.name: g.build_tables for g in _ENTRIES.values()}, target)


set_autobuilder(_build_every_table)
