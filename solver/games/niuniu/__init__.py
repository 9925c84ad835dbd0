"""Niu Niu (牛牛): five cards from one 52-card deck, or the 40-card deck (RULES.md §3).

The rooms: ``rules`` (rule model and presets), ``hands`` (vectorised evaluation and the
tables), ``source`` (which table answers a rule set), ``play`` (evaluate, compare,
settle), ``commands`` (the CLI records), ``odds`` (exact odds and edge), ``simulate``,
``verify`` and ``explain`` (its reasons), ``diagnose``, ``vectors`` and ``report``.
:data:`GAME` is the registry entry; the shared plumbing of
:class:`~solver.kit.entry.GameEntry` imports each room only when asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from solver.kit.entry import GameEntry

if TYPE_CHECKING:
    import pyarrow as pa

    from solver.games.niuniu.odds import EdgeResult

__all__ = ["GAME", "NiuNiu"]


class NiuNiu(GameEntry):
    """The Niu Niu entry of the game registry (see :class:`solver.games.Game`)."""

    name = "niuniu"
    title = "Niu Niu"
    package = "solver.games.niuniu"
    default_rules = "classic"
    tables: tuple[str, ...] = ("niuniu", "niuniu_no_faces", "niuniu_shoe6", "niuniu_grab")
    """The presets' tables: one per deck (and bull rule) the presets use."""
    options = frozenset({"bet", "commission"})
    commands = frozenset({"grab"})
    learns = True

    def table_headlines(self, name: str, table: pa.Table) -> list[str]:
        import numpy as np

        from solver.store.tables import to_numpy

        if name == "niuniu_grab":  # grab the banker: four visible cards (issue 14)
            bids = int((to_numpy(table.column("bid")) > 0).sum())
            return [f"{bids:,} of {table.num_rows:,} four-card hands bid to be the banker"]
        shoe = "weight" in table.column_names
        w = to_numpy(table.column("weight")).astype(np.int64) if shoe else None
        n = table.num_rows if w is None else int(w.sum())
        pts = np.bincount(to_numpy(table.column("points")), weights=w, minlength=11)
        pts = pts.astype(np.int64)
        what = "hands" if w is None else "deals"
        line = f"bull in {n - pts[0]:,} {what} ({(n - pts[0]) / n:.2%}); Niu Niu {pts[10]:,}"
        flag = "four_of_a_kind" if name == "niuniu_no_faces" else "five_faces"
        col = to_numpy(table.column(flag))
        count = int(col.sum()) if w is None else int(w[col].sum())
        line += f"; {flag.replace('_', ' ')} {count:,}"
        if w is not None:
            line += f" (a {name.rsplit('shoe', 1)[-1]}-deck shoe: {table.num_rows:,} rows)"
        return [line]

    def edge(self, rules: str | None, options: Mapping[str, Any], tables: str | None) -> EdgeResult:
        from solver.games.niuniu.risk import edge

        return edge(rules, options.get("bet"), options.get("commission"), tables)

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


GAME = NiuNiu()
"""The registry entry."""
