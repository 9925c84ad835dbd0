"""Tau Ngau (鬥牛): five tiles from the 32-tile Chinese domino set (RULES.md §4).

The modules: :mod:`~solver.games.taungau.hands` (rule model, the 3/6 analysis, the
table), :mod:`~solver.games.taungau.play` (evaluate, compare, settle), ``commands`` (the
CLI records), ``odds`` (exact odds and edge), ``simulate``, ``verify``, ``diagnose``,
``vectors`` and ``report``. :data:`GAME` is the registry entry; it imports each module
only when asked, so ``bull eval`` loads just what it uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from solver.kit.entry import GameEntry

if TYPE_CHECKING:
    import os

    import pyarrow as pa

    from solver.core.rules import RuleSpec
    from solver.games.taungau.odds import TauNgauEdge
    from solver.games.taungau.rules import TauNgauRules
    from solver.games.taungau.verify import TauNgauChecker
    from solver.kit.exact import OddsResult
    from solver.kit.markdown import ReportContext

__all__ = ["GAME", "TauNgau"]


class TauNgau(GameEntry):
    """The Tau Ngau entry of the game registry (see :class:`solver.games.Game`)."""

    name = "taungau"
    title = "Tau Ngau"
    default_rules = "macau"
    tables: tuple[str, ...] = ("taungau",)
    edge_options = ("banker_reveals",)

    def presets(self) -> list[str]:
        from solver.core.rules import preset_names
        from solver.games.taungau.rules import PRESET_DIR

        return preset_names(PRESET_DIR)

    def load_rules(self, spec: RuleSpec) -> TauNgauRules:
        from solver.games.taungau.rules import load_rules

        return load_rules(spec)

    def build_tables(self) -> dict[str, pa.Table]:
        from solver.games.taungau.hands import build_tables

        return build_tables()

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        n = table.num_rows
        has = table.column("has_bull").to_numpy()
        bull = int(has.sum())
        macau = table.column("macau_points").to_numpy()
        differ = int((has & (macau % 10 != table.column("pagat_points").to_numpy())).sum())
        return [
            f"bull in {bull:,} hands ({bull / n:.2%}); macau and pagat play "
            f"{differ:,} hands for different scores"
        ]

    def eval_records(
        self,
        hands: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> list[dict[str, Any]]:
        from solver.games.taungau.commands import cli_eval

        return cli_eval(list(hands), rules, dict(options), tables)

    def eval_text(self, rec: dict[str, Any]) -> str:
        from solver.games.taungau.commands import cli_eval_text

        return cli_eval_text(rec)

    def compare_record(
        self,
        player: str,
        banker: str,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        from solver.games.taungau.commands import cli_compare

        return cli_compare(player, banker, rules, dict(options), tables)

    def compare_text(self, rec: dict[str, Any]) -> str:
        from solver.games.taungau.commands import cli_compare_text

        return cli_compare_text(rec)

    def odds(self, rules: str | None, tables: str | None) -> OddsResult:
        from solver.games.taungau.odds import odds

        return odds(rules, tables)

    def edge(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> TauNgauEdge:
        from solver.games.taungau.odds import taungau_edge
        from solver.kit.exact import check_options

        check_options(self.name, options, self.edge_options)
        return taungau_edge(rules, options.get("banker_reveals"), tables)

    def checker(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> TauNgauChecker:
        from solver.games.taungau.verify import TauNgauChecker

        return TauNgauChecker(rules, options, tables)

    def vectors(
        self,
        rules: str | None,
        seed: int,
        sample: int,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        from solver.games.taungau.vectors import taungau_vectors

        return taungau_vectors(rules, seed, sample, options.get("banker_reveals"), tables)

    def report_section(self, ctx: ReportContext) -> None:
        from solver.games.taungau.report import section

        section(ctx)

    def headline(self, tables: str | os.PathLike[str] | None) -> tuple[list[str], str]:
        from solver.games.taungau.report import headline

        return headline(tables)


GAME = TauNgau()
"""The registry entry."""
