"""``bull drill``: a terminal trainer, game-blind (issue 14).

Each deal shows 2-4 hands from a seeded shuffle of one deck (or tile set); for every
hand the player types its bull and points (``no bull``, ``7``, ``niu niu`` / ``10``;
Pok Deng: the points), then the winning hand's number. Every answer is checked against
the tables (the game's ``eval`` and ``rank`` records), a wrong one explained in one
line; the score and times are kept and a summary printed at the end: accuracy, the
median time per hand and the kinds of hands missed. Input is read line by line, so a
pipe drives it; end of input or Ctrl-C ends the drill with its summary.

>>> read_points("niu niu"), read_points("No bull"), read_points("bull 7"), read_points("?")
(10, 0, 7, None)
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

__all__ = ["DrillDeck", "DrillSummary", "drill_lines", "hands_range", "read_points", "run_drill"]


@dataclass(frozen=True)
class DrillDeck:
    """What a game's drill deals: ``items`` (card or tile names, one physical item
    each), ``size`` per hand, ``join`` between items, and whether a hand has a bull to
    name (Pok Deng has points only)."""

    items: tuple[str, ...]
    size: int
    join: str = " "
    asks_bull: bool = True


@dataclass(frozen=True)
class DrillSummary:
    """The end of a drill: answers asked and right, seconds per hand, misses by kind."""

    questions: int
    correct: int
    hand_seconds: tuple[float, ...]
    missed: dict[str, int] = field(default_factory=dict)
    reason: str = "end of input"

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


def read_points(answer: str) -> int | None:
    """The points an answer names: 0 for no bull, 10 for niu niu, else its number."""
    a = answer.strip().lower().replace("-", " ")
    if not a:
        return None
    if a.startswith("no") or a in ("none", "0", "x"):
        return 0
    if "niu niu" in a or a in ("nn", "niuniu"):
        return 10
    digits = "".join(ch if ch.isdigit() else " " for ch in a).split()
    return int(digits[0]) if len(digits) == 1 and 0 <= int(digits[0]) <= 10 else None


def _score(rec: dict[str, Any]) -> int:
    if "has_bull" in rec and not rec["has_bull"]:
        return 0
    return int(rec.get("points") or 0)


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
) -> DrillSummary:
    """Deal and ask until ``lines`` ends, Ctrl-C or ``time_limit`` seconds pass."""
    rng = random.Random(seed)
    start = clock()
    asked = right = 0
    seconds: list[float] = []
    missed: Counter[str] = Counter()
    reason = "end of input"

    def ask(prompt: str) -> str | None:
        out.write(prompt)
        out.flush()
        return next(lines, None)

    try:
        deal_no = 0
        while True:
            if time_limit is not None and clock() - start >= time_limit:
                reason = f"time limit {time_limit:g} s"
                break
            deal_no += 1
            items = list(deck.items)
            rng.shuffle(items)
            dealt = [
                deck.join.join(items[i * deck.size : (i + 1) * deck.size]) for i in range(hands)
            ]
            recs = evaluate(dealt)
            out.write(f"deal {deal_no}:\n")
            for i, h in enumerate(dealt, 1):
                out.write(f"  hand {i}: {h}\n")
            t0 = clock()
            for i, rec in enumerate(recs, 1):
                what = "bull and points ('no bull', '7', 'niu niu')" if deck.asks_bull else "points"
                answer = ask(f"hand {i} {what}? ")
                if answer is None:
                    raise EOFError
                asked += 1
                want = _score(rec)
                if read_points(answer) == want:
                    right += 1
                    out.write("  right\n")
                else:
                    missed[str(rec.get("category") or rec.get("type") or want)] += 1
                    out.write(f"  wrong: {explain(rec)}\n")
            r = rank(dealt)
            answer = ask(f"winner (1-{hands})? ")
            if answer is None:
                raise EOFError
            asked += 1
            best = r["hands"][0]
            tied = {h["position"] + 1 for h in r["hands"] if _key(h) == _key(best)}
            if answer.strip().isdigit() and int(answer) in tied:
                right += 1
                out.write("  right\n")
            else:
                missed["winner"] += 1
                why = best.get("reason") or "the hands tie"
                out.write(f"  wrong: hand {best['position'] + 1} wins ({why})\n")
            seconds.append((clock() - t0) / hands)
    except EOFError:
        reason = "end of input"
    except KeyboardInterrupt:
        reason = "interrupted"
    summary = DrillSummary(asked, right, tuple(seconds), dict(missed), reason)
    out.write("\n" + summary.text() + "\n")
    return summary


def _key(h: dict[str, Any]) -> Any:
    return h.get("strength"), h.get("deng")


def drill_lines(stream: TextIO) -> Iterator[str]:
    """Answer lines from a text stream (stripped; ends at end of input)."""
    for line in stream:
        yield line.rstrip("\r\n")


def hands_range(n: int, deck: DrillDeck) -> int:
    """Refuse a hand count outside 2..4 or more than the deck deals."""
    from solver.core.errors import BullError

    if not 2 <= n <= 4 or n * deck.size > len(deck.items):
        raise BullError(f"--hands {n}: a drill deals 2 to 4 hands")
    return n
