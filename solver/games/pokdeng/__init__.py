"""Pok Deng (ป๊อกเด้ง): two or three cards from one 52-card deck (RULES.md §5).

The rooms: ``rules`` (rule model and presets), ``hands`` (classification and
settlement), ``strategy`` (the exact drawing strategy and the tables), ``rulefile``
(a rule file's own strategy tables), ``chart`` (the strategy chart), ``play``
(evaluate, compare, settle, advise), ``commands`` (the CLI records), ``odds`` (exact
odds and edge), ``shoe`` (the exact strategy from a shoe of N decks, ``decks`` in a rule
file; preset ``shoe8``), ``simulate``, ``verify``, ``diagnose``, ``induce`` (the types
``--infer`` learns), ``vectors`` and ``report``.
:data:`GAME` is the registry entry; the shared plumbing of
:class:`~solver.kit.entry.GameEntry` imports each room only when asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from solver.kit.entry import GameEntry

if TYPE_CHECKING:
    import pyarrow as pa

    from solver.games.pokdeng.odds import PokDengEdge

__all__ = ["GAME", "PokDeng"]


class PokDeng(GameEntry):
    """The Pok Deng entry of the game registry (see :class:`solver.games.Game`)."""

    name = "pokdeng"
    title = "Pok Deng"
    package = "solver.games.pokdeng"
    builder = "strategy"
    default_rules = "standard"
    tables: tuple[str, ...] = ("pokdeng", "pokdeng_strategy")
    commands = frozenset({"advise", "strategy"})
    options = frozenset(
        {"dealer_draws_at_most", "dealer", "must_draw_at_most", "player_strategy", "dealer_sees"}
    )
    learns = True

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        import json

        from solver.store.tables import to_numpy

        if name == "pokdeng":
            two = to_numpy(table.column("size")) == 2
            pok = int((two & (to_numpy(table.column("points")) >= 8)).sum())
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

    def edge(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> PokDengEdge:
        from solver.games.pokdeng.risk import edge

        return edge(rules, options.get("dealer_draws_at_most"), tables)

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


GAME = PokDeng()
"""The registry entry."""
