"""The confirm's bytes in blocks: request lines of many hands built at once in numpy,
and answer lines read in batches, so that the probe's side costs far less than a
peer's own work per question.

:class:`Encoder` turns a block of hands (rows of unit indices) into their shown text
(``KS 9H 8C 3D 7S``), their JSON fields (``"hand":["KS","9H","8C","3D","7S"]``) and
their request lines (``{"id":17,"hand":[...]}``): each is one byte matrix, one row a
hand, with every unit's name written into a fixed-width slot padded with NUL bytes;
the NULs are dropped from the flattened matrix and the result split into lines.

:func:`answer_ids` reads the ids of a batch of answer lines at once when every line is
written the common way (``{"id":N,...``), or says it cannot (the caller reads those
lines one at a time).

>>> enc = Encoder(["AS", "10H", "KD"], "hand")
>>> hands = np.array([[0, 1, 2], [2, 0, 1]])
>>> enc.shown(hands)
['AS 10H KD', 'KD AS 10H']
>>> enc.requests(np.array([9, 10]), hands)
[b'{"id":9,"hand":["AS","10H","KD"]}', b'{"id":10,"hand":["KD","AS","10H"]}']
>>> answer_ids([b'{"id":9,"points":7}', b'{"id":10}'])
[9, 10]
>>> answer_ids([b'{"id":9,"points":7}', b'{"points":7,"id":10}']) is None
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

from solver.probe.faults import Question

__all__ = ["Blocks", "Encoder", "answer_ids", "hand_rows", "uniform"]

_IDS = re.compile(rb'^\{"id":(\d{1,18})[,}]', re.M)


def answer_ids(lines: Sequence[bytes]) -> list[int] | None:
    """The ids of ``lines`` when every line starts ``{"id":N,`` or ``{"id":N}`` (one
    regular-expression pass over the batch), else None."""
    if not lines:
        return []
    found = _IDS.findall(b"\n".join(lines))
    if len(found) != len(lines):
        return None
    return list(map(int, found))


class Encoder:
    """Hands written as text and as JSON Lines requests, a block at a time (see the
    module docstring). ``ok`` is False when some unit's name cannot be written this
    way (it needs JSON escaping, or holds a space, a newline or a NUL byte): the caller
    then builds its questions one at a time."""

    def __init__(self, names: Sequence[str], key: str) -> None:
        raw = [n.encode() for n in names]
        self.ok = bool(raw) and all(
            r
            and json.dumps(n, ensure_ascii=False) == f'"{n}"'
            and not any(c in r for c in (b" ", b"\n", b"\0"))
            for n, r in zip(names, raw, strict=True)
        )
        width = max((len(r) for r in raw), default=1)
        self.table = np.zeros((max(1, len(raw)), width), dtype=np.uint8)
        for i, r in enumerate(raw):
            self.table[i, : len(r)] = np.frombuffer(r, dtype=np.uint8)
        self.key = json.dumps(key).encode()

    def _lines(
        self,
        hands: npt.NDArray[np.int64],
        head: list[npt.NDArray[np.uint8]],
        sep: bytes,
        end: bytes,
    ) -> bytes:
        """The hands written as ``head`` + names joined by ``sep`` + ``end``, one line
        each (a newline after each)."""
        n, k = hands.shape
        pieces = list(head)
        for j in range(k):
            if j:
                pieces.append(_const(n, sep))
            pieces.append(self.table[hands[:, j]])
        pieces.append(_const(n, end + b"\n"))
        flat = np.concatenate(pieces, axis=1).ravel()
        return bytes(flat[flat != 0].tobytes())

    def shown(self, hands: npt.NDArray[np.int64]) -> list[str]:
        """Each hand as text, its names joined by spaces."""
        if not len(hands):
            return []
        return self._lines(hands, [], b" ", b"").decode().split("\n")[:-1]

    def fields(self, hands: npt.NDArray[np.int64]) -> list[str]:
        """Each hand as the JSON field of a request, without braces."""
        if not len(hands):
            return []
        head = [_const(len(hands), self.key + b':["')]
        return self._lines(hands, head, b'","', b'"]').decode().split("\n")[:-1]

    def requests(self, ids: npt.NDArray[np.int64], hands: npt.NDArray[np.int64]) -> list[bytes]:
        """Each hand's request line (no newline) under its id."""
        if not len(hands):
            return []
        head = [_const(len(hands), b'{"id":'), _digits(ids), _const(len(hands), b",")]
        head.append(_const(len(hands), self.key + b':["'))
        return self._lines(hands, head, b'","', b'"]}').split(b"\n")[:-1]


def _const(n: int, text: bytes) -> npt.NDArray[np.uint8]:
    """``text`` as ``n`` rows of bytes."""
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (n, len(text)))


def _digits(ids: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Each id in decimal, right-aligned in a NUL-padded slot.

    >>> bytes(_digits(np.array([7, 1203])).ravel()).replace(b"\\0", b".")
    b'...71203'
    """
    ids = np.asarray(ids, dtype=np.int64)
    width = len(str(int(ids.max()))) if len(ids) else 1
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    out = (ids[:, None] // powers % 10 + 48).astype(np.uint8)
    out[(ids[:, None] < powers) & (powers > 1)] = 0
    return out


class Blocks:
    """Questions in blocks (lists), each asked as it is: iterating gives the questions
    one after another without a Python step per question."""

    def __init__(self, blocks: Iterable[list[Question]]) -> None:
        self.blocks = blocks

    def __iter__(self) -> Iterator[Question]:
        return chain.from_iterable(self.blocks)


def hand_rows(block: npt.NDArray[np.int64] | list[list[int]]) -> list[list[int]]:
    return block.tolist() if isinstance(block, np.ndarray) else list(block)


def uniform(block: npt.NDArray[np.int64] | list[list[int]]) -> Iterator[npt.NDArray[np.int64]]:
    """``block``'s hands as arrays of one hand size each (a sample mixes sizes)."""
    if isinstance(block, np.ndarray):
        yield block
        return
    sizes = sorted({len(h) for h in block})
    for k in sizes:
        yield np.array([h for h in block if len(h) == k], dtype=np.int64).reshape(-1, k)
