"""The Tau Ngau rule language (issue 22): its categories — a bull, compared by score, and
no bull — their order and their payouts, as data.

A rule file may list its categories, in the order they are tested (the first whose
predicate holds is the hand's)::

    [[categories]]
    name = "bull"          # three tiles totalling a multiple of 10
    when = "bull"          # a predicate: bull, true, false, not, and, or
    rank = 1               # the higher rank wins
    by_points = true       # two bulls compare by score
    zero_scores = 10       # what a last digit of 0 scores: 10 (the best) or 0 (the lowest)
    pays = "difference"    # "difference" (the score difference) or 1 (even money)

    [[categories]]
    name = "no_bull"
    when = "true"
    rank = 0
    pays = 4               # under "difference": a number of stakes or "banker_score";
                           # under even money 1 (two hands without a bull push)

Today's keys (``zero_counts_as``, ``settlement``, ``no_bull_pays``) are sugar for it:
:func:`expand` writes any rule set in this form and :func:`read_categories` reads it
back to the same rule set, so every table is byte for byte the one of the keys. The
engine knows these two categories: a file that orders them otherwise, makes a category
unreachable, or pays what the engine cannot settle is a one-line error naming the
category.

>>> data = expand({"zero_counts_as": 0, "settlement": "even_money"})
>>> [(c["name"], c["rank"], c["pays"]) for c in data]
[('bull', 1, 1), ('no_bull', 0, 1)]
>>> read_categories(data, "x")
{'zero_counts_as': 0, 'settlement': 'even_money'}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.core.errors import RulesError
from solver.kit.predicate import Expr, Vocabulary, parse, show

__all__ = ["CATEGORY_NAMES", "SUGAR", "VOCABULARY", "expand", "read_categories"]

VOCABULARY = Vocabulary(bools=("bull", "true", "false"), ints=())
CATEGORY_NAMES = ("bull", "no_bull")
"""The categories a Tau Ngau hand can be."""
SUGAR = ("zero_counts_as", "settlement", "no_bull_pays")
"""Today's keys a file with ``[[categories]]`` says in its categories instead."""
_FIELDS = ("name", "when", "rank", "by_points", "zero_scores", "pays")


def expand(keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Today's keys (``zero_counts_as``, ``settlement``, ``no_bull_pays``) as the two
    categories, in the order they are tested."""
    even = keys["settlement"] == "even_money"
    return [
        {"name": "bull", "when": "bull", "rank": 1, "by_points": True,
         "zero_scores": keys["zero_counts_as"], "pays": 1 if even else "difference"},
        {"name": "no_bull", "when": "true", "rank": 0, "by_points": False,
         "pays": 1 if even else keys["no_bull_pays"]},
    ]  # fmt: skip


def _holds(e: Expr, bull: bool) -> bool:
    """A predicate of the vocabulary on a hand with or without a bull."""
    head = e[0]
    if head == "lit":
        return bool(e[1])
    if head == "var":
        return bull if e[1] == "bull" else e[1] == "true"
    if head == "not":
        return not _holds(e[1], bull)
    parts = [_holds(x, bull) for x in e[1:]]
    return all(parts) if head == "and" else any(parts)


def read_categories(entries: Any, source: str) -> dict[str, Any]:
    """The ``[[categories]]`` of a rule file as today's keys, each category checked (a
    one-line error naming it)."""
    from solver.core.rules import Reader

    if not isinstance(entries, list) or not entries:
        raise RulesError(f"rule set {source}: field 'categories' must be a list of tables")
    cats: dict[str, tuple[int, Reader, Mapping[str, Any]]] = {}
    taken: dict[bool, str] = {}
    for i, entry in enumerate(entries, 1):
        if not isinstance(entry, Mapping):
            raise RulesError(f"rule set {source}: category {i} must be a table")
        r = Reader(entry, source, f"categories[{i}].")
        name = r.string("name", CATEGORY_NAMES)
        where = f"rule set {source}: category {i} ({name!r})"
        if name in cats:
            raise RulesError(f"{where}: listed twice")
        for key in entry:
            if key not in _FIELDS:
                raise RulesError(f"{where}: unknown field {key!r} (expected {', '.join(_FIELDS)})")
        try:
            when = parse(r.string("when"), VOCABULARY)
        except RulesError as exc:
            raise RulesError(f"{where}: malformed predicate 'when': {exc}") from None
        hit = [b for b in (True, False) if b not in taken and _holds(when, b)]
        if not hit:
            raise RulesError(f"{where}: unreachable: 'when = {show(when)}' matches no hand "
                             "the categories before it leave")  # fmt: skip
        for b in hit:
            taken[b] = name
        cats[name] = (i, r, entry)
    for b, want in ((True, "bull"), (False, "no_bull")):
        if taken.get(b) != want:
            held = "a hand with a bull" if b else "a hand without a bull"
            got = f"takes category {taken[b]!r}" if b in taken else "takes no category"
            raise RulesError(f"rule set {source}: ambiguous categories: {held} {got}, "
                             f"not {want!r}")  # fmt: skip
    _, rb, _ = cats["bull"]
    _, rn, _ = cats["no_bull"]
    where_b = f"rule set {source}: category {cats['bull'][0]} ('bull')"
    where_n = f"rule set {source}: category {cats['no_bull'][0]} ('no_bull')"
    if rb.integer("rank") <= rn.integer("rank"):
        raise RulesError(f"{where_b}: must rank above 'no_bull' (a bull beats no bull)")
    if not rb.boolean("by_points", default=True):
        raise RulesError(f"{where_b}: by_points must be true (two bulls compare by score)")
    if rn.boolean("by_points", default=False):
        raise RulesError(f"{where_n}: by_points must be false (a hand without a bull has "
                         "no score)")  # fmt: skip
    zero = rb.integer("zero_scores")
    if zero not in (0, 10):
        raise RulesError(f"{where_b}: zero_scores is {zero}; expected 10 or 0")
    if rn.has("zero_scores"):
        raise RulesError(f"{where_n}: zero_scores applies to 'bull' only")
    pays_b, pays_n = cats["bull"][2].get("pays"), cats["no_bull"][2].get("pays")
    if pays_b == "difference":
        number = isinstance(pays_n, int) and not isinstance(pays_n, bool) and 0 <= pays_n <= 100
        if not number and pays_n != "banker_score":
            raise RulesError(f'{where_n}: pays is {pays_n!r}; expected an integer 0..100 or '
                             '"banker_score" (bull pays the difference)')  # fmt: skip
        out: dict[str, Any] = {"zero_counts_as": zero, "settlement": "difference"}
        out["no_bull_pays"] = pays_n
        return out
    if pays_b == 1 and not isinstance(pays_b, bool):
        if pays_n != 1 or isinstance(pays_n, bool):
            raise RulesError(f"{where_n}: pays is {pays_n!r}; under even money (bull pays 1) "
                             "it must be 1")  # fmt: skip
        return {"zero_counts_as": zero, "settlement": "even_money"}
    raise RulesError(f'{where_b}: pays is {pays_b!r}; expected "difference" or 1 (even money)')
