"""The Niu Niu rule language: categories, their precedence, tie chains and multipliers
as data (issue 22).

A rule file may list its categories, highest precedence first::

    [[categories]]
    name = "bull_pair"                 # a name of its own, or one of today's labels
    when = "bull and bull_pair"        # a predicate (the vocabulary below)
    rank = 11                          # higher beats lower; equal ranks compare alike
    by_points = false                  # compare by points before the tie chain
    tie = ["rank_by_rank", "push"]     # named steps; a last "push"/"banker" settles
    multipliers = {standard = 5}       # per bet; a bet not named pays 1

A hand takes the **first** category whose predicate holds (its precedence); categories
then compare by ``rank``. Today's rule keys (``specials``, ``tie_break``,
``special_definitions``, ``[multipliers.BET]``...) are sugar: :func:`expand` writes any
rule set in this form, and the expanded form builds byte-identical table columns.

**Predicate vocabulary** (every one a function of the hand's ranks, values and
whether it is a flush):

=================  ====  ==========================================================
``bull``           bool  some three cards make a bull (under the file's bull rule)
``points``         int   0 (no bull), 1..9, 10 (niu niu)
``bull_pair``      bool  some bull leaves two cards of one rank
``faces``          int   how many J, Q, K
``tens``           int   how many 10s
``ten_valued``     int   how many 10, J, Q, K
``total``          int   the five card values summed (A = 1, 10/J/Q/K = 10)
``kind``           int   the most cards of one rank (4: four of a kind)
``pairs``          int   how many ranks appear two or more times
``cards``          int   how many cards (5)
``flush``          bool  every card one suit
``straight(A)``    bool  five consecutive ranks; A = ``low`` (A-2-3-4-5 up),
                         ``high`` (10-J-Q-K-A only with the ace), ``both``
``all_in("R")``    bool  every card's rank in the set R (``"A-4"``, ``"10 J Q K"``)
``count_in("R")``  int   how many cards have a rank in R
``true``/``false`` bool
=================  ====  ==========================================================

with integer literals, ``== != < <= > >=``, ``and``, ``or``, ``not`` and parentheses.

**Tie steps** (in order, until one differs): ``points``, ``highest_card`` (rank, then
suit in ``suit_order``), ``rank_by_rank`` (ranks high to low), ``suit_of_highest``,
``pair_rank_then_kicker`` (ranks by how often they appear, then high to low: a quad's or
pair's rank first, then the kickers), ``number_of_pairs``, ``pair_rank`` (the highest
repeated rank), and a last ``push`` or ``banker`` (what a tie that survives does; every
chain of one file ends the same way, the ``on_tie`` of the file).

>>> p = parse_predicate("bull and (bull_pair or faces >= 4)")
>>> show(p)
'bull and (bull_pair or faces >= 4)'
>>> show(parse_predicate('not all_in("A-4") or total<=10'))
"not all_in('A-4') or total <= 10"
>>> parse_predicate("faces >> 2")
Traceback (most recent call last):
...
solver.core.errors.RulesError: unexpected '>' at column 8
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError

__all__ = [
    "BOOL_VARS",
    "ENDS",
    "INT_VARS",
    "STEPS",
    "Expr",
    "evaluate",
    "features",
    "parse_predicate",
    "parse_ranks",
    "show",
]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

BOOL_VARS = ("bull", "bull_pair", "flush", "true", "false")
INT_VARS = ("points", "faces", "tens", "ten_valued", "total", "kind", "pairs", "cards")
_CALLS = {"all_in": "bool", "count_in": "int", "straight": "bool"}
_ACES = ("low", "high", "both")

STEPS: Mapping[str, int] = {
    "points": 4,
    "highest_card": 6,
    "rank_by_rank": 20,
    "suit_of_highest": 2,
    "pair_rank_then_kicker": 20,
    "number_of_pairs": 2,
    "pair_rank": 4,
    "push": 0,
    "banker": 0,
}
"""Every tie step and the bits its key takes in a strength."""
ENDS = ("push", "banker")

Expr = tuple[Any, ...]
"""A parsed predicate: ``("lit", v)``, ``("var", name)``, ``("call", name, arg)``,
``("not", e)``, ``("and", a, b, ...)``, ``("or", a, b, ...)``, ``("cmp", op, a, b)``."""


def parse_ranks(text: str) -> tuple[int, ...]:
    """A rank set: names or ranges, space or comma separated, as sorted rank ids.

    >>> parse_ranks("A-4"), parse_ranks("10 J Q K"), parse_ranks("2, 9-10")
    ((0, 1, 2, 3), (9, 10, 11, 12), (1, 8, 9))
    """
    out: set[int] = set()
    for part in re.split(r"[\s,]+", text.strip().upper()):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        if lo not in RANKS or (hi and hi not in RANKS):
            raise RulesError(f"{part!r} is not a rank or a range of ranks (A 2..10 J Q K)")
        a, b = RANKS.index(lo), RANKS.index(hi or lo)
        if b < a:
            raise RulesError(f"rank range {part!r} runs backwards")
        out.update(range(a, b + 1))
    if not out:
        raise RulesError("an empty rank set")
    return tuple(sorted(out))


def _ranks_text(ranks: tuple[int, ...]) -> str:
    parts, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        a, b = RANKS[ranks[i]], RANKS[ranks[j]]
        parts.append(a if i == j else f"{a}-{b}" if j > i + 1 else f"{a} {b}")
        i = j + 1
    return " ".join(parts)


_TOKEN = re.compile(r"""\s*(?:(\d+)|([A-Za-z_]\w*)|("[^"]*"|'[^']*')|(==|!=|<=|>=|<|>|\(|\)))""")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                col = pos + len(text[pos:]) - len(text[pos:].lstrip()) + 1
                raise RulesError(f"unexpected {text[col - 1]!r} at column {col}")
            kind = "num" if m.group(1) else "name" if m.group(2) else "str" if m.group(3) else "op"
            self.toks.append((kind, m.group(m.lastindex or 0), m.start(m.lastindex or 0) + 1))
            pos = m.end()
        self.i = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str, int]:
        t = self.peek()
        if t is None:
            raise RulesError("the predicate ends too early")
        self.i += 1
        return t

    def fail(self, t: tuple[str, str, int] | None, what: str = "") -> RulesError:
        if t is None:
            return RulesError(f"the predicate ends too early{what}")
        return RulesError(f"unexpected {t[1]!r} at column {t[2]}{what}")

    def expr(self) -> Expr:
        parts = [self.conj()]
        while (t := self.peek()) and t[:2] == ("name", "or"):
            self.take()
            parts.append(self.conj())
        return parts[0] if len(parts) == 1 else ("or", *parts)

    def conj(self) -> Expr:
        parts = [self.neg()]
        while (t := self.peek()) and t[:2] == ("name", "and"):
            self.take()
            parts.append(self.neg())
        return parts[0] if len(parts) == 1 else ("and", *parts)

    def neg(self) -> Expr:
        t = self.peek()
        if t and t[:2] == ("name", "not"):
            self.take()
            return ("not", self.neg())
        return self.cmp()

    def cmp(self) -> Expr:
        a = self.atom()
        t = self.peek()
        if t and t[0] == "op" and t[1] in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", t[1], a, self.atom())
        return a

    def atom(self) -> Expr:
        t = self.take()
        kind, text, _ = t
        if kind == "num":
            return ("lit", int(text))
        if kind == "op" and text == "(":
            e = self.expr()
            if self.take()[1] != ")":
                raise self.fail(self.toks[self.i - 1], ", expected ')'")
            return e
        if kind == "name":
            if text in ("true", "false"):
                return ("lit", text == "true")
            if text in _CALLS:
                if self.take()[1] != "(":
                    raise self.fail(self.toks[self.i - 1], f": {text} takes an argument (...)")
                arg = self.take()
                close = self.take()
                if close[1] != ")":
                    raise self.fail(close, ", expected ')'")
                if text == "straight":
                    if arg[1] not in _ACES:
                        raise self.fail(arg, ": straight takes low, high or both")
                    return ("call", text, arg[1])
                if arg[0] != "str":
                    raise self.fail(arg, f': {text} takes a quoted rank set, e.g. "A-4"')
                return ("call", text, parse_ranks(arg[1][1:-1]))
            if text in BOOL_VARS or text in INT_VARS:
                return ("var", text)
            raise RulesError(
                f"unknown word {text!r} at column {t[2]}; expected one of: "
                + ", ".join([*BOOL_VARS, *INT_VARS, *_CALLS, "and", "or", "not"])
            )
        raise self.fail(t)


def _type(e: Expr) -> str:
    head = e[0]
    if head == "lit":
        return "bool" if isinstance(e[1], bool) else "int"
    if head == "var":
        return "bool" if e[1] in BOOL_VARS else "int"
    if head == "call":
        return _CALLS[e[1]]
    if head == "cmp":
        for side in e[2:]:
            if _type(side) != "int":
                raise RulesError(f"'{show(side)}' is not a number: it cannot be compared")
        return "bool"
    for part in e[1:]:
        if _type(part) != "bool":
            raise RulesError(f"'{show(part)}' is a number, not a test: use a comparison")
    return "bool"


def parse_predicate(text: str) -> Expr:
    """Parse and type-check a predicate (a one-line :class:`RulesError` if malformed)."""
    if not isinstance(text, str) or not text.strip():
        raise RulesError("a predicate must be a non-empty string")
    p = _Parser(text)
    e = p.expr()
    if p.peek() is not None:
        raise p.fail(p.peek())
    if _type(e) != "bool":
        raise RulesError(f"'{show(e)}' is a number, not a test: use a comparison")
    return e


def show(e: Expr, parent: str = "") -> str:
    """The canonical text of a predicate (parses back to the same tree)."""
    head = e[0]
    if head == "lit":
        return str(e[1]).lower() if isinstance(e[1], bool) else str(e[1])
    if head == "var":
        return str(e[1])
    if head == "call":
        arg = e[2] if e[1] == "straight" else f"'{_ranks_text(e[2])}'"
        return f"{e[1]}({arg})"
    if head == "cmp":
        return f"{show(e[2], 'cmp')} {e[1]} {show(e[3], 'cmp')}"
    if head == "not":
        return f"not {show(e[1], 'not')}"
    text = f" {head} ".join(show(x, head) for x in e[1:])
    binds = {"or": 0, "and": 1}
    if parent in ("not", "cmp") or (parent in binds and binds[parent] > binds[head]):
        return f"({text})"
    return text


# ---------------------------------------------------------------- evaluation

Arrays = dict[str, npt.NDArray[Any]]


def features(cards: npt.NDArray[np.integer], trips_bull: bool = False) -> Arrays:
    """The vocabulary's numbers for sorted hands (n, 5), as arrays."""
    c = np.asarray(cards, dtype=np.int16)
    rank = c >> 2
    suit = c & 3
    value = np.minimum(rank + 1, 10)
    total = value.sum(axis=1)
    n = len(c)
    ok = np.zeros((n, 10), dtype=bool)
    rest_pair = np.zeros((n, 10), dtype=bool)
    reach = np.zeros((n, 10), dtype=np.int16)
    for t, tri in enumerate(combinations(range(5), 3)):
        a, b, d = tri
        x, y = (i for i in range(5) if i not in tri)
        s = value[:, a] + value[:, b] + value[:, d]
        good = s % 10 == 0
        if trips_bull:
            good |= (rank[:, a] == rank[:, b]) & (rank[:, b] == rank[:, d])
        ok[:, t] = good
        reach[:, t] = np.where(good, (value[:, x] + value[:, y] - 1) % 10 + 1, 0)
        rest_pair[:, t] = rank[:, x] == rank[:, y]
    points = reach.max(axis=1)
    best = ok & (reach == points[:, None]) & (points[:, None] > 0)
    counts = np.stack([(rank == r).sum(axis=1) for r in range(13)], axis=1).astype(np.int16)
    return {
        "rank": rank,
        "suit": suit,
        "counts": counts,
        "bull": points > 0,
        "points": points,
        "bull_pair": (best & rest_pair).any(axis=1),
        "faces": (rank >= 10).sum(axis=1),
        "tens": (rank == 9).sum(axis=1),
        "ten_valued": (rank >= 9).sum(axis=1),
        "total": total,
        "kind": counts.max(axis=1),
        "pairs": (counts >= 2).sum(axis=1),
        "cards": np.full(n, c.shape[1], dtype=np.int16),
        "flush": (suit == suit[:, :1]).all(axis=1),
        "true": np.ones(n, dtype=bool),
        "false": np.zeros(n, dtype=bool),
    }


def _straight(f: Arrays, ace: str) -> npt.NDArray[np.bool_]:
    rank = f["rank"]
    distinct = f["kind"] == 1
    low = distinct & (rank.max(axis=1) - rank.min(axis=1) == 4)
    if ace == "low":
        return np.asarray(low)
    high = distinct & (f["counts"][:, [0, 9, 10, 11, 12]] == 1).all(axis=1)
    return np.asarray(high if ace == "high" else low | high)


def evaluate(e: Expr, f: Arrays) -> npt.NDArray[Any]:
    """A predicate (or a number in it) over hands' :func:`features`."""
    head = e[0]
    n = len(f["rank"])
    if head == "lit":
        return np.full(n, e[1], dtype=bool if isinstance(e[1], bool) else np.int16)
    if head == "var":
        return f[e[1]]
    if head == "call":
        if e[1] == "straight":
            return _straight(f, e[2])
        inside = f["counts"][:, list(e[2])].sum(axis=1)
        return np.asarray(inside == 5 if e[1] == "all_in" else inside)
    if head == "not":
        return ~evaluate(e[1], f)
    if head == "cmp":
        a, b = evaluate(e[2], f), evaluate(e[3], f)
        ops = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal}
        ops |= {">": np.greater, ">=": np.greater_equal}
        return np.asarray(ops[e[1]](a, b))
    parts = [evaluate(x, f) for x in e[1:]]
    out = parts[0].copy()
    for p in parts[1:]:
        out = (out & p) if head == "and" else (out | p)
    return out
