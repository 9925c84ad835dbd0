"""Tau Ngau ``bull verify``: the keys of hand rows, and what a key says without the row.

:mod:`solver.kit.scoring` sweeps the causes the report needs over every key present
(:mod:`solver.kit.keycounts`). A key is a hand's shape and the class of the order its
tiles were written in (:class:`WrittenOrders`): the orders that make the mistake of
taking the first bull met in the order written
(:data:`~solver.games.taungau.diagnose.FIRST_WRITTEN`) — alone, or joined to a values
mistake — take the same triples: 407,208 keys (33,934 shapes, 12 classes at most each)
against 4 million shapes and orders, so a large file's keys are counted in a count per
key, not sorted. The mistake's answer depends on the shape and on which three tiles it
takes alone, and those on the shape's bulls (ten triples: which of them are bulls, a
mask of ten bits) and the order. :class:`FirstWritten` reads it from two tables made
once: the triple taken per mask and order (1,024 x 120), and the mistake's answers per
shape and triple taken (the shapes' hands, each written with that triple first:
33,934 x 10 rows).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["FIRST_AFTER", "FirstWritten", "WrittenOrders", "taken_triples"]

FIRST_AFTER = 1 << 20
"""Keys asked of a :class:`FirstWritten` after which its tables are made (about a
third of a second of CPU) rather than a group of the keys made and scored."""

_FIELDS = ("has_bull", "points")
"""The claims compared with our answer as they are (bull and values are not keyed)."""


def taken_triples(perms: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``[mask, order]``: the triple (an index in
    :data:`~solver.games.taungau.hands.TRIPLES`) a search over the tiles as written in
    ``perms[order]`` takes first among those of ``mask`` (bit ``t``: triple ``t`` is a
    bull) — 0 when the mask is empty (no bull to take: which triple is met first
    changes no answer).

    >>> taken_triples(np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]))[[0, 1, 3, 512]].tolist()
    [[0, 0], [0, 0], [0, 1], [9, 9]]
    """
    from solver.games.taungau.diagnose import _written_triples
    from solver.games.taungau.hands import TRIPLES

    met = _written_triples(perms, len(perms))  # (10, orders): in search order
    masks = np.arange(1 << len(TRIPLES))
    is_bull = (masks[:, None, None] >> met[None, :, :]) & 1  # (masks, 10, orders)
    first = np.argmax(is_bull, axis=1)  # the first bull met (none: the first triple)
    taken = np.take_along_axis(met[None, :, :], first[:, None, :], axis=1)[:, 0, :]
    return np.where(masks[:, None] == 0, 0, taken)


class WrittenOrders:
    """The written orders of a Tau Ngau hand row that its key tells apart: those that
    make the search over the tiles as written take different triples first — under
    any 3/6 choice, or under the choices a values mistake allows (a pair of causes
    joins one to the mistake of the first bull met as written) — the only cause
    whose answer depends on the order written. Per shape at most :attr:`per` classes
    of the 120 orders (12: 55,984 in all over the 33,934 shapes, against 4 million
    shapes and orders); a key is ``shape * per + class``, and :meth:`decode` gives a
    key's shape and an order of its class.

    ``perms[o]``: the sorted place of each tile written, per order ``o``."""

    def __init__(
        self,
        kind: npt.NDArray[np.int64],
        classes: npt.NDArray[np.int64],
        rep: npt.NDArray[np.int64],
    ) -> None:
        """``kind[shape]``: the shape's kind (its masks of bulls); ``classes[kind,
        order]``: the order's class; ``rep[kind, class]``: an order of the class."""
        self._kind, self._class, self._rep = kind, classes, rep
        self.per = rep.shape[1]
        self.space = len(kind) * self.per
        self._kind_orders = (kind * classes.shape[1]).astype(np.int64)
        self._class_flat = classes.ravel().astype(np.int8)

    @classmethod
    def _make(cls, shapes: Any, perms: npt.NDArray[np.int64]) -> WrittenOrders:
        from solver.games.taungau.diagnose import _CHOICES

        n = len(shapes.hands)
        bull_ok = np.asarray(shapes.analysis(np.arange(n)).bull_ok)  # (4, 10, n)
        masks = []
        for choices in ((0, 1, 2, 3), *_CHOICES.values()):
            any_c = np.asarray(bull_ok[list(choices)].any(axis=0))  # (10, n)
            m = np.zeros(n, dtype=np.int64)
            for t in range(len(any_c)):
                m |= any_c[t].astype(np.int64) << t
            masks.append(m)
        kinds, of = np.unique(np.stack(masks, axis=1), axis=0, return_inverse=True)
        taken = taken_triples(perms)
        code = np.zeros((len(kinds), len(perms)), dtype=np.int64)  # per kind and order
        for r in range(kinds.shape[1]):
            code = code * 10 + taken[kinds[:, r]]
        # the classes of each kind's orders: its distinct codes, numbered in order (one
        # sort of every kind's codes, each kind's apart from the next's)
        spread = code + np.arange(len(kinds))[:, None] * 10 ** kinds.shape[1]
        _, first, at = np.unique(spread, return_index=True, return_inverse=True)
        at = at.reshape(code.shape)
        low = at.min(axis=1)
        classes = at - low[:, None]
        rep = np.zeros((len(kinds), int(classes.max()) + 1), dtype=np.int64)
        kind = np.asarray(first) // len(perms)  # each class's first order, by kind
        rep[kind, np.arange(len(first)) - low[kind]] = np.asarray(first) % len(perms)
        return cls(np.asarray(of, dtype=np.int64).ravel(), classes.astype(np.int64), rep)

    def key(
        self, shape: npt.NDArray[np.int64], order: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """The keys of rows of ``shape`` written in ``order`` (an index of ``perms``)."""
        at = np.take(self._kind_orders, shape)  # each shape's kind, times the orders
        at += order
        out: npt.NDArray[np.int64] = shape * self.per
        out += np.take(self._class_flat, at)
        return out

    def decode(
        self, keys: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The keys' shapes and an order of each one's class."""
        shape = keys // self.per
        return shape, self._rep[self._kind[shape], keys % self.per]

    @classmethod
    def of(cls, shapes: Any, perms: npt.NDArray[np.int64]) -> WrittenOrders:
        """Made once per :class:`~solver.games.taungau.verify_shapes.Shapes`, and kept
        between runs in the user's cache (:mod:`~solver.kit.linestore`, CRC-checked
        when read, else made again): they depend on the tiles alone, and making them
        analyses every shape (0.07 s, a fifth of a small file's verify)."""
        from solver.kit import linestore

        got = shapes.made.get("orders")
        if got is None:
            n, key = len(shapes.hands), {"shapes": len(shapes.hands), "orders": len(perms)}

            def make() -> dict[str, npt.NDArray[Any]]:
                o = cls._make(shapes, perms)
                return {"kind": o._kind, "classes": o._class, "rep": o._rep}

            a = linestore.kept(
                "taungau-written-orders", key, lambda a: _whole(a, n, len(perms)), make
            )
            got = shapes.made["orders"] = cls(a["kind"], a["classes"], a["rep"])
        assert isinstance(got, WrittenOrders)
        return got


def _whole(a: Mapping[str, npt.NDArray[Any]], shapes: int, orders: int) -> bool:
    """Whether stored :class:`WrittenOrders` arrays are of ``shapes`` shapes and
    ``orders`` orders, every index in range."""
    try:
        kind, classes, rep = a["kind"], a["classes"], a["rep"]
    except KeyError:
        return False
    return bool(
        kind.shape == (shapes,)
        and classes.ndim == 2
        and classes.shape[1] == orders
        and rep.ndim == 2
        and rep.shape[0] == classes.shape[0]
        and len(kind)
        and kind.min() >= 0
        and kind.max() < len(classes)
        and classes.min() >= 0
        and classes.max() < rep.shape[1]
        and rep.min() >= 0
        and rep.max() < orders
    )


class FirstWritten:
    """:attr:`~solver.kit.check.Keys.agree` of Tau Ngau hand rows for the mistake of
    the first bull met in the order written, alone: the triple it takes is the first
    of the written order's search (``_written_triples`` of ``perms``, the sorted place
    of each tile written per order) that is a bull under some 3/6 choice, and its answers
    for a shape and a triple are those :func:`~solver.games.taungau.diagnose.
    taungau_hand_answers` gives the shape's hand written with that triple first — the
    first triple met, so the one taken when it is a bull (and when the hand has none,
    any triple: no bull). ``None`` for any other cause, and until :data:`FIRST_AFTER`
    keys have been asked."""

    def __init__(
        self,
        rules: Any,
        shapes: Callable[[], Any],
        perms: npt.NDArray[np.int64],
        orders: Callable[[], WrittenOrders],
    ):
        self.rules, self.shapes, self.perms, self.orders = rules, shapes, perms, orders
        self.asked = 0
        self.made: dict[str, npt.NDArray[Any]] = {}

    def __call__(
        self, variant: Any, keys: npt.NDArray[np.int64], fields: Sequence[str]
    ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None:
        from solver.games.taungau.diagnose import FIRST_WRITTEN

        if (
            variant.rules is not None
            or variant.mistake != FIRST_WRITTEN
            or not set(fields) <= set(_FIELDS)
        ):
            return None
        self.asked += len(keys)
        if not self.made:
            if self.asked <= FIRST_AFTER:
                return None
            self.made.update(self._tables(variant))
        shapes = self.shapes()
        shape, order = self.orders().decode(keys)
        taken = self.made["taken"][self.made["bulls"][shape], order]
        ok = np.ones(len(keys), dtype=bool)
        for f in fields:
            ours = np.asarray(shapes.answers[f])[shape]
            theirs = self.made[f][shape, taken]
            ok &= ours.astype(theirs.dtype) == theirs
        return ok, np.asarray(shapes.interesting)[shape]

    def _tables(self, variant: Any) -> dict[str, npt.NDArray[Any]]:
        """``bulls``: per shape, the mask of its triples that are bulls under some 3/6
        choice; ``taken[mask, order]``: the triple the mistake takes; ``has_bull`` and
        ``points`` ``[shape, triple]``: its answers when it takes that triple."""
        from solver.games.taungau.diagnose import remember_analysis, taungau_hand_answers
        from solver.games.taungau.hands import TRIPLES

        shapes = self.shapes()
        n = len(shapes.hands)
        every = shapes.analysis(np.arange(n))
        any_choice = np.asarray(np.asarray(every.bull_ok).any(axis=0), dtype=bool)  # (10, n)
        bulls = np.zeros(n, dtype=np.int64)
        for t in range(len(TRIPLES)):
            bulls |= any_choice[t].astype(np.int64) << t
        taken = taken_triples(self.perms)
        # every shape written with each triple first, the other two after it
        lead = np.array([[*t, *(p for p in range(5) if p not in t)] for t in TRIPLES])
        at = np.repeat(np.arange(n), len(TRIPLES))
        hands = shapes.hands[at]
        remember_analysis(hands, lambda: shapes.analysis(at))
        written = np.tile(lead, (n, 1))
        ans = taungau_hand_answers(hands, self.rules, variant, {"bull": None, "written": written})
        out = {"bulls": bulls, "taken": taken}
        for f in _FIELDS:
            out[f] = np.asarray(ans[f]).reshape(n, len(TRIPLES))
        return out
