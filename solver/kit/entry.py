"""A base for a game's registry entry: the plumbing every game shares.

A game's ``GAME`` object (``solver/games/<game>/__init__.py``) subclasses
:class:`GameEntry`, names its package, and overrides only what is its own (its edge
options, its table headlines). Every other member of :class:`solver.games.Game` is
answered here from the game's rooms by their fixed names — ``rules.load_rules``,
``commands.cli_eval``, ``eval_lines.eval_lines``, ``odds.odds``, ``verify.CHECKER``,
``report.section`` … — each
module imported only when asked, so ``bull eval`` loads just what it uses. The optional
commands (``advise``, ``strategy``) answer only when the game lists them in
``commands``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from solver.core.errors import BullError

if TYPE_CHECKING:
    import os

    import numpy.typing as npt
    import pyarrow as pa

    from solver.core.rules import RuleSet, RuleSpec
    from solver.kit.banker import BankerRisk
    from solver.kit.check import Checker
    from solver.kit.exact import OddsResult
    from solver.kit.markdown import ReportContext
    from solver.kit.notation import Spans

__all__ = ["OPTIONAL_COMMANDS", "GameEntry"]

OPTIONAL_COMMANDS = ("advise", "strategy", "grab")
"""Commands only some games have."""


class GameEntry:
    """The shared part of a registry entry (see the module docstring)."""

    name: str = ""
    package: str = ""
    """The game's package, e.g. ``"solver.games.niuniu"``."""
    commands: frozenset[str] = frozenset()
    """Which of :data:`OPTIONAL_COMMANDS` this game provides."""
    builder: str = "hands"
    """The room whose ``build_tables()`` builds the game's tables."""
    options: frozenset[str] = frozenset()
    """The command options this game takes (``bet``, ``banker_reveals`` ...)."""
    learns: bool = False
    """Whether the game's room ``induce`` learns its rule language (``--infer``)."""

    def accept(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options given (not ``None``), or an error naming one this game does not
        take.

        >>> GameEntry().accept({"bet": None})
        {}
        """
        given = {k: v for k, v in options.items() if v is not None}
        for key in given:
            if key not in self.options:
                flag = "--" + key.replace("_", "-")
                raise BullError(f"option {flag} does not apply to {self.name}")
        return given

    def room(self, name: str) -> ModuleType:
        """The game's module ``name`` (imported on first use)."""
        return importlib.import_module(f"{self.package}.{name}")

    def _refuse(self, command: str) -> BullError:
        return BullError(f"`bull {command}` does not apply to {self.name}")

    def learn_language(
        self,
        path: str,
        data: Mapping[str, Any],
        *,
        fmt: str,
        columns: Mapping[str, str],
        batch_size: int,
        options: Mapping[str, Any],
    ) -> Any:
        """The game's language lesson from a claims file (``None`` if it has none)."""
        if not self.learns:
            return None
        return self.room("induce").learn(
            path, data, fmt=fmt, columns=columns, batch_size=batch_size, options=options
        )

    # -- rules and tables
    def presets(self) -> list[str]:
        from solver.core.rules import preset_names

        return preset_names(self.room("rules").PRESET_DIR)

    def load_rules(self, spec: RuleSpec) -> RuleSet:
        return cast("RuleSet", self.room("rules").load_rules(spec))

    def build_tables(self) -> dict[str, pa.Table]:
        return cast("dict[str, pa.Table]", self.room(self.builder).build_tables())

    # -- commands
    def eval_records(
        self,
        hands: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> list[dict[str, Any]]:
        records = self.room("commands").cli_eval(list(hands), rules, dict(options), tables)
        return cast("list[dict[str, Any]]", records)

    def eval_text(self, rec: dict[str, Any]) -> str:
        return cast(str, self.room("commands").cli_eval_text(rec))

    def eval_lines(
        self,
        spans: Spans,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
        as_json: bool,
    ) -> pa.Array | None:
        """A block of hands answered at once (``bull eval --input``): each hand's text
        or JSON line with its line end, null for a hand to answer alone; ``None`` when
        the game answers no block of these rules at once."""
        lines = self.room("eval_lines").eval_lines(spans, rules, dict(options), tables, as_json)
        return cast("pa.Array | None", lines)

    def eval_ids(
        self,
        ids: npt.ArrayLike,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
        as_json: bool,
    ) -> pa.Array | None:
        """Hands given as ids (an (n, k) array: card ids, or Tau Ngau's tile ids, any
        order in a row) answered at once, without parsing text: each one's ``eval_text``
        or JSON line with its line end, as an Arrow string array, null for a row that is
        no hand of the deck (the caller reports it); ``None`` when the game answers no
        batch of these rules at once (a Niu Niu shoe). ``solver.kit.textcols.line_bytes``
        gives the JSON Lines as bytes, ``solver.kit.textcols.json_array`` one JSON
        array (``json.dumps`` of the list of records)."""
        lines = self.room("eval_lines").eval_ids(ids, rules, dict(options), tables, as_json)
        return cast("pa.Array | None", lines)

    def compare_record(
        self,
        player: str,
        banker: str,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        rec = self.room("commands").cli_compare(player, banker, rules, dict(options), tables)
        return cast("dict[str, Any]", rec)

    def compare_text(self, rec: dict[str, Any]) -> str:
        return cast(str, self.room("commands").cli_compare_text(rec))

    def advise_record(
        self, hand: str, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> dict[str, Any]:
        if "advise" not in self.commands:
            raise self._refuse("advise")
        rec = self.room("commands").cli_advise(hand, rules, dict(options), tables)
        return cast("dict[str, Any]", rec)

    def advise_text(self, rec: dict[str, Any]) -> str:
        if "advise" not in self.commands:
            raise self._refuse("advise")
        return cast(str, self.room("commands").cli_advise_text(rec))

    def strategy_record(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None, png: str | None
    ) -> dict[str, Any]:
        if "strategy" not in self.commands:
            raise self._refuse("strategy")
        rec = self.room("commands").cli_strategy(rules, dict(options), tables, png=png)
        return cast("dict[str, Any]", rec)

    def strategy_text(self, rec: dict[str, Any]) -> str:
        if "strategy" not in self.commands:
            raise self._refuse("strategy")
        return cast(str, self.room("commands").cli_strategy_text(rec))

    # -- exact figures, verify, report
    def odds(self, rules: str | None, tables: str | None) -> OddsResult:
        return cast("OddsResult", self.room("odds").odds(rules, tables))

    def checker(self, rules: str | None, options: Mapping[str, Any], tables: str | None) -> Checker:
        return cast("Checker", self.room("verify").CHECKER(rules, options, tables))

    def report_section(self, ctx: ReportContext) -> None:
        self.room("report").section(ctx)

    def headline(self, tables: str | os.PathLike[str] | None) -> tuple[list[str], str]:
        return cast("tuple[list[str], str]", self.room("report").headline(tables))

    def risk_headline(self, tables: str | os.PathLike[str] | None) -> list[str]:
        make = getattr(self.room("report"), "risk_headline", None)
        return [] if make is None else cast("list[str]", make(tables))

    # -- the banker at a full table (``bull risk``; the room ``risk``)
    def risk(
        self,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
        players: int,
        rounds: int,
        reserve: Fraction | None = None,
        progress: Callable[[int, int], Any] | None = None,
        sim_tables: int | None = None,
    ) -> BankerRisk:
        res = self.room("risk").table_risk(
            rules, dict(options), tables, players, rounds, reserve, progress, sim_tables
        )
        return cast("BankerRisk", res)

    # -- audit (``bull audit``, ``bull deal``)
    def hand_space(self, rules: str | None) -> dict[str, Any]:
        """What the game deals under ``rules`` (kind, sizes, deck, units, their names
        and copies): the part of :meth:`audit_spec` that reads no table or figure."""
        return cast("dict[str, Any]", self.room("audit").hand_space(rules))

    def audit_spec(
        self,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
        arrays: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        spec = self.room("audit").audit_spec(rules, dict(options), tables, arrays)
        return cast("dict[str, Any]", spec)

    # -- whole tables (``bull rank``, ``bull round``; the room ``table``)
    def rank_record(
        self,
        hands: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        rec = self.room("table").cli_rank(list(hands), rules, dict(options), tables)
        return cast("dict[str, Any]", rec)

    def rank_text(self, rec: dict[str, Any]) -> str:
        return cast(str, self.room("table").cli_rank_text(rec))

    def round_record(
        self,
        banker: str,
        players: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        rec = self.room("table").cli_round(banker, list(players), rules, dict(options), tables)
        return cast("dict[str, Any]", rec)

    def round_records(
        self,
        rounds: Sequence[Sequence[str]],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> list[dict[str, Any]]:
        recs = self.room("table").round_records(rounds, rules, dict(options), tables)
        return cast("list[dict[str, Any]]", recs)

    def round_lines(
        self,
        rounds: Sequence[Sequence[str]],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
        text: bool = False,
    ) -> list[str]:
        lines = self.room("table").round_lines(rounds, rules, dict(options), tables, text)
        return cast("list[str]", lines)

    def round_text(self, rec: dict[str, Any]) -> str:
        return cast(str, self.room("table").cli_round_text(rec))

    # -- grab the banker (``bull grab``; Niu Niu's room ``grab``)
    def grab_record(
        self, hand: str, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> dict[str, Any]:
        if "grab" not in self.commands:
            raise self._refuse("grab")
        return cast(
            "dict[str, Any]", self.room("grab").cli_grab(hand, rules, dict(options), tables)
        )

    def grab_text(self, rec: dict[str, Any]) -> str:
        if "grab" not in self.commands:
            raise self._refuse("grab")
        return cast(str, self.room("grab").cli_grab_text(rec))

    # -- the trainer (``bull drill``; the room ``table``)
    def drill_deck(self, rules: str | None, tables: str | None) -> Any:
        return self.room("table").drill_deck(rules, tables)
