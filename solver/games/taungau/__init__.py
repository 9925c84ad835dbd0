"""Tau Ngau (鬥牛): five tiles from the 32-tile Chinese domino set (RULES.md §4).

The rooms: ``rules`` (rule model and presets), ``language`` (its categories as data),
``hands`` (the 3/6 analysis and the
table), ``play`` (evaluate, compare, settle), ``commands`` (the CLI records), ``odds``
(exact odds and edge), ``simulate``, ``verify``, ``diagnose``, ``vectors`` and
``report``. :data:`GAME` is the registry entry; the shared plumbing of
:class:`~solver.kit.entry.GameEntry` imports each room only when asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from solver.kit.entry import GameEntry

if TYPE_CHECKING:
    import pyarrow as pa

    from solver.games.taungau.odds import TauNgauEdge

__all__ = ["GAME", "TauNgau"]


class TauNgau(GameEntry):
    """The Tau Ngau entry of the game registry (see :class:`solver.games.Game`)."""

    name = "taungau"
    title = "Tau Ngau"
    package = "solver.games.taungau"
    default_rules = "macau"
    tables: tuple[str, ...] = ("taungau",)
    options = frozenset({"banker_reveals"})

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        from solver.store.tables import to_numpy

        n = table.num_rows
        has = to_numpy(table.column("has_bull"))
        bull = int(has.sum())
        macau = to_numpy(table.column("macau_points"))
        differ = int((has & (macau % 10 != to_numpy(table.column("pagat_points")))).sum())
        return [
            f"bull in {bull:,} hands ({bull / n:.2%}); macau and pagat play "
            f"{differ:,} hands for different scores"
        ]

    def edge(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> TauNgauEdge:
        from solver.games.taungau.risk import edge

        return edge(rules, options.get("banker_reveals"), tables)

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


GAME = TauNgau()
"""The registry entry."""
