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
    from solver.store.custom import cached_figures, rule_digest, store_figures

    memo = name + rule_digest(key) + (tables or "")
    if memo in _FRACTIONS:
        return _FRACTIONS[memo]
    path, stored = cached_figures(name, key, tables, 1 << 16)
    got = None
    try:
        got = None if stored is None else Fraction(stored["value"])
    except (ValueError, KeyError, TypeError, ZeroDivisionError):
        got = None
    if got is None:
        got = compute()
        store_figures(path, key, {"value": fraction_text(got)})
    _FRACTIONS[memo] = got
    return got


_FRACTIONS: dict[str, Fraction] = {}
