"""Niu Niu (牛牛): five cards from one 52-card deck (RULES.md §3).

The modules: :mod:`~solver.games.niuniu.hands` (rule model, vectorised evaluation, the
table), :mod:`~solver.games.niuniu.play` (evaluate, compare, settle), ``commands`` (the
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
    from solver.games.niuniu.odds import EdgeResult
    from solver.games.niuniu.rules import NiuNiuRules
    from solver.games.niuniu.verify import NiuNiuChecker
    from solver.kit.exact import OddsResult
    from solver.kit.markdown import ReportContext

__all__ = ["GAME", "NiuNiu"]


class NiuNiu(GameEntry):
    """The Niu Niu entry of the game registry (see :class:`solver.games.Game`)."""

    name = "niuniu"
    title = "Niu Niu"
    default_rules = "classic"
    tables: tuple[str, ...] = ("niuniu", "niuniu_no_faces")
    """The presets' tables: one per deck (and bull rule) the presets use."""
    edge_options = ("bet", "commission")
    options = frozenset({"bet", "commission"})

    def presets(self) -> list[str]:
        from solver.core.rules import preset_names
        from solver.games.niuniu.rules import PRESET_DIR

        return preset_names(PRESET_DIR)

    def load_rules(self, spec: RuleSpec) -> NiuNiuRules:
        from solver.games.niuniu.rules import load_rules

        return load_rules(spec)

    def build_tables(self) -> dict[str, pa.Table]:
        from solver.games.niuniu.hands import build_tables

        return build_tables()

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        import numpy as np

        n = table.num_rows
        pts = np.bincount(table.column("points").to_numpy(), minlength=11)
        line = f"bull in {n - pts[0]:,} hands ({(n - pts[0]) / n:.2%}); Niu Niu {pts[10]:,}"
        if name == "niuniu":
            line += f"; five faces {int(table.column('five_faces').to_numpy().sum()):,}"
        else:
            line += f"; four of a kind {int(table.column('four_of_a_kind').to_numpy().sum()):,}"
        return [line]

    def eval_records(
        self,
        hands: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> list[dict[str, Any]]:
        from solver.games.niuniu.commands import cli_eval

        return cli_eval(list(hands), rules, dict(options), tables)

    def eval_text(self, rec: dict[str, Any]) -> str:
        from solver.games.niuniu.commands import cli_eval_text

        return cli_eval_text(rec)

    def compare_record(
        self,
        player: str,
        banker: str,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        from solver.games.niuniu.commands import cli_compare

        return cli_compare(player, banker, rules, dict(options), tables)

    def compare_text(self, rec: dict[str, Any]) -> str:
        from solver.games.niuniu.commands import cli_compare_text

        return cli_compare_text(rec)

    def odds(self, rules: str | None, tables: str | None) -> OddsResult:
        from solver.games.niuniu.odds import odds

        return odds(rules, tables)

    def edge(self, rules: str | None, options: Mapping[str, Any], tables: str | None) -> EdgeResult:
        from solver.games.niuniu.odds import niuniu_edge
        from solver.kit.exact import check_options

        check_options(self.name, options, self.edge_options)
        return niuniu_edge(rules, options.get("bet"), options.get("commission"), tables)

    def checker(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> NiuNiuChecker:
        from solver.games.niuniu.verify import NiuNiuChecker

        return NiuNiuChecker(rules, options, tables)

    def vectors(
        self,
        rules: str | None,
        seed: int,
        sample: int,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        from solver.games.niuniu.vectors import niuniu_vectors

        return niuniu_vectors(rules, seed, sample)

    def report_section(self, ctx: ReportContext) -> None:
        from solver.games.niuniu.report import section

        section(ctx)

    def headline(self, tables: str | os.PathLike[str] | None) -> tuple[list[str], str]:
        from solver.games.niuniu.report import headline

        return headline(tables)


GAME = NiuNiu()
"""The registry entry."""
