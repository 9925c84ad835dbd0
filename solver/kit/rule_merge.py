"""Merging two changes of one list of rule items (a rule file's specials, a suit
order, Pok Deng's ``[[types]]``): what :func:`~solver.kit.diagnosis.combine` does with a
list both causes of a pair change."""

from __future__ import annotations

from typing import Any

__all__ = ["merge_list"]


def merge_list(a: list[Any], b: list[Any], base: list[Any]) -> list[Any] | None:
    """``base`` with the additions and removals of both ``a`` and ``b`` (each made from
    ``base``); ``None`` when both reorder it (a conflict). Items may be tables (a rule
    file's ``[[types]]``): a changed one is a removal and an addition at its place.

    >>> base = [{"t": "pok"}, {"t": "tong", "d": 5}, {"t": "straight"}, {"t": "normal"}]
    >>> a = [base[0], base[1], base[3]]                        # drops the straight
    >>> b = [base[0], {"t": "tong", "d": 3}, base[2], base[3]]  # Tong paid 3
    >>> merge_list(a, b, base)
    [{'t': 'pok'}, {'t': 'tong', 'd': 3}, {'t': 'normal'}]
    >>> merge_list([base[0], {"t": "tong", "d": 1}, *base[2:]], b, base) is None
    True
    """
    if any(isinstance(x, (dict, list)) for x in (*a, *b, *base)):
        import json

        def key(x: Any) -> str:
            return json.dumps(x, sort_keys=True)

        ka, kb, k0 = [key(x) for x in a], [key(x) for x in b], [key(x) for x in base]
        if (set(k0) - set(ka)) & (set(k0) - set(kb)) and set(ka) - set(k0) and set(kb) - set(k0):
            return None  # both change one table, each its own way
        items = {key(x): x for x in (*base, *a, *b)}
        got = merge_list(ka, kb, k0)
        return None if got is None else [items[k] for k in got]
    a_reorders = set(a) == set(base) and a != base
    b_reorders = set(b) == set(base) and b != base
    if (a_reorders and b != base) or (b_reorders and a != base):
        return None
    out = [x for x in a if x in b or x not in base]  # removals of b, additions of a
    for i, x in enumerate(b):
        if x in out or x in base:
            continue
        before = [y for y in b[:i] if y in out]
        out.insert(out.index(before[-1]) + 1 if before else 0, x)
    return out
