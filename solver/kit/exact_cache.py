"""Exact figures computed once per rule set and options, cached beside the rule-set
tables (``rules/<name>-<digest>-<code>.json``): e.g. Tau Ngau's exact covariance, minutes
to count and then read in milliseconds."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from solver.kit.exact import fraction_text

__all__ = ["cached_fraction"]


def cached_fraction(
    name: str, key: Mapping[str, Any], compute: Callable[[], Fraction], tables: str | None
) -> Fraction:
    """An exact figure for ``key`` (a rule set and options): read from the cache next to
    the rule-set tables (``rules/<name>-<digest>-<code>.json``), or computed once and
    written there whole."""
    import json

    from solver.core.files import read_text, write_cache
    from solver.store.custom import rule_digest, rule_table_path

    memo = name + rule_digest(key) + (tables or "")
    if memo in _FRACTIONS:
        return _FRACTIONS[memo]
    path = rule_table_path(name, key, tables).with_suffix(".json")
    want = json.loads(json.dumps(dict(key), default=str))
    got = None
    try:
        stored = json.loads(read_text(str(path), "cached figures", 1 << 16))
        if stored.get("key") == want:
            got = Fraction(stored["value"])
    except (OSError, ValueError, AttributeError, KeyError, TypeError, ZeroDivisionError):
        got = None
    if got is None:
        got = compute()
        text = json.dumps({"key": want, "value": fraction_text(got)})
        write_cache(path, text, f"{name}-{rule_digest(key)}-*.json")
    _FRACTIONS[memo] = got
    return got


_FRACTIONS: dict[str, Fraction] = {}
