"""What the transports share: a :class:`Question`, an :class:`Answer` and the
:class:`Faults` of a peer, counted with the first few examples.

>>> f = Faults()
>>> f.garbage = 2
>>> f.lines()
['2 unreadable answer line(s)']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, NamedTuple

__all__ = ["MAX_SHOWN", "Answer", "Faults", "Question", "answers", "questions"]

MAX_SHOWN = 5
"""Examples kept of each kind of fault."""


class Question(NamedTuple):
    """One question: its ``id``, its JSON fields without braces (``"hand":[...]``), the
    plain line (``--protocol lines``), what it shows in a fault report and, when built
    in a block (:mod:`solver.probe.wire`), its JSON Lines request without the newline
    (else built when sent)."""

    id: int
    fields: str
    line: str
    shown: str
    wire: bytes = b""


class Answer(NamedTuple):
    """The answer to ``question``: its JSON object as bytes (JSON Lines and HTTP), or
    the values of its CSV line (``--protocol lines``)."""

    question: Question
    text: bytes = b""
    values: tuple[str, ...] = ()


def questions(
    ids: Iterable[int],
    fields: Iterable[str],
    shown: Iterable[str],
    wires: Iterable[bytes],
) -> list[Question]:
    """Many questions at once (each its ``line`` and ``shown`` the same text), built
    without a Python call per question (a named tuple's ``__new__`` is one).

    >>> questions([7], ['"hand":["KS"]'], ["KS"], [b'{"id":7,"hand":["KS"]}'])[0].shown
    'KS'
    """
    shown = list(shown)
    return list(
        map(tuple.__new__, repeat(Question), zip(ids, fields, shown, shown, wires, strict=True))
    )


def answers(asked: Iterable[Question], texts: Iterable[bytes]) -> list[Answer]:
    """Many JSON answers at once (see :func:`questions`)."""
    return list(map(tuple.__new__, repeat(Answer), zip(asked, texts, repeat(()))))


@dataclass
class Faults:
    """What went wrong with the peer, counted, with the first few examples."""

    crashes: list[dict[str, Any]] = field(default_factory=list)
    timeouts: list[dict[str, Any]] = field(default_factory=list)
    unreadable: list[dict[str, Any]] = field(default_factory=list)
    """Questions whose answer was (taken to be) a garbage line."""
    garbage: int = 0
    garbage_lines: list[str] = field(default_factory=list)
    unknown_ids: int = 0
    duplicates: int = 0
    restarts: int = 0
    fatal: str | None = None
    interrupted: bool = False

    def bad_line(self, text: str) -> None:
        """An answer line that cannot be read."""
        self.garbage += 1
        if len(self.garbage_lines) < MAX_SHOWN:
            self.garbage_lines.append(text[:160])

    @property
    def failed(self) -> bool:
        """Whether the peer failed in a way that makes the run exit 1."""
        return bool(self.crashes or self.timeouts or self.garbage or self.fatal or self.interrupted)

    def to_json(self) -> dict[str, Any]:
        return {
            "crashes": self.crashes,
            "timeouts": self.timeouts,
            "unreadable": self.unreadable,
            "garbage": self.garbage,
            "garbage_lines": self.garbage_lines,
            "unknown_ids": self.unknown_ids,
            "duplicates": self.duplicates,
            "restarts": self.restarts,
            "fatal": self.fatal,
            "interrupted": self.interrupted,
        }

    def lines(self) -> list[str]:
        """One line per kind of fault seen."""
        out = []
        if self.fatal:
            out.append(f"peer failed: {self.fatal}")
        for c in self.crashes[:MAX_SHOWN]:
            out.append(f"crash on {c['question']}: {c['message']}")
        if len(self.crashes) > MAX_SHOWN:
            out.append(f"... {len(self.crashes) - MAX_SHOWN} more crashes")
        for t in self.timeouts[:MAX_SHOWN]:
            out.append(f"timeout on {t['question']}: no answer in {t['ms']} ms")
        if len(self.timeouts) > MAX_SHOWN:
            out.append(f"... {len(self.timeouts) - MAX_SHOWN} more timeouts")
        for u in self.unreadable[:MAX_SHOWN]:
            out.append(f"unreadable answer to {u['question']}")
        if self.garbage:
            shown = "; ".join(repr(g) for g in self.garbage_lines[:2])
            out.append(
                f"{self.garbage} unreadable answer line(s)" + (f", e.g. {shown}" if shown else "")
            )
        if self.unknown_ids:
            out.append(f"{self.unknown_ids} answer(s) to an id never asked (ignored)")
        if self.duplicates:
            out.append(f"{self.duplicates} id(s) answered twice (the first answer kept)")
        if self.restarts:
            out.append(f"peer restarted {self.restarts} time(s)")
        if self.interrupted:
            out.append("interrupted: the report covers the questions answered so far")
        return out
