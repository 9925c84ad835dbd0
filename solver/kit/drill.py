"""``bull drill``: a terminal trainer, game-blind (issues 14, 24, 28).

Each deal shows 2-4 hands from a seeded shuffle of one deck (or tile set). For every
hand of a game with bulls the player names the bull (its three cards or tiles, or
``no bull``) and then the points; Pok Deng asks the points only. Then the winning
hand's number. Every answer is checked against the tables (the game's ``eval`` and
``rank`` records, and the game's own bull arithmetic: any bull that reaches the hand's
points is right), a wrong one explained by the arithmetic ``bull verify`` writes
(``A+2+7 = 10 is a bull, 4+9 = 13, points 3``). An answer that cannot be read (a typo,
``²``, a line of ten million digits) is asked again, not scored; ``quit`` ends the
drill. The score and times are kept and a summary printed at the end: accuracy, the
median time per hand and the kinds of hands missed. Input is read line by line with a
bounded length, so a pipe drives it; end of input, a closed stdin, an endless line
(``< /dev/zero``), ``quit`` or Ctrl-C ends the drill with its summary. With ``as_json``
every event is one JSON line (``deal`` with the hands, ``ask``, ``answer`` with whether
it was right and the explanation, ``unreadable``) and the ``summary`` the last.

>>> read_points("niu niu"), read_points("No bull"), read_points("bull 7"), read_points("?")
(10, 0, 7, None)
>>> read_points("²"), read_points("9" * 5000)
(None, None)
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO

__all__ = [
    "MAX_LINE",
    "UNREADABLE",
    "DrillDeck",
    "DrillSummary",
    "drill_lines",
    "hands_range",
    "read_points",
    "run_drill",
]

MAX_LINE = 1000
"""Characters of an answer line read; a longer line is unreadable (asked again)."""
_ENDLESS = 1 << 24
"""Bytes without a line end after which the input counts as endless (``/dev/zero``)."""
UNREADABLE = "\x00unreadable"
"""What :func:`drill_lines` yields for a line too long or not text."""
_DIGITS = "0123456789"
_QUIT = ("quit", "q", "exit")


@dataclass(frozen=True)
class DrillDeck:
    """What a game's drill deals: ``items`` (card or tile names, one physical item
    each), ``size`` per hand, ``join`` between items, and whether a hand has a bull to
    name (Pok Deng has points only).

    The game's arithmetic, for the bull question: ``pick(answer, hand)`` the items of
    ``hand`` an answer names (raises ``ValueError`` naming what it cannot read);
    ``bull_points(hand, three)`` the points the bull ``three`` can leave (empty: not a
    bull); ``why(rec)`` the arithmetic of an ``eval`` record, in one line."""

    items: tuple[str, ...]
    size: int
    join: str = " "
    asks_bull: bool = True
    pick: Callable[[str, Sequence[str]], list[str]] | None = None
    bull_points: Callable[[Sequence[str], Sequence[str]], frozenset[int]] | None = None
    why: Callable[[dict[str, Any]], str] | None = None


@dataclass(frozen=True)
class DrillSummary:
    """The end of a drill: answers asked and right, seconds per hand, misses by kind."""

    questions: int
    correct: int
    hand_seconds: tuple[float, ...]
    missed: dict[str, int] = field(default_factory=dict)
    reason: str = "end of input"
    reasked: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.questions if self.questions else 0.0

    def text(self) -> str:
        med = statistics.median(self.hand_seconds) if self.hand_seconds else 0.0
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.missed.items())) or "none"
        return (
            f"drill over ({self.reason}): {self.correct} of {self.questions} right "
            f"({self.accuracy:.0%}); median {med:.1f} s per hand; missed: {kinds}"
        )

    def record(self) -> dict[str, Any]:
        """The summary as one JSON object (``bull drill --json``'s last line)."""
        med = statistics.median(self.hand_seconds) if self.hand_seconds else 0.0
        return {
            "event": "summary",
            "reason": self.reason,
            "questions": self.questions,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "median_seconds_per_hand": round(med, 3),
            "missed": dict(sorted(self.missed.items())),
            "reasked": self.reasked,
        }


def read_points(answer: str) -> int | None:
    """The points an answer names: 0 for no bull, 10 for niu niu, else its number
    (ASCII digits 0-10 only; anything else is None: not an answer)."""
    a = answer.strip().lower().replace("-", " ")
    if not a or len(a) > 40:
        return None
    if a.startswith("no") or a in ("none", "0", "x"):
        return 0
    if "niu niu" in a or a in ("nn", "niuniu"):
        return 10
    digits = "".join(ch if ch in _DIGITS else " " for ch in a).split()
    if len(digits) != 1 or len(digits[0]) > 2:
        return None
    return int(digits[0]) if int(digits[0]) <= 10 else None


def _says_no_bull(answer: str) -> bool:
    a = " ".join(answer.strip().lower().replace("-", " ").split())
    return a in ("no bull", "no", "none", "nobull", "x", "0", "no niu", "mei niu")


def _score(rec: dict[str, Any]) -> int:
    if "has_bull" in rec and not rec["has_bull"]:
        return 0
    return int(rec.get("points") or 0)


class _Quit(Exception):
    """The player typed ``quit``."""


class _Session:
    """One drill's prompts, answers and tallies."""

    def __init__(
        self, deck: DrillDeck, lines: Iterator[str], out: TextIO, as_json: bool, clock: Any
    ) -> None:
        self.deck, self.lines, self.out, self.as_json, self.clock = (
            deck,
            lines,
            out,
            as_json,
            clock,
        )
        self.asked = self.right = self.reasked = 0
        self.missed: Counter[str] = Counter()
        self.deal_no = 0

    def ask(self, prompt: str, read: Callable[[str], Any], hint: str) -> tuple[str, Any]:
        """Ask until an answer reads (``read`` returns non-None or raises ValueError with
        the reason); ``quit`` and the end of input end the drill."""
        while True:
            if self.as_json:
                self.emit({"event": "ask", "deal": self.deal_no, "question": prompt.strip()})
            else:
                self.out.write(prompt)
            self.out.flush()
            line = next(self.lines, None)
            if line is None:
                raise EOFError
            if line.strip().lower() in _QUIT:
                raise _Quit
            why = hint
            if line != UNREADABLE:
                try:
                    got = read(line)
                except ValueError as exc:
                    got, why = None, f"{exc}; {hint}"
                if got is not None:
                    return line, got
            self.reasked += 1
            shown = "a line too long or not text" if line == UNREADABLE else repr(line.strip())
            if self.as_json:
                self.emit(
                    {"event": "unreadable", "deal": self.deal_no, "answer": shown[:80], "hint": why}
                )
            else:
                self.out.write(f"  not an answer: {shown[:80]} ({why})\n")

    def emit(self, rec: dict[str, Any]) -> None:
        self.out.write(json.dumps(rec) + "\n")

    def score(self, rec: dict[str, Any], ok: bool, kind: str, explain: str) -> None:
        self.asked += 1
        if ok:
            self.right += 1
        else:
            self.missed[kind] += 1
        if self.as_json:
            self.emit(
                {"event": "answer", "deal": self.deal_no, **rec, "right": ok, "explain": explain}
            )
        else:
            self.out.write("  right\n" if ok else f"  wrong: {explain}\n")


def run_drill(
    deck: DrillDeck,
    evaluate: Callable[[list[str]], list[dict[str, Any]]],
    rank: Callable[[list[str]], dict[str, Any]],
    explain: Callable[[dict[str, Any]], str],
    lines: Iterator[str],
    out: TextIO,
    *,
    hands: int = 2,
    seed: int = 0,
    time_limit: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    as_json: bool = False,
) -> DrillSummary:
    """Deal and ask until ``lines`` ends, ``quit``, Ctrl-C or ``time_limit`` seconds
    pass. ``explain`` is the fallback one-line explanation when the deck has no
    ``why``. With ``as_json`` each answer is a JSON line (the deal, the hand, the
    answer, whether right, the explanation) and the summary the last line."""
    rng = random.Random(seed)
    start = clock()
    s = _Session(deck, lines, out, as_json, clock)
    seconds: list[float] = []
    reason = "end of input"
    why = deck.why or explain
    try:
        while True:
            if time_limit is not None and clock() - start >= time_limit:
                reason = f"time limit {time_limit:g} s"
                break
            s.deal_no += 1
            items = list(deck.items)
            rng.shuffle(items)
            parts = [items[i * deck.size : (i + 1) * deck.size] for i in range(hands)]
            dealt = [deck.join.join(p) for p in parts]
            recs = evaluate(dealt)
            if as_json:
                s.emit({"event": "deal", "deal": s.deal_no, "hands": parts})
            else:
                out.write(f"deal {s.deal_no}:\n")
                for i, h in enumerate(dealt, 1):
                    out.write(f"  hand {i}: {h}\n")
            t0 = clock()
            for i, (rec, part) in enumerate(zip(recs, parts, strict=True), 1):
                _ask_hand(s, deck, i, rec, part, why(rec))
            _ask_winner(s, rank(dealt), hands)
            seconds.append((clock() - t0) / hands)
    except EOFError:
        reason = "end of input"
    except _Quit:
        reason = "quit"
    except KeyboardInterrupt:
        reason = "interrupted"
    summary = DrillSummary(s.asked, s.right, tuple(seconds), dict(s.missed), reason, s.reasked)
    if as_json:
        s.emit(summary.record())
    else:
        out.write("\n" + summary.text() + "\n")
    return summary


_POINTS_HINT = "type the points 0-10, 'no bull' or 'niu niu'; 'quit' ends"


def _ask_hand(
    s: _Session, deck: DrillDeck, i: int, rec: dict[str, Any], hand: list[str], why: str
) -> None:
    """The bull (games with one) and the points of hand ``i``: one scored answer."""
    want = _score(rec)
    kind = str(rec.get("category") or rec.get("type") or want)
    base = {"hand_number": i, "hand": hand}
    if not (deck.asks_bull and deck.pick and deck.bull_points):
        said, got = s.ask(f"hand {i} points? ", read_points, _POINTS_HINT)
        s.score({**base, "answer": said.strip(), "points": got}, got == want, kind, why)
        return
    pick, bull_points = deck.pick, deck.bull_points

    def read_bull(line: str) -> list[str] | None:
        if _says_no_bull(line):
            return []
        three = pick(line, hand)
        if len(three) != 3:
            raise ValueError(f"a bull is three of the hand's {deck.size}, not {len(three)}")
        return three

    bull_hint = "name three of the hand, or 'no bull'; 'quit' ends"
    said, three = s.ask(f"hand {i} bull (three of it, or 'no bull')? ", read_bull, bull_hint)
    has_bull = bool(rec.get("has_bull"))
    answer: dict[str, Any] = {**base, "answer_bull": three or None}
    if not three:
        s.score({**answer, "answer": said.strip()}, not has_bull, kind, why)
        return
    said_pts, pts = s.ask(f"hand {i} points? ", read_points, _POINTS_HINT)
    reach = bull_points(hand, three)
    ok = has_bull and want in reach and pts == want
    explain = why
    if not reach:
        explain = f"{' '.join(three)} is not a bull; {why}"
    elif want not in reach:
        explain = f"that bull leaves {' or '.join(map(str, sorted(reach)))}, not the best; {why}"
    s.score({**answer, "answer": said_pts.strip(), "points": pts}, ok, kind, explain)


def _ask_winner(s: _Session, r: dict[str, Any], hands: int) -> None:
    def read(line: str) -> int | None:
        a = line.strip()
        ok = 0 < len(a) <= 2 and all(ch in _DIGITS for ch in a) and 1 <= int(a) <= hands
        return int(a) if ok else None

    said, n = s.ask(f"winner (1-{hands})? ", read, f"type a hand's number 1-{hands}")
    best = r["hands"][0]
    tied = sorted(h["position"] + 1 for h in r["hands"] if _key(h) == _key(best))
    why = best.get("reason") or "the hands tie"
    explain = f"hand {best['position'] + 1} wins ({why})"
    s.score({"winning_hands": tied, "answer": said.strip()}, n in tied, "winner", explain)


def _key(h: dict[str, Any]) -> Any:
    return h.get("strength"), h.get("deng")


def drill_lines(stream: TextIO | BinaryIO | None) -> Iterator[str]:
    """Answer lines from a stream (stripped of the line end; ends at end of input).

    ``None`` (a closed stdin) is an empty input. Lines are read with a bounded length
    (CR, LF and CRLF end one):
    one longer than :data:`MAX_LINE` characters, or not UTF-8, is :data:`UNREADABLE`;
    input that runs on without a line end (``/dev/zero``) ends the answers.

    >>> import io
    >>> list(drill_lines(io.BytesIO(b"7\\n" + b"9" * 5000 + b"\\nno bull")))
    ['7', '\\x00unreadable', 'no bull']
    >>> list(drill_lines(None))
    []
    """
    from solver.core.files import Lines

    lines = Lines(stream, "answers", max_line=MAX_LINE, max_skip=_ENDLESS, endless_ends=True)
    reader = iter(lines)
    while True:
        try:
            raw = next(reader)
        except (OSError, ValueError, StopIteration):  # closed or unreadable: the end
            return
        try:
            text = raw.decode("utf-8") if raw is not None else ""
        except UnicodeDecodeError:
            raw = None
        yield UNREADABLE if raw is None or "\x00" in text else text


def hands_range(n: int, deck: DrillDeck) -> int:
    """Refuse a hand count outside 2..4 or more than the deck deals."""
    from solver.core.errors import BullError

    if not 2 <= n <= 4 or n * deck.size > len(deck.items):
        raise BullError(f"--hands {n}: a drill deals 2 to 4 hands")
    return n
