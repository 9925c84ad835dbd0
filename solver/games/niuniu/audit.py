"""What ``bull audit`` and ``bull deal`` need to know about Niu Niu (a game-blind face).

:func:`audit_spec` returns plain data and vectorised functions: the dealt hand's size,
the deck, what a hand's audited category is and its exact probability (from the
``odds`` room), the exact showdown outcome (from the ``odds`` room's edge), and the
settlement (``play.settle_batch``). ``arrays`` passes the lookup table in (a Spark
executor gets it broadcast) instead of reading it from the store.

The exact figures take seconds to compute (the edge counts every pair of disjoint
hands), so :func:`exact_figures` keeps them on disk, next to the rule-set tables
(``rules/audit-figures-<rule digest>-<code digest>.json``): a later audit under the
same rule set and options, by the same code, reads them back.

>>> s = audit_spec(None, {}, None)
>>> s["labels"][0], s["hand_size"], len(s["deck"])
('no_bull', 5, 52)
>>> int(s["category"](np.array([[8, 24, 48, 16, 20]], dtype=np.uint8))[0])  # 3 7 K | 5 6
1
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError

__all__ = ["audit_spec", "exact_figures"]

_FIGURES: dict[tuple[str, str | None], dict[str, Any]] = {}


def _compute_figures(r: Any, bet: Any, comm: Any, tables: str | None) -> dict[str, Any]:
    from solver.games.niuniu.odds import niuniu_edge, odds

    res = odds(r, tables)
    edge = niuniu_edge(r, bet, comm, tables)
    return {
        "labels": [lb for lb, _ in res.sections["category"]],
        "counts": [int(c) for _, c in res.sections["category"]],
        "total": int(res.totals["category"]),
        "outcome": [str(Fraction(p)) for p in (edge.p_win, edge.p_loss, edge.p_push)],
    }


def _valid(fig: Any) -> bool:
    try:
        return (
            all(isinstance(x, str) for x in fig["labels"])
            and len(fig["counts"]) == len(fig["labels"])
            and all(isinstance(c, int) for c in [*fig["counts"], fig["total"]])
            and len([Fraction(p) for p in fig["outcome"]]) == 3
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False


def exact_figures(r: Any, bet: Any, comm: Any, tables: str | None) -> dict[str, Any]:
    """The audited categories' exact counts (``labels``, ``counts`` of ``total``
    hands) and the exact showdown outcome (``outcome``: P(win), P(loss), P(push) as
    fraction text) under the rule set ``r`` with ``bet`` and commission ``comm``:
    computed once, then read from the cache (see the module docstring)."""
    from solver.store.custom import rule_digest, rule_table_path

    key = {"figures": "niuniu audit", "rules": r.to_data(), "bet": bet, "commission": comm}
    memo = (rule_digest(key), tables)
    if memo in _FIGURES:
        return _FIGURES[memo]
    path = rule_table_path("audit-figures", key, tables).with_suffix(".json")
    fig: Any = None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("key") == json.loads(json.dumps(key, default=str)):
            fig = stored.get("figures")
    except (OSError, ValueError, AttributeError):
        fig = None
    if not _valid(fig):
        fig = _compute_figures(r, bet, comm, tables)
        tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
        try:  # written whole or not at all; a cache that cannot be written is skipped
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"key": key, "figures": fig}, default=str), "utf-8")
            os.replace(tmp, path)
            for older in path.parent.glob(f"audit-figures-{memo[0]}-*.json"):
                if older != path:  # the same figures, kept by other code
                    older.unlink(missing_ok=True)
        except OSError:
            tmp.unlink(missing_ok=True)
    _FIGURES[memo] = fig
    return dict(fig)


def _packed(
    cat: npt.NDArray[Any], raw: npt.NDArray[Any], strength: npt.NDArray[Any]
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int8]] | None:
    """One uint32 per hand, ``strength << 4 | raw category``, and the audited category
    of each raw one: one table gather per hand instead of three (None when the
    values do not fit)."""
    if not len(raw) or raw.min() < 0 or raw.max() > 15 or strength.min() < 0:
        return None
    if int(strength.max()) >= 1 << 28:
        return None
    of_raw = np.full(16, -1, dtype=np.int8)
    of_raw[raw] = cat
    if not (of_raw[raw] == cat).all():  # the audited category is a function of the raw one
        return None
    packed = (strength.astype(np.uint32) << np.uint32(4)) | raw.astype(np.uint32)
    return packed, of_raw


def audit_spec(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """The audit description of Niu Niu under ``rules`` (see the module docstring)."""
    from solver.core.cards import CARD_NAMES
    from solver.core.indexing import batch_lookup
    from solver.games.niuniu.rules import Category, load_rules
    from solver.games.niuniu.source import rules_table
    from solver.kit.parse import parse_card_hands

    r = load_rules(rules)
    if r.decks != 1:
        raise BullError(f"`bull audit` needs a one-deck rule set; {r.name!r} has {r.decks}")
    bet, comm = options.get("bet"), options.get("commission")
    if comm is not None and not 0 <= float(comm) < 1:
        raise BullError(f"commission {comm!r} must be a fraction in [0, 1), e.g. 0.05")
    if arrays is not None and "figures" in arrays:
        fig = json.loads(str(arrays["figures"]))
    else:
        fig = exact_figures(r, bet, comm, tables)
    labels = list(fig["labels"])
    expected = [Fraction(n, fig["total"]) for n in fig["counts"]]
    index = {lb: i for i, lb in enumerate(labels)}
    if arrays is None:
        t = rules_table(r, tables)
        cat = np.asarray(t.column(f"{r.name}_category"))
        strength_col = np.asarray(t.column(f"{r.name}_strength"))
        to_idx = np.full(max(int(c) for c in Category) + 1, -1, dtype=np.int16)
        for c in Category:
            if c.label in index:
                to_idx[int(c)] = index[c.label]
        arrays = {
            "category": to_idx[cat].astype(np.int8),
            "strength": strength_col,
            "raw_category": cat.astype(np.int8),
            "figures": np.array(json.dumps(fig)),
        }
    cat_col, str_col, raw_cat = arrays["category"], arrays["strength"], arrays["raw_category"]
    deck = np.arange(r.deck_size, dtype=np.uint8)  # the 40-card deck: ids of A..10

    def category(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return batch_lookup(ids, [cat_col], check=False)[0].astype(np.int64)

    def strength(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return batch_lookup(ids, [str_col], check=False)[0].astype(np.int64)

    row = np.array(r.multiplier_row(bet), dtype=np.float64)
    cut = 1 - (r.commission if comm is None else float(comm))
    won = row * cut  # what a winning hand of each raw category collects
    lost = -row  # what the player pays to a banker's hand of each raw category
    banker_ties = r.on_tie == "banker"

    def outcome(
        p_str: npt.NDArray[Any], b_str: npt.NDArray[Any], p_raw: Any, b_raw: Any
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        """Winner (0 player, 1 banker, 2 push) and the player's net from the hands'
        strengths and raw categories, as ``play.settle_batch`` settles."""
        win = p_str > b_str
        lose = p_str <= b_str if banker_ties else p_str < b_str
        net = np.where(win, won[p_raw], np.where(lose, lost[b_raw], 0.0))
        winner = 2 - lose.view(np.int8) - 2 * win.view(np.int8)
        return winner.astype(np.int8), net

    def settle(
        player: npt.NDArray[np.uint8], banker: npt.NDArray[np.uint8]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        """Winner and net of each player hand against its banker's (one table gather
        per hand and column)."""
        p_cat, p_str = batch_lookup(player, [raw_cat, str_col], check=False)
        b_cat, b_str = batch_lookup(banker, [raw_cat, str_col], check=False)
        return outcome(p_str, b_str, p_cat, b_cat)

    pk = _packed(cat_col, raw_cat, str_col)
    if pk is None:

        def evaluate(ids: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
            cat, raw, st = batch_lookup(ids, [cat_col, raw_cat, str_col], check=False)
            return {"category": cat, "raw": raw, "strength": st}

        def settle_values(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
            return outcome(p["strength"], b["strength"], p["raw"], b["raw"])

    else:
        packed, of_raw = pk

        def evaluate(ids: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
            """One gather per hand: ``packed`` (strength, raw category), ``category``."""
            v = batch_lookup(ids, [packed], check=False)[0]
            return {"category": of_raw[v & np.uint32(15)], "packed": v}

        def settle_values(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
            """:func:`settle` from the hands' looked-up values (:func:`evaluate`)."""
            pv, bv = p["packed"], b["packed"]
            four, low = np.uint32(4), np.uint32(15)
            return outcome(pv >> four, bv >> four, pv & low, bv & low)

    pw, pl, pp = (Fraction(x) for x in fig["outcome"])
    return {
        "game": "niuniu",
        "rules": r.name,
        "kind": "card",
        "hand_size": 5,
        "sizes": (5,),
        "deck": deck,
        "unit": np.arange(52, dtype=np.int64),
        "unit_names": list(CARD_NAMES),
        "copies": np.ones(52, dtype=np.int64),
        "parse": lambda arr: parse_card_hands(arr, (5,)),
        "labels": labels,
        "expected": expected,
        "bull": [lb != "no_bull" for lb in labels],
        "category": category,
        "strength": strength,
        "outcome": [pw, pl, pp],
        "settle": settle,
        "finish": None,
        "banker_word": "banker",
        "evaluate": evaluate,
        "settle_values": settle_values,
        "arrays": dict(arrays),
    }
