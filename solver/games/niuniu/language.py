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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError

__all__ = [
    "BOOL_VARS",
    "INT_VARS",
    "STEPS",
    "CategoryDef",
    "Expr",
    "category_codes",
    "check_reach",
    "classify",
    "compile_hands",
    "expand_keys",
    "features",
    "parse_predicate",
    "parse_ranks",
    "read_categories",
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


# ---------------------------------------------------------------- categories


@dataclass(frozen=True)
class CategoryDef:
    """One category of a rule file: its predicate, rank, comparison and payouts."""

    name: str
    when: str
    rank: int
    by_points: bool = False
    tie: tuple[str, ...] = ()
    multipliers: tuple[tuple[str, int], ...] = ()
    support: int | None = None
    """How many rows of the file it was learned from supported it (inferred files)."""

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "when": self.when, "rank": self.rank}
        if self.by_points:
            out["by_points"] = True
        out["tie"] = list(self.tie)
        out["multipliers"] = dict(self.multipliers)
        if self.support is not None:
            out["support"] = self.support
        return out

    @property
    def predicate(self) -> Expr:
        return _parsed(self.when)

    def key_bits(self) -> int:
        return (4 if self.by_points else 0) + sum(STEPS[s] for s in self.tie)


_PARSED: dict[str, Expr] = {}


def _parsed(text: str) -> Expr:
    e = _PARSED.get(text)
    if e is None:
        e = _PARSED[text] = parse_predicate(text)
    return e


def category_codes(cats: Sequence[CategoryDef], known: Sequence[str]) -> tuple[int, ...]:
    """Each category's code in a table: today's label's code if it has one, else the
    next free code from ``len(known)`` on, in file order."""
    out, nxt = [], len(known)
    for c in cats:
        if c.name in known:
            out.append(known.index(c.name))
        else:
            out.append(nxt)
            nxt += 1
    return tuple(out)


def classify(
    f: Arrays, cats: Sequence[CategoryDef], codes: Sequence[int]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    """Each hand's category code (the first category whose predicate holds) and
    whether any category matched it."""
    n = len(f["rank"])
    out = np.zeros(n, dtype=np.uint8)
    left = np.ones(n, dtype=bool)
    for c, code in zip(cats, codes, strict=True):
        hit = left & evaluate(c.predicate, f)
        out[hit] = code
        left &= ~hit
    return out, ~left


def shift(cats: Sequence[CategoryDef]) -> int:
    """Where the rank sits in a strength: bit 24, or above the longest tie key."""
    return max([24, *(c.key_bits() for c in cats)])


def _step(step: str, f: Arrays, suit_strength: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    rank = f["rank"].astype(np.int32)
    if step == "points":
        return f["points"].astype(np.int32)
    if step in ("highest_card", "suit_of_highest"):
        top = rank.max(axis=1)
        best = np.full(len(rank), -1, dtype=np.int32)
        for i in range(5):
            ss = np.where(rank[:, i] == top, suit_strength[f["suit"][:, i]], -1)
            np.maximum(best, ss, out=best)
        return top * 4 + best if step == "highest_card" else best
    if step == "rank_by_rank":
        order = -np.sort(-rank, axis=1)
    elif step == "pair_rank_then_kicker":
        counts = f["counts"].astype(np.int32)
        per = np.take_along_axis(counts, rank, axis=1)
        key = -(per * 16 + rank)
        order = np.take_along_axis(rank, np.argsort(key, axis=1, kind="stable"), axis=1)
    elif step == "number_of_pairs":
        return np.minimum(f["pairs"], 3).astype(np.int32)
    elif step == "pair_rank":
        rep = f["counts"] >= 2
        top = 12 - np.argmax(rep[:, ::-1], axis=1)
        return np.where(rep.any(axis=1), top + 1, 0).astype(np.int32)
    else:
        return np.zeros(len(rank), dtype=np.int32)
    key = np.zeros(len(rank), dtype=np.int32)
    for i in range(order.shape[1]):
        key = key * 16 + order[:, i]
    return key


def representatives(deck_size: int, decks: int) -> npt.NDArray[np.uint8]:
    """One sorted hand per class the vocabulary can tell apart (rank multiset and
    flush or not) that the deck can deal: checking a predicate on these is checking
    it on every hand."""
    ranks = deck_size // 4
    copies = min(4 * decks, 5)
    rows: list[list[int]] = []

    def walk(start: int, left: int, acc: list[int]) -> None:
        if left == 0:
            rows.append(acc.copy())
            return
        for r in range(start, ranks):
            if acc.count(r) < copies:
                acc.append(r)
                walk(r, left - 1, acc)
                acc.pop()

    walk(0, 5, [])
    out = []
    for rs in rows:
        seen: dict[int, int] = {}
        hand = []
        for r in rs:
            k = seen.get(r, 0)
            seen[r] = k + 1
            hand.append(r * 4 + (k % 4))
        if all(v == 1 for v in seen.values()):
            hand[0] = rs[0] * 4 + 1  # not a flush
            out.append(sorted(hand))
        else:
            out.append(sorted(hand))
        if max(seen.values()) <= decks:  # the flush of these ranks
            out.append(sorted(r * 4 for r in rs))
    return np.array(out, dtype=np.uint8)


# ---------------------------------------------------------------- today's keys as sugar

_SPECIAL_WHEN = {
    "five_faces": "faces == 5",
    "four_of_a_kind": "kind >= 4",
    "straight_flush": "straight(low) and flush",
    "three_of_a_kind": "kind >= 3",
    "straight": "straight(low)",
}
_FOUR_FACES_WHEN = {
    "ten": "faces == 4 and tens == 1",
    "any": "faces == 4",
    "all_ten_valued": "ten_valued == 5 and faces < 5",
}


def expand_keys(
    specials: Sequence[str],
    definitions: Mapping[str, str],
    tie_break: str,
    quads_first: bool,
    on_tie: str,
    bets: Sequence[str],
    rows: Mapping[str, Sequence[int]],
    labels: Sequence[str],
) -> tuple[CategoryDef, ...]:
    """Today's rule keys as categories, highest precedence first: the specials (the
    last listed highest, ranked 11 up), niu niu (10) ... niu 1 (1), no bull (0)."""
    small = "total <= 10" if definitions["five_small_bull_total"] == "at_most_10" else "total < 10"
    if definitions["five_small_bull_max_rank"] == "4":
        small = f'all_in("A-4") and {small}'
    when = dict(_SPECIAL_WHEN, five_small_bull=small)
    when["four_faces"] = _FOUR_FACES_WHEN[definitions["four_faces_fifth"]]
    chain = {
        "highest_card": ("highest_card",),
        "rank_by_rank": ("rank_by_rank", "suit_of_highest"),
        "none": (),
    }[tie_break]

    def make(name: str, pred: str, rank: int) -> CategoryDef:
        tie = chain
        if name == "four_of_a_kind" and quads_first and tie_break == "rank_by_rank":
            tie = ("pair_rank_then_kicker", "suit_of_highest")
        code = labels.index(name)
        mult = tuple((b, int(rows[b][code])) for b in bets)
        pred = show(_parsed(pred))
        return CategoryDef(name, pred, rank, tie=(*tie, on_tie), multipliers=mult)

    out = [make(s, when[s], 11 + i) for i, s in reversed(list(enumerate(specials)))]
    out.append(make("niu_niu", "points == 10", 10))
    out += [make(f"niu_{k}", f"points == {k}", k) for k in range(9, 0, -1)]
    out.append(make("no_bull", "true", 0))
    return tuple(out)


# ---------------------------------------------------------------- reading a rule file

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_RANK = 127


def read_categories(
    entries: Any, source: str, bets: Sequence[str], max_multiplier: int
) -> tuple[tuple[CategoryDef, ...], str | None]:
    """The ``[[categories]]`` of a rule file, checked one by one (a one-line
    :class:`RulesError` naming the category), and the ``push``/``banker`` their tie
    chains end with (``None``: none says)."""
    from solver.core.rules import Reader

    if not isinstance(entries, list) or not entries:
        raise RulesError(f"rule set {source}: field 'categories' must be a list of tables")
    cats: list[CategoryDef] = []
    ends: dict[str, str] = {}
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping):
            raise RulesError(f"rule set {source}: category {i} must be a table")
        r = Reader(entry, source, f"categories[{i}].")
        name = r.string("name")
        where = f"rule set {source}: category {name!r}"
        if not _NAME.match(name):
            raise RulesError(f"{where}: a name is 1-40 lowercase letters, digits or '_'")
        if any(c.name == name for c in cats):
            raise RulesError(f"{where} is defined twice (ambiguous)")
        try:
            pred = show(parse_predicate(r.string("when")))
        except RulesError as exc:
            raise RulesError(f"{where}: malformed predicate 'when': {exc}") from None
        rank = r.integer("rank", minimum=0, maximum=MAX_RANK)
        by_points = r.boolean("by_points", default=False)
        tie = r.string_list("tie", STEPS, unique=True, default=[])
        for s in tie[:-1]:
            if s in ENDS:
                raise RulesError(f"{where}: tie step {s!r} settles the tie: it must come last")
        if tie and tie[-1] in ENDS:
            ends[name] = tie[-1]
        mt = r.table("multipliers", default={})
        mult = []
        for bet in bets:
            mult.append((bet, mt.integer(bet, minimum=0, maximum=max_multiplier, default=1)))
        for key in mt:
            if key not in bets:
                raise RulesError(f"{where}: multipliers name bet {key!r}, not a bet of the file")
        support = r.integer("support", minimum=0, default=None) if r.has("support") else None
        r.done(ignore=())
        cats.append(CategoryDef(name, pred, rank, by_points, tuple(tie), tuple(mult), support))
    if len(set(ends.values())) > 1:
        a = next(n for n, e in ends.items() if e == "push")
        b = next(n for n, e in ends.items() if e == "banker")
        raise RulesError(
            f"rule set {source}: category {a!r} ends its tie chain with push but {b!r} with "
            "banker (ambiguous: every tie chain of one file ends the same way)"
        )
    by_rank: dict[int, CategoryDef] = {}
    for c in cats:
        other = by_rank.setdefault(c.rank, c)
        if other is not c and (other.by_points, _steps(other)) != (c.by_points, _steps(c)):
            raise RulesError(
                f"rule set {source}: category {c.name!r} shares rank {c.rank} with "
                f"{other.name!r} but compares differently (ambiguous)"
            )
    bits = shift(cats)
    top = max(c.rank for c in cats)
    if top >= 1 << (31 - bits):
        raise RulesError(
            f"rule set {source}: category ranks up to {top} do not fit beside tie keys of "
            f"{bits} bits (at most rank {(1 << (31 - bits)) - 1})"
        )
    return tuple(cats), (next(iter(ends.values())) if ends else None)


def _steps(c: CategoryDef) -> tuple[str, ...]:
    return tuple(s for s in c.tie if s not in ENDS)


def check_reach(
    cats: Sequence[CategoryDef], source: str, deck_size: int, decks: int, trips_bull: bool
) -> None:
    """Refuse a category no hand of the deck can reach (it matches none, or every hand it
    matches falls in a category above), and a deck with hands no category takes."""
    from solver.core.cards import CARD_NAMES

    reps = representatives(deck_size, decks)
    f = features(reps, trips_bull)
    codes = tuple(range(len(cats)))
    got, matched = classify(f, cats, codes)
    if not matched.all():
        hand = " ".join(CARD_NAMES[c] for c in reps[int(np.flatnonzero(~matched)[0])])
        raise RulesError(
            f"rule set {source}: no category takes the hand {hand}; "
            'end the list with a catch-all (when = "true")'
        )
    hit = np.bincount(got, minlength=len(cats))
    for i, c in enumerate(cats):
        if hit[i] == 0:
            alone = bool(evaluate(c.predicate, f).any())
            why = (
                "every hand it matches is taken by a category above it"
                if alone
                else ("no hand matches its predicate")
            )
            raise RulesError(f"rule set {source}: category {c.name!r} is unreachable: {why}")


# ---------------------------------------------------------------- compiled per class

_SUITED = ("highest_card", "suit_of_highest")
"""The only steps that look at suits; every other number is a function of the hand's
class (its rank multiset and whether it is a flush)."""
_BASE = 13**5


def _class_key(cards: npt.NDArray[np.integer]) -> npt.NDArray[np.int64]:
    c = np.asarray(cards)
    rank = (c >> 2).astype(np.int64)
    key = np.zeros(len(c), dtype=np.int64)
    for i in range(c.shape[1]):
        key = key * 13 + rank[:, i]
    suit = c & 3
    flush = (suit == suit[:, :1]).all(axis=1)
    return np.asarray(key + flush * _BASE, dtype=np.int64)


@dataclass(frozen=True)
class _Classes:
    reps: npt.NDArray[np.uint8]
    index: npt.NDArray[np.int32]
    f: Arrays


_CLASSES: dict[tuple[int, int, bool], _Classes] = {}


def _classes(deck_size: int, decks: int, trips_bull: bool) -> _Classes:
    key = (deck_size, decks, trips_bull)
    got = _CLASSES.get(key)
    if got is None:
        reps = representatives(deck_size, decks)
        index = np.full(2 * _BASE, -1, dtype=np.int32)
        index[_class_key(reps)] = np.arange(len(reps), dtype=np.int32)
        got = _CLASSES[key] = _Classes(reps, index, features(reps, trips_bull))
    return got


def compile_hands(
    cards: npt.NDArray[np.integer],
    cats: Sequence[CategoryDef],
    codes: Sequence[int],
    suit_strength: Sequence[int],
    deck_size: int,
    decks: int,
    trips_bull: bool,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    """Category codes and strengths of sorted hands (n, 5): every predicate and every
    suit-blind tie step is evaluated once per class (:func:`representatives`, a few
    thousand), then looked up per hand; only the suit steps look at each hand."""
    k = _classes(deck_size, decks, trips_bull)
    cls = k.index[_class_key(cards)]
    if len(cls) and cls.min() < 0:
        raise ValueError("a hand outside the deck's classes")
    cat_of, _ = classify(k.f, cats, codes)
    cat = cat_of[cls]
    ss = np.asarray(suit_strength, dtype=np.int32)
    s = shift(cats)
    # per class: the rank and the suit-blind part of each category's key
    out = np.zeros(len(cls), dtype=np.int32)
    per_class: dict[str, npt.NDArray[np.int32]] = {}
    per_hand: dict[str, npt.NDArray[np.int32]] = {}
    hand_f: Arrays | None = None
    for c, code in zip(cats, codes, strict=True):
        chain = [x for x in (("points",) if c.by_points else ()) + c.tie if STEPS[x]]
        cm = cat_of == code
        if not cm.any():
            continue
        if not any(x in _SUITED for x in chain):
            key_c = np.zeros(len(cat_of), dtype=np.int32)
            for x in chain:
                if x not in per_class:
                    per_class[x] = _step(x, k.f, ss)
                key_c = (key_c << STEPS[x]) | per_class[x]
            table = np.where(cm, (np.int32(c.rank) << s) | key_c, 0).astype(np.int32)
            m = cat == code
            out[m] = table[cls[m]]
            continue
        m = cat == code
        key = np.zeros(int(m.sum()), dtype=np.int32)
        for x in chain:
            if x in _SUITED:
                if hand_f is None:
                    c16 = np.asarray(cards, dtype=np.int16)
                    hand_f = {"rank": c16 >> 2, "suit": c16 & 3}
                if x not in per_hand:
                    per_hand[x] = _step(x, hand_f, ss)
                v = per_hand[x][m]
            else:
                if x not in per_class:
                    per_class[x] = _step(x, k.f, ss)
                v = per_class[x][cls[m]]
            key = (key << STEPS[x]) | v
        out[m] = (np.int32(c.rank) << s) | key
    return cat, out
