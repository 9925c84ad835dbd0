"""Pok Deng (ป๊อกเด้ง): two or three cards from one 52-card deck (RULES.md §5).

The modules: :mod:`~solver.games.pokdeng.hands` (rule model, classification,
settlement), ``strategy`` (the exact drawing strategy and the tables), ``rulefile``
(the strategy table of a user's rule file, built on first use and cached), ``chart``
(the strategy chart), :mod:`~solver.games.pokdeng.play` (evaluate, compare, settle, advise),
``commands`` (the CLI records), ``odds`` (exact odds and edge), ``simulate``,
``verify``, ``diagnose``, ``vectors`` and ``report``. :data:`GAME` is the registry
entry; it imports each module only when asked, so ``bull eval`` loads just what it uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from solver.kit.entry import GameEntry

if TYPE_CHECKING:
    import os

    import pyarrow as pa

    from solver.core.rules import RuleSpec
    from solver.games.pokdeng.odds import PokDengEdge
    from solver.games.pokdeng.rules import PokDengRules
    from solver.games.pokdeng.verify import PokDengChecker
    from solver.kit.exact import OddsResult
    from solver.kit.markdown import ReportContext

__all__ = ["GAME", "PokDeng"]


class PokDeng(GameEntry):
    """The Pok Deng entry of the game registry (see :class:`solver.games.Game`)."""

    name = "pokdeng"
    title = "Pok Deng"
    default_rules = "standard"
    tables: tuple[str, ...] = ("pokdeng", "pokdeng_strategy")
    commands = frozenset({"advise", "strategy"})
    edge_options = ("dealer_draws_at_most",)

    def presets(self) -> list[str]:
        from solver.core.rules import preset_names
        from solver.games.pokdeng.rules import PRESET_DIR

        return preset_names(PRESET_DIR)

    def load_rules(self, spec: RuleSpec) -> PokDengRules:
        from solver.games.pokdeng.rules import load_rules

        return load_rules(spec)

    def build_tables(self) -> dict[str, pa.Table]:
        from solver.games.pokdeng.strategy import build_tables

        return build_tables()

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        import json

        if name == "pokdeng":
            two = table.column("size").to_numpy() == 2
            pok = int((two & (table.column("points").to_numpy() >= 8)).sum())
            return [
                f"{int(two.sum()):,} two-card and {int((~two).sum()):,} three-card hands; "
                f"Pok in {pok:,} two-card hands"
            ]
        meta = table.schema.metadata or {}
        extra = json.loads(meta.get(b"bull.extra", b"{}"))
        ev = extra.get("overall_ev", {}).get("standard", {}).get("4")
        if not ev:
            return []
        return [
            f"standard, dealer draws on 4 or less: player EV {ev['ev_optimal']:+.5f} "
            f"drawing optimally, {ev['ev_simple']:+.5f} drawing on 4 or less"
        ]

    def eval_records(
        self,
        hands: Sequence[str],
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> list[dict[str, Any]]:
        from solver.games.pokdeng.commands import cli_eval

        return cli_eval(list(hands), rules, dict(options), tables)

    def eval_text(self, rec: dict[str, Any]) -> str:
        from solver.games.pokdeng.commands import cli_eval_text

        return cli_eval_text(rec)

    def compare_record(
        self,
        player: str,
        banker: str,
        rules: str | None,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> dict[str, Any]:
        from solver.games.pokdeng.commands import cli_compare

        return cli_compare(player, banker, rules, dict(options), tables)

    def compare_text(self, rec: dict[str, Any]) -> str:
        from solver.games.pokdeng.commands import cli_compare_text

        return cli_compare_text(rec)

    def advise_record(
        self, hand: str, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> dict[str, Any]:
        from solver.games.pokdeng.commands import cli_advise

        return cli_advise(hand, rules, dict(options), tables)

    def advise_text(self, rec: dict[str, Any]) -> str:
        from solver.games.pokdeng.commands import cli_advise_text

        return cli_advise_text(rec)

    def strategy_record(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None, png: str | None
    ) -> dict[str, Any]:
        from solver.games.pokdeng.commands import cli_strategy

        return cli_strategy(rules, dict(options), tables, png=png)

    def strategy_text(self, rec: dict[str, Any]) -> str:
        from solver.games.pokdeng.commands import cli_strategy_text

        return cli_strategy_text(rec)

    def odds(self, rules: str | None, tables: str | None) -> OddsResult:
        from solver.games.pokdeng.odds import odds

        return odds(rules, tables)

    def edge(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> PokDengEdge:
        from solver.games.pokdeng.odds import pokdeng_edge
        from solver.kit.exact import check_options

        check_options(self.name, options, self.edge_options)
        return pokdeng_edge(rules, options.get("dealer_draws_at_most"), tables)

    def checker(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> PokDengChecker:
        from solver.games.pokdeng.verify import PokDengChecker

        return PokDengChecker(rules, options, tables)

    def vectors(
        self,
        rules: str | None,
        seed: int,
        sample: int,
        options: Mapping[str, Any],
        tables: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        from solver.games.pokdeng.vectors import pokdeng_vectors

        return pokdeng_vectors(rules, seed, sample)

    def report_section(self, ctx: ReportContext) -> None:
        from solver.games.pokdeng.report import section

        section(ctx)

    def headline(self, tables: str | os.PathLike[str] | None) -> tuple[list[str], str]:
        from solver.games.pokdeng.report import headline

        return headline(tables)


GAME = PokDeng()
"""The registry entry."""
