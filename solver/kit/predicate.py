"""Predicates of a rule language (issue 22), game-blind: the grammar — words of a
game's :class:`Vocabulary`, integer literals, ``== != < <= > >=``, ``and``, ``or``,
``not``, parentheses, calls taking a quoted rank set (``all_in("A-4")``) or a word
(``straight(low)``) — parsed and type-checked into a small tree (:data:`Expr`), and
printed back canonically (:func:`show`). Each game says its words and evaluates the
tree over its hands.

>>> v = Vocabulary(bools=("pair",), ints=("points",), calls={"all_in": "bool"})
>>> show(parse("pair and not points >= 8 or all_in('J-K')", v))
"pair and not points >= 8 or all_in('J-K')"
>>> parse("points", v)
Traceback (most recent call last):
...
solver.core.errors.RulesError: 'points' is a number, not a test: use a comparison
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import RulesError

__all__ = ["RANKS", "Expr", "Vocabulary", "combine", "parse", "parse_ranks", "ranks_text", "show"]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

Expr = tuple[Any, ...]
"""A parsed predicate: ``("lit", v)``, ``("var", name)``, ``("call", name, arg)``,
``("not", e)``, ``("and", a, b, ...)``, ``("or", a, b, ...)``, ``("cmp", op, a, b)``."""


@dataclass(frozen=True)
class Vocabulary:
    """A game's words: tests (``bools``), numbers (``ints``), calls (name → ``"bool"``
    or ``"int"``), and for a call taking a word instead of a rank set, its words."""

    bools: tuple[str, ...]
    ints: tuple[str, ...]
    calls: Mapping[str, str] = field(default_factory=dict)
    word_calls: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


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


def ranks_text(ranks: tuple[int, ...]) -> str:
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
    def __init__(self, text: str, vocab: Vocabulary) -> None:
        self.text = text
        self.vocab = vocab
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
            if text in self.vocab.calls:
                if self.take()[1] != "(":
                    raise self.fail(self.toks[self.i - 1], f": {text} takes an argument (...)")
                arg = self.take()
                close = self.take()
                if close[1] != ")":
                    raise self.fail(close, ", expected ')'")
                if text in self.vocab.word_calls:
                    words = self.vocab.word_calls[text]
                    if arg[1] not in words:
                        raise self.fail(arg, f": {text} takes {', '.join(words)}")
                    return ("call", text, arg[1])
                if arg[0] != "str":
                    raise self.fail(arg, f': {text} takes a quoted rank set, e.g. "A-4"')
                return ("call", text, parse_ranks(arg[1][1:-1]))
            if text in self.vocab.bools or text in self.vocab.ints:
                return ("var", text)
            v = self.vocab
            raise RulesError(
                f"unknown word {text!r} at column {t[2]}; expected one of: "
                + ", ".join([*v.bools, *v.ints, *v.calls, "and", "or", "not"])
            )
        raise self.fail(t)


def _type(e: Expr, vocab: Vocabulary) -> str:
    head = e[0]
    if head == "lit":
        return "bool" if isinstance(e[1], bool) else "int"
    if head == "var":
        return "bool" if e[1] in vocab.bools else "int"
    if head == "call":
        return vocab.calls[e[1]]
    if head == "cmp":
        for side in e[2:]:
            if _type(side, vocab) != "int":
                raise RulesError(f"'{show(side)}' is not a number: it cannot be compared")
        return "bool"
    for part in e[1:]:
        if _type(part, vocab) != "bool":
            raise RulesError(f"'{show(part)}' is a number, not a test: use a comparison")
    return "bool"


def parse(text: str, vocab: Vocabulary) -> Expr:
    """Parse and type-check a predicate over ``vocab`` (a one-line :class:`RulesError`
    if malformed)."""
    if not isinstance(text, str) or not text.strip():
        raise RulesError("a predicate must be a non-empty string")
    p = _Parser(text, vocab)
    e = p.expr()
    if p.peek() is not None:
        raise p.fail(p.peek())
    if _type(e, vocab) != "bool":
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
        arg = e[2] if isinstance(e[2], str) else f"'{ranks_text(e[2])}'"
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


def combine(e: Expr, f: Any, evaluate: Callable[[Expr, Any], npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """The game-blind part of evaluating a predicate over arrays of hand features ``f``:
    ``not``, a comparison, ``and``, ``or`` (each game's ``evaluate`` does the rest and
    passes itself for the operands).

    >>> lit = lambda e, f: np.asarray(f[e[1]])
    >>> combine(("and", ("var", "a"), ("var", "b")), {"a": [True, True], "b": [True, False]}, lit)
    array([ True, False])
    """
    head = e[0]
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
