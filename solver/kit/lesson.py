"""What a game's language stage of ``bull verify --infer`` hands back (issue 22),
game-blind: a learned :class:`Item` scored by the significance gate (:func:`gate`) and
the :class:`Lesson` of a claims file. Each game's ``induce`` room learns the items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solver.kit.infer import THRESHOLD_BITS, evidence_bits

__all__ = ["Item", "Lesson", "gate"]


@dataclass(frozen=True)
class Item:
    """One learned item: what it says, the rows it explains and contradicts, its bits."""

    key: str
    description: str
    explains: int
    contradicts: int
    bits: float

    @property
    def adopted(self) -> bool:
        """Through the gate: 0 contradictions and a significant saving."""
        return self.contradicts == 0 and self.explains > 0 and self.bits >= THRESHOLD_BITS


def gate(
    key: str, description: str, explains: int, contradicts: int, n: int, d: int, m: int
) -> Item:
    """An item scored by :func:`~solver.kit.infer.evidence_bits` (``n`` rows, ``d`` of
    them disagreeing, ``m`` candidates).

    >>> gate("k", "one row", 1, 0, 5000, 50, 1).adopted
    False
    >>> gate("k", "many rows", 300, 0, 5000, 300, 455).adopted
    True
    """
    bits = evidence_bits(n, max(d, explains), explains, contradicts, m) if explains else 0.0
    return Item(key, description, explains, contradicts, bits)


@dataclass(frozen=True)
class Lesson:
    """What a game's ``learn`` found: the rule data in the language's form with every
    adopted item (``None``: nothing adopted) and every item scored, adopted or not."""

    data: dict[str, Any] | None
    items: tuple[Item, ...]
