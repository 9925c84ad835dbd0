"""What ``bull audit`` and ``bull deal`` need to know about Niu Niu (a game-blind face).

:func:`audit_spec` returns plain data and vectorised functions: the dealt hand's size,
the deck, what a hand's audited category is and its exact probability (from the
``odds`` room), the exact showdown outcome (from the ``odds`` room's edge) and the
distribution of the player's net (:func:`net_distribution`), and the settlement (as
``play.settle_batch`` settles). ``arrays`` passes the lookup table in (a Spark executor
gets it broadcast) instead of reading it from the store.

A shoe rule set (``decks`` = N > 1, e.g. ``shoe6``) is audited too: the deck holds every
card N times, a hand is looked up by its multiset rank in the rule set's table (every
5-multiset), the figures are those of hands dealt from the full shoe (the table's
``weight``; the edge's ``shoe_matchups``), and N + 1 copies of a card in one round are
an impossible deal.

The exact figures take seconds to compute (the edge counts every pair of disjoint
hands; from a shoe, under a minute), so :func:`exact_figures` keeps them on disk, next
to the rule-set tables (``rules/audit-figures-<rule digest>-<code digest>.json``): a
later audit under the same rule set and options, by the same code, reads them back.

>>> s = audit_spec(None, {}, None)
>>> s["labels"][0], s["hand_size"], len(s["deck"])
('no_bull', 5, 52)
>>> int(s["category"](np.array([[8, 24, 48, 16, 20]], dtype=np.uint8))[0])  # 3 7 K | 5 6
1
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError
from solver.games.niuniu.audit_gather import arrow, gather, hand_values

__all__ = ["audit_spec", "exact_figures", "hand_space"]

_FIGURES: dict[tuple[str, str | None], dict[str, Any]] = {}


def net_distribution(r: Any, mu: Any, bet: str, c: Fraction) -> list[tuple[Fraction, Fraction]]:
    """The exact distribution of the player's net over every ordered pair of hands the
    matchup counts ``mu`` cover (:func:`~solver.games.niuniu.odds.matchups_of`, any
    deck or shoe; or their sums by category, :func:`~solver.games.niuniu.odds.niuniu_sums`)
    for ``bet`` with commission ``c``: (amount, probability) by amount.

    A win with a hand of category k pays ``m_k (1 - c)``; a loss to a banker hand of
    category k costs ``m_k``; an equal showdown is a push (``on_tie = "banker"``: a loss
    of ``m_k``, equal hands having one category). The player's wins by his category are
    counted directly; his losses by the banker's category equal them, the two hands
    being exchangeable (an ordered pair and its swap are dealt equally often).
    """
    from solver.games.niuniu.matchups import MatchupSums, sums_of

    mult = [int(m) for m in r.multiplier_row(bet)]
    sums = mu if isinstance(mu, MatchupSums) else sums_of(mu, r.n_codes)
    wins, ties, ncat = sums.wins, sums.ties, len(sums.wins)
    banker_ties = r.on_tie == "banker"
    counts: dict[Fraction, int] = {}
    for k in range(ncat):
        for amount, n in (
            ((1 - c) * mult[k], wins[k]),
            (Fraction(-mult[k]), wins[k]),
            (Fraction(-mult[k] if banker_ties else 0), ties[k]),
        ):
            if n:
                counts[amount] = counts.get(amount, 0) + n
    pairs = sums.pairs
    if sum(counts.values()) != pairs:
        raise AssertionError("the net counts do not add up to every pair")
    return [(a, Fraction(n, pairs)) for a, n in sorted(counts.items())]


def _compute_figures(r: Any, bet: Any, comm: Any, tables: str | None) -> dict[str, Any]:
    from solver.games.niuniu.odds import edge_of, niuniu_sums, odds
    from solver.kit.exact import exact_commission

    res = odds(r, tables)
    c = exact_commission(comm, r.commission)
    bet_name = r.bet(bet)
    mu = niuniu_sums(r, tables)
    edge = edge_of(r, mu, bet_name, c)
    net = net_distribution(r, mu, bet_name, c)
    if sum(a * p for a, p in net) != edge.ev or sum(p for a, p in net if a > 0) != edge.p_win:
        raise AssertionError("the net distribution disagrees with the exact edge")
    return {
        "labels": [lb for lb, _ in res.sections["category"]],
        "counts": [int(c) for _, c in res.sections["category"]],
        "total": int(res.totals["category"]),
        "outcome": [str(Fraction(p)) for p in (edge.p_win, edge.p_loss, edge.p_push)],
        "net": [[str(a), str(p)] for a, p in net],
    }


def _valid(fig: Any) -> bool:
    try:
        return (
            all(isinstance(x, str) for x in fig["labels"])
            and len(fig["counts"]) == len(fig["labels"])
            and all(isinstance(c, int) for c in [*fig["counts"], fig["total"]])
            and len([Fraction(p) for p in fig["outcome"]]) == 3
            and sum(Fraction(p) for _, p in fig["net"]) == 1
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False


def exact_figures(r: Any, bet: Any, comm: Any, tables: str | None) -> dict[str, Any]:
    """The audited categories' exact counts (``labels``, ``counts`` of ``total``
    hands), the exact showdown outcome (``outcome``: P(win), P(loss), P(push) as
    fraction text) and the player's net (``net``: [amount, probability] pairs) under
    the rule set ``r`` with ``bet`` and commission ``comm``: computed once, then read
    from the cache (see the module docstring)."""
    from solver.store.custom import cached_figures, rule_digest, store_figures

    key = {"figures": "niuniu audit 2", "rules": r.to_data(), "bet": bet, "commission": comm}
    memo = (rule_digest(key), tables)
    if memo in _FIGURES:
        return _FIGURES[memo]
    path, stored = cached_figures("audit-figures", key, tables, 1 << 24)
    fig: Any = None if stored is None else stored.get("figures")
    if not _valid(fig):
        fig = _compute_figures(r, bet, comm, tables)
        store_figures(path, key, {"figures": fig})
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


_GRID = 2048
"""The most distinct hand values for which the settlement of every pair is one table."""


def _grid(
    strength: npt.NDArray[Any], raw: npt.NDArray[Any], k: int, banker_ties: bool, n: int
) -> npt.NDArray[np.uint8]:
    """Of every pair of hand values (player's x banker's, flattened): the cell of its
    settlement, ``raw`` for a player win with a hand of that raw category, ``n + raw``
    for a loss to the banker's, ``2n`` for a push (``n`` raw categories)."""
    ps, bs = strength[:, None], strength[None, :]
    win = ps > bs
    lose = ps <= bs if banker_ties else ps < bs
    cell = np.where(win, raw[:, None], np.where(lose, n + raw[None, :], 2 * n))
    return cell.astype(np.uint8).reshape(k * k)


def hand_space(rules: Any) -> dict[str, Any]:
    """What Niu Niu deals under ``rules``: the part of :func:`audit_spec` that reads no
    table and no figure (the kind of item, the hand sizes, the deck's items, their
    units, the units' names and copies; ``bull probe`` asks its questions from it).

    >>> s = hand_space("classic")
    >>> s["kind"], s["sizes"], len(s["deck"]), int(s["copies"][0])
    ('card', (5,), 52, 1)
    """
    from solver.core.cards import CARD_NAMES
    from solver.games.niuniu.rules import NiuNiuRules, load_rules

    r = rules if isinstance(rules, NiuNiuRules) else load_rules(rules)
    decks = int(r.decks)
    return {
        "kind": "card",
        "hand_size": 5,
        "sizes": (5,),
        # the 40-card deck: ids of A..10; a shoe: every card `decks` times
        "deck": np.repeat(np.arange(r.deck_size, dtype=np.uint8), decks),
        "unit": np.arange(52, dtype=np.int64),
        "unit_names": list(CARD_NAMES),
        "copies": np.full(52, decks, dtype=np.int64),
    }


@dataclass(frozen=True)
class _Dense:
    """The distinct hand values' dense codes (see :func:`_make_codes`)."""

    code_of: npt.NDArray[np.uint16]
    v_raw: npt.NDArray[np.int64]
    v_cat: npt.NDArray[np.int8]
    v_str: npt.NDArray[np.intp]
    k: int
    grid: npt.NDArray[np.uint8] | None
    both: npt.NDArray[np.uint16] | None
    shift: int


@dataclass(frozen=True)
class _Codes:
    """The hands' values coded for the audit's gathers (see :func:`_codes`)."""

    packed: npt.NDArray[np.uint32] | None  # (read only when ``dense`` is None)
    of_raw: npt.NDArray[np.int8]
    dense: _Dense | None  # None: more values than a uint16 code holds


_CODES: dict[tuple[str, str | None], _Codes | None] = {}
"""The last few rule sets' codes in this process, by their key (see :func:`_codes`)."""
CODES_VERSION = "niuniu audit codes 1"
"""Part of the codes' key on disk: a change of their layout gives a new key."""


def _codes(
    key: Mapping[str, Any],
    tables: str | None,
    columns: Callable[[], tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]],
    banker_ties: bool,
    n_raw: int,
) -> _Codes | None:
    """:func:`_make_codes` of the rule set's table ``columns`` (category, raw category,
    strength: read only when needed), kept on disk beside the rule-set tables
    (``rules/audit-codes-<digest>-<code>.npz``, for the rule set, audited labels and
    settlement of ``key``, by the same code) and for this process: the sort and the
    search over every hand (and the read of two table columns) are done once, not at
    the start of every audit."""
    from solver.store.custom import rule_digest, rule_table_path

    memo = (rule_digest(key), tables)
    if memo in _CODES:
        return _CODES[memo]
    path = rule_table_path("audit-codes", key, tables).with_suffix(".npz")
    want = json.dumps(dict(key), sort_keys=True, default=str)
    kept = _read_codes(path, want)
    if kept is None:
        got = _make_codes(*columns(), banker_ties, n_raw)
        _write_codes(path, want, got)
    else:
        got = kept[0]
    while len(_CODES) >= 3:
        _CODES.pop(next(iter(_CODES)))
    _CODES[memo] = got
    return got


def _read_codes(path: Path, want: str) -> tuple[_Codes | None] | None:
    """The codes stored at ``path`` for the key ``want``, in a tuple (the codes are None
    for values that do not pack); None: none, another key's, or not whole (a member's
    checksum, a dtype or a code out of range)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            a = {name: z[name] for name in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    try:
        if str(a["key"]) != want:
            return None
        if "none" in a:
            return (None,)
        of_raw = a["of_raw"].astype(np.int8)
        if "packed" in a:  # more hand values than a uint16 code holds
            return (_Codes(a["packed"].astype(np.uint32), of_raw, None),)
        k, shift = int(a["k"]), int(a["shift"])
        v_raw, v_cat, v_str = a["v_raw"], a["v_cat"], a["v_str"]
        hand = a["hand"]
        ok = hand.dtype == np.uint16 and len(hand) > 0
        ok = ok and len(v_raw) == len(v_cat) == len(v_str) == k
        both = hand if "both" in a else None
        code_of = hand & np.uint16((1 << shift) - 1) if both is not None else hand
        grid = a.get("grid")
        if not ok or int(code_of.max()) >= k or (grid is not None and len(grid) != k * k):
            return None
    except (KeyError, ValueError, TypeError):
        return None
    dense = _Dense(
        code_of, v_raw.astype(np.int64), v_cat.astype(np.int8), v_str.astype(np.intp), k,
        None if grid is None else grid.astype(np.uint8), both, shift,
    )  # fmt: skip
    return (_Codes(None, of_raw, dense),)


def _write_codes(path: Path, key: str, codes: _Codes | None) -> None:
    """``codes`` written to ``path`` whole or not at all (a temporary file renamed), the
    same codes of other code (another code digest in the name) removed; a cache that
    cannot be written is skipped."""
    arrays: dict[str, Any] = {"key": np.array(key)}
    d = None if codes is None else codes.dense
    if codes is None:
        arrays["none"] = np.array(True)
    elif d is None:
        arrays |= {"packed": codes.packed, "of_raw": codes.of_raw}
    else:
        arrays["of_raw"] = codes.of_raw
        arrays |= {"k": np.array(d.k), "shift": np.array(d.shift), "v_raw": d.v_raw,
                   "v_cat": d.v_cat, "v_str": d.v_str}  # fmt: skip
        arrays["hand"] = d.code_of if d.both is None else d.both
        if d.both is not None:
            arrays["both"] = np.array(True)
        if d.grid is not None:
            arrays["grid"] = d.grid
    from solver.store.custom import store_cached

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)

    store_cached(path, write)


def _make_codes(
    cat: npt.NDArray[Any],
    raw: npt.NDArray[Any],
    strength: npt.NDArray[Any],
    banker_ties: bool,
    n_raw: int,
) -> _Codes | None:
    """Each hand's value (strength, raw category) as one uint32 (None when they do not
    pack) and, when the distinct values fit a uint16, their dense codes (with the
    audited category in the top bits when it fits too), and the settlement grid of
    every pair of codes when they are few."""
    pk = _packed(cat, raw, strength)
    if pk is None:
        return None
    packed, of_raw = pk
    values = np.unique(packed)  # (a sort, then a search: twice as fast as an inverse)
    if len(values) > 1 << 16:
        return _Codes(packed, of_raw, None)
    code_of = np.searchsorted(values, packed).astype(np.uint16)  # its value, densely
    v_raw = (values & np.uint32(15)).astype(np.int64)
    v_cat = of_raw[v_raw]
    v_str = np.unique(values >> np.uint32(4), return_inverse=True)[1].reshape(-1)
    k = len(values)
    small = k <= _GRID and 2 * n_raw < 255
    grid = _grid(v_str, v_raw, k, banker_ties, n_raw) if small else None
    # the code and the audited category of each hand in one uint16 (the category in
    # the top bits) when both fit: one gather serves both
    shift = int(max(k - 1, 1)).bit_length()
    both = None
    if int(v_cat.min(initial=0)) >= 0 and int(v_cat.max(initial=0)) < 1 << (16 - shift):
        both = code_of | (v_cat[code_of].astype(np.uint16) << np.uint16(shift))
    return _Codes(packed, of_raw, _Dense(code_of, v_raw, v_cat, v_str, k, grid, both, shift))


class _Lazy(Mapping[str, npt.NDArray[Any]]):
    """The rule set's table columns (and its figures), read when first asked for: an
    audit whose codes are kept (:func:`_codes`) reads none of them.

    >>> m = _Lazy(lambda: {"a": np.arange(2)})
    >>> m["a"].tolist(), list(m), len(m)
    ([0, 1], ['a'], 1)
    """

    def __init__(self, load: Callable[[], dict[str, npt.NDArray[Any]]]) -> None:
        self._load = load
        self._got: dict[str, npt.NDArray[Any]] | None = None

    def _all(self) -> dict[str, npt.NDArray[Any]]:
        if self._got is None:
            self._got = self._load()
        return self._got

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def audit_spec(
    rules: Any,
    options: Mapping[str, Any],
    tables: str | None,
    arrays: Mapping[str, npt.NDArray[Any]] | None = None,
) -> dict[str, Any]:
    """The audit description of Niu Niu under ``rules`` (see the module docstring)."""
    from solver.core.indexing import batch_lookup, multiset_rank_array
    from solver.games.niuniu.rules import Category, load_rules
    from solver.games.niuniu.source import rules_table
    from solver.kit.parse import parse_card_hands

    r = load_rules(rules)
    decks = int(r.decks)
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
    own = arrays is None  # the rule set's own table: read when first needed
    if arrays is None:

        def table_arrays() -> dict[str, npt.NDArray[Any]]:
            t = rules_table(r, tables)
            cat = np.asarray(t.column(f"{r.name}_category"))
            to_idx = np.full(max(int(c) for c in Category) + 1, -1, dtype=np.int16)
            for c in Category:
                if c.label in index:
                    to_idx[int(c)] = index[c.label]
            return {
                "category": to_idx[cat].astype(np.int8),
                "strength": np.asarray(t.column(f"{r.name}_strength")),
                "raw_category": cat.astype(np.int8),
                "figures": np.array(json.dumps(fig)),
            }

        arrays = _Lazy(table_arrays)
    tab = arrays  # (a column is looked up at each call: a lazy table is read at the first)

    def lookup(ids: npt.NDArray[np.uint8], cols: list[Any]) -> list[npt.NDArray[Any]]:
        """The table's ``cols`` at each hand's row: its colex rank (one deck) or its
        dense multiset rank (a shoe's table: every 5-multiset)."""
        if decks == 1:
            return batch_lookup(ids, cols, check=False)
        rank = multiset_rank_array(ids)
        return [c[rank] for c in cols]

    def category(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return lookup(ids, [tab["category"]])[0].astype(np.int64)

    def strength(ids: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
        return lookup(ids, [tab["strength"]])[0].astype(np.int64)

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
        p_cat, p_str = lookup(player, [tab["raw_category"], tab["strength"]])
        b_cat, b_str = lookup(banker, [tab["raw_category"], tab["strength"]])
        return outcome(p_str, b_str, p_cat, b_cat)

    n_raw = len(row)  # grid cells: a win with raw r, a loss to raw r, a push

    def columns() -> tuple[npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any]]:
        return tab["category"], tab["raw_category"], tab["strength"]

    if own:
        key = {"codes": CODES_VERSION, "rules": r.to_data(), "labels": labels,
               "banker_ties": banker_ties, "n_raw": n_raw}  # fmt: skip
        codes = _codes(key, tables, columns, banker_ties, n_raw)
    else:
        codes = _make_codes(*columns(), banker_ties, n_raw)
    if codes is None:

        def evaluate(ids: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
            cat, raw, st = lookup(ids, list(columns()))
            return {"category": cat, "raw": raw, "strength": st}

        def settle_values(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
            return outcome(p["strength"], b["strength"], p["raw"], b["raw"])

    elif codes.dense is None:  # more hand values than a uint16 code holds
        packed, of_raw = codes.packed, codes.of_raw
        assert packed is not None

        def evaluate(ids: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
            """One gather per hand: ``packed`` (strength, raw category), ``category``."""
            v = lookup(ids, [packed])[0]
            return {"category": of_raw[v & np.uint32(15)], "packed": v}

        def settle_values(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
            """:func:`settle` from the hands' looked-up values (:func:`evaluate`)."""
            pv, bv = p["packed"], b["packed"]
            four, low = np.uint32(4), np.uint32(15)
            return outcome(pv >> four, bv >> four, pv & low, bv & low)

    else:
        d = codes.dense
        code_of, v_raw, v_cat, v_str = d.code_of, d.v_raw, d.v_cat, d.v_str
        k, grid, both, shift = d.k, d.grid, d.both, d.shift
        amount = np.concatenate([won, lost, [0.0]])
        who = np.array([0] * n_raw + [1] * n_raw + [2], dtype=np.int8)
        low = np.uint16((1 << shift) - 1)
        hand_code = code_of if both is None else both
        by_rank = arrow(hand_code)  # (Arrow's take: see audit_gather)
        grid_a = None if grid is None else arrow(grid)

        def evaluate(ids: npt.NDArray[np.uint8]) -> dict[str, npt.NDArray[Any]]:
            """One small gather per hand: its value's dense code, and ``category``."""
            v = hand_values(ids, by_rank) if decks == 1 else lookup(ids, [hand_code])[0]
            if both is not None:
                return {"category": v >> np.uint16(shift), "code": v & low}
            return {"category": v_cat[v], "code": v}

        def settle_values(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
            """:func:`settle` from the hands' codes (:func:`evaluate`; arrays that
            broadcast): one gather in the grid of every pair of codes when it is
            small, else by strength."""
            cells = settle_cells(p, b)
            if cells is None:
                pc_, bc_ = p["code"], b["code"]
                return outcome(v_str[pc_], v_str[bc_], v_raw[pc_], v_raw[bc_])
            cell = cells[0]
            return np.take(who, cell), np.take(amount, cell)

        def settle_cells(
            p: Mapping[str, npt.NDArray[Any]], b: Mapping[str, npt.NDArray[Any]]
        ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int8], npt.NDArray[np.float64]] | None:
            """Each showdown's cell in the grid of every pair of codes (``cell``), with
            the winner and the player's net of each cell (None: no grid): an audit
            counts the cells, not the showdowns, where it can."""
            if grid_a is None:
                return None
            at = p["code"].astype(np.int32)
            at *= k
            at += b["code"]
            return gather(grid_a, at), who, amount

    pw, pl, pp = (Fraction(x) for x in fig["outcome"])
    return {
        "game": "niuniu",
        "rules": r.name,
        **hand_space(r),
        "parse": lambda arr: parse_card_hands(arr, (5,), copies=decks),
        "labels": labels,
        "expected": expected,
        "bull": [lb != "no_bull" for lb in labels],
        "category": category,
        "strength": strength,
        "outcome": [pw, pl, pp],
        "net": [(Fraction(a), Fraction(p)) for a, p in fig["net"]],
        "outcome_note": f"hands dealt from a {decks}-deck shoe" if decks > 1 else "",
        "decks": decks,
        "settle": settle,
        "finish": None,
        "banker_word": "banker",
        "evaluate": evaluate,
        "settle_values": settle_values,
        "settle_cells": None if codes is None or codes.dense is None else settle_cells,
        "arrays": arrays,
        "cache_key": {"game": "niuniu", "rules": r.to_data(), "bet": bet, "commission": comm},
        "tables": tables,
    }
