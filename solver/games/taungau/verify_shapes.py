"""Every shape of a Tau Ngau hand, for ``bull verify`` (:mod:`solver.games.taungau.verify`):
a hand's sorted tile ids with copy 0 of a type first (a multiset of tile types), our
answers for each, and each shape's analysis, which a row reads by its shape.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.learn import Extra, join_extras, split_extras
from solver.kit.parse import TILE_FIRST

__all__ = ["Shapes", "hand_lost_counts", "tile_atom_counts", "type_of_tile"]


@cache
def type_of_tile() -> npt.NDArray[np.int64]:
    """Tile id → tile type, for every byte (:data:`PAD` and other fillers: 255)."""
    from solver.core.tiles import TYPE_OF_TILE

    return np.array(TYPE_OF_TILE + (255,) * (256 - len(TYPE_OF_TILE)), dtype=np.int64)


@dataclass(frozen=True)
class Shapes:
    """Every shape of a Tau Ngau hand (its sorted tile ids, copy 0 of a type first: a
    multiset of tile types), with our answers and, per 3/6 choice, its last digit and
    whether it holds a bull: a row reads them by its shape."""

    hands: npt.NDArray[np.uint8]
    index: npt.NDArray[np.int64]
    """A sorted hand's colex rank → its shape (-1: not one)."""
    answers: dict[str, npt.NDArray[Any]]
    digit: npt.NDArray[np.int64]
    """(n, 4): per shape and 3/6 choice, the last digit of the two tiles left."""
    exists: npt.NDArray[np.bool_]
    """(n, 4): per shape and 3/6 choice, whether some three tiles make a bull."""
    interesting: npt.NDArray[np.bool_]
    """The shapes the scoped variants may answer differently (see :meth:`TauNgauChecker._hands`)."""
    every: list[Any] = field(default_factory=list)
    """Every shape's :class:`~solver.games.taungau.hands.Analysis`, once asked for."""
    made: dict[str, Any] = field(default_factory=dict)
    """What is made of the shapes once and kept with them (see
    :class:`~solver.games.taungau.verify_keys.WrittenOrders`)."""

    def analysis(self, at: npt.NDArray[np.int64]) -> Any:
        """The analysis of the shapes ``at``: rows of every shape's, gathered."""
        from dataclasses import fields

        from solver.games.taungau.hands import Analysis, analyse

        if not self.every:
            self.every.append(analyse(self.hands))
        a = self.every[0]
        axis = {"hands": 0}  # the others: one value per hand last
        return Analysis(
            **{
                f.name: np.take(getattr(a, f.name), at, axis=axis.get(f.name, -1))
                for f in fields(a)
            }
        )

    @classmethod
    def of(cls, rules: Any) -> Shapes:
        """Every shape under ``rules``: made once per rule set in a process (the last
        few kept; their arrays read-only, shared by every checker of those rules)."""
        made = _MADE.pop(rules, None) or cls._kept(rules)
        _MADE[rules] = made  # the most recent last
        while len(_MADE) > _KEEP:
            del _MADE[next(iter(_MADE))]
        return made

    @classmethod
    def _kept(cls, rules: Any) -> Shapes:
        """:meth:`_make`'s arrays, kept between runs in the user's cache
        (:mod:`~solver.kit.linestore`: named by the rule set's content and the solver's
        code, CRC-checked when read, else made again): making them analyses every hand
        of the set, 0.04 to 0.1 s of a verify's start."""
        from solver.kit import linestore

        names = ("hands", "index", "digit", "exists", "interesting")

        def make() -> dict[str, npt.NDArray[Any]]:
            m = cls._make(rules)
            out = {k: getattr(m, k) for k in names}
            return out | {f"answers.{k}": v for k, v in m.answers.items()}

        def whole(a: Any) -> bool:  # every array there, of its length, indices in range
            if any(k not in a for k in names) or a["index"].shape != (201_376,):
                return False
            n = len(a["hands"])
            if any(v.ndim == 0 or len(v) != n for k, v in a.items() if k != "index"):
                return False
            return bool(((a["index"] >= -1) & (a["index"] < n)).all())

        key = {"rules": rules.to_data(), "hands": 5}
        a = linestore.kept("taungau-verify-shapes", key, whole, make)
        answers = {k.split(".", 1)[1]: v for k, v in a.items() if k.startswith("answers.")}
        for v in a.values():
            v.flags.writeable = False
        return cls(
            hands=a["hands"],
            index=a["index"],
            answers=answers,
            digit=a["digit"],
            exists=a["exists"],
            interesting=a["interesting"],
        )

    @classmethod
    def _make(cls, rules: Any) -> Shapes:
        from solver.core.indexing import all_subsets
        from solver.games.taungau.diagnose import taungau_hand_answers
        from solver.games.taungau.hands import _VALUES, TRIPLES

        every = all_subsets(32, 5)
        t = type_of_tile()[every]
        dup = np.zeros(t.shape, dtype=np.int64)
        dup[:, 1:] = t[:, 1:] == t[:, :-1]
        canon = (TILE_FIRST[t] + dup == every).all(axis=1)
        hands = every[canon]
        index = np.full(len(every), -1, dtype=np.int64)
        index[canon] = np.arange(len(hands))
        hv = _VALUES[:, hands].astype(np.int64)  # (4, n, 5) values mod 10
        exists = np.zeros((4, len(hands)), dtype=bool)
        for tri in TRIPLES:
            exists |= hv[:, :, list(tri)].sum(axis=2) % 10 == 0
        answers = {k: np.asarray(v) for k, v in taungau_hand_answers(hands, rules).items()}
        from solver.games.taungau.hands import WILD_TILES

        # a [2:1]/[4:2] held (3/6 mistakes, several scores), a reachable 0 (its value),
        # or no bull at all (its score: 0 or none)
        interesting = (
            (hands == WILD_TILES[0]).any(axis=1)
            | (hands == WILD_TILES[1]).any(axis=1)
            | (answers["reach"] & 1).astype(bool)
            | ~answers["has_bull"].astype(bool)
        )
        # per shape, its four choices side by side: a row's are one gather
        digit = np.ascontiguousarray((hv.sum(axis=2) % 10).T)
        made = cls(hands, index, answers, digit, np.ascontiguousarray(exists.T), interesting)
        for a in (hands, index, digit, made.exists, interesting, *answers.values()):
            a.flags.writeable = False
        return made


_MADE: dict[Any, Shapes] = {}
"""The shapes made per rule set (:meth:`Shapes.of`)."""
_KEEP = 4


def tile_atom_counts(
    tiles: npt.NDArray[np.uint8],
    *,
    showdown: bool = False,
    extras: Sequence[Extra] = (),
) -> Counter[frozenset[str]]:
    """Rows of sorted five-tile hands counted by the atom set of their verify records
    (:func:`solver.kit.learn.atoms`), vectorised: a hand row's shape (a [2:1], a [4:2],
    two tiles of a type), or with ``showdown`` a showdown row's player's, plus per
    ``(codes, names)`` of ``extras`` the atom ``names[codes[i]]`` of row ``i`` (a wrong
    claim: :func:`solver.kit.learn.claim_codes`).

    >>> from solver.core.tiles import parse_hand
    >>> t = np.sort(np.array([parse_hand("[2:1][4:2][6:6][6:6][1:1]")], dtype=np.uint8))
    >>> sorted(next(iter(tile_atom_counts(t, showdown=True))))
    ['player holding [2:1]', 'player holding [4:2]', 'player holding a pair of tiles', 'showdowns']
    """
    from solver.games.taungau.hands import WILD_TILES

    types = type_of_tile()[tiles]  # sorted ids: tiles of a type side by side
    code = (
        (tiles == WILD_TILES[0]).any(axis=1)
        + 2 * (tiles == WILD_TILES[1]).any(axis=1)
        + 4 * (types[:, 1:] == types[:, :-1]).any(axis=1)
    ).astype(np.int64)
    uniq, counts = np.unique(join_extras(code, extras), return_counts=True)
    out: Counter[frozenset[str]] = Counter()
    for joined, n in zip(uniq.tolist(), counts.tolist(), strict=True):
        k, got = split_extras(joined, extras)
        shape = ["holding [2:1]"] * (k & 1) + ["holding [4:2]"] * (k >> 1 & 1)
        shape += ["holding a pair of tiles"] * (k >> 2 & 1)
        if showdown:
            got += ["showdowns", *(f"player {x}" for x in shape)]
        else:
            got += ["hands of 5 tiles", *shape]
        out[frozenset(got)] += n
    return out


def hand_lost_counts(
    tiles: npt.NDArray[np.uint8],
    wrong: Mapping[str, npt.NDArray[np.bool_]],
    claimed: Mapping[str, npt.NDArray[Any]],
    correct: Mapping[str, npt.NDArray[Any]],
    none: int,
) -> tuple[Counter[frozenset[str]], npt.NDArray[np.bool_]]:
    """Disagreeing hand rows (sorted ``tiles``) counted by the atom set of their
    records, vectorised, for the rows whose wrong claims are ``has_bull`` and ``points``
    alone (``wrong``: per field, the rows that state it wrong; ``claimed`` and ``correct``
    their values, ``none`` the points of no bull, which a record shows as ``None``); and
    which rows those are (the others' records are counted one by one).

    >>> from solver.core.tiles import parse_hand
    >>> t = np.sort(np.array([parse_hand("[2:1][6:6][6:6][1:1][5:5]")] * 2, dtype=np.uint8))
    >>> got, done = hand_lost_counts(t, {"points": np.array([True, True])},
    ...     {"points": np.array([3, -1])}, {"points": np.array([5, 5])}, -1)
    >>> sorted(sorted(k) for k in got), done.tolist()  # doctest: +NORMALIZE_WHITESPACE
    ([['claimed points 3, correct 5', 'hands of 5 tiles', 'holding [2:1]',
       'holding a pair of tiles'],
      ['claimed points None, correct 5', 'hands of 5 tiles', 'holding [2:1]',
       'holding a pair of tiles']], [True, True])
    """
    from solver.kit.learn import claim_codes

    done = np.ones(len(tiles), dtype=bool)
    for f in wrong:
        if f not in ("has_bull", "points"):
            done &= ~wrong[f]

    def words(p: npt.NDArray[Any]) -> npt.NDArray[np.str_]:
        return np.where(p == none, "None", np.asarray(p).astype(np.int64).astype(str))

    extras: list[Extra] = []
    if "has_bull" in wrong:
        got, want = (np.asarray(x["has_bull"]).astype(bool) for x in (claimed, correct))
        extras.append(claim_codes("has_bull", wrong["has_bull"] & done, got, want))
    if "points" in wrong:
        got, want = (words(np.asarray(x["points"])) for x in (claimed, correct))
        extras.append(claim_codes("points", wrong["points"] & done, got, want))
    keep = [(c[done], n) for c, n in extras]
    return tile_atom_counts(tiles[done], extras=keep), done
