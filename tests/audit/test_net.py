"""The audit's "by how much" test: the first player's net per round against its exact
distribution (issue 16).

The Niu Niu distribution is checked against a brute force written here from the rule
text (RULES.md §3, preset ``classic``): over every ordered pair of disjoint hands of the
sub-deck A..4 (16 cards), each hand's category and tie-break worked out from the rules,
a win paying the winner's double-bet multiplier less 5 %, a loss paying the banker's.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from solver.audit.command import audit_text, cli_audit
from solver.audit.deal import deal
from solver.audit.spec import load_spec

SUIT_ORDER = {0: 3, 1: 2, 3: 1, 2: 0}  # card id % 4: S, H, D, C; classic ♠ > ♥ > ♣ > ♦


def classic_hand(cards: tuple[int, ...]) -> tuple[int, int, tuple[int, int]]:
    """(category rank, double-bet multiplier, highest card) of a hand of A..4 cards by
    RULES.md §3: a bull when three cards sum to a multiple of 10; points the last digit
    of the other two (0: Niu Niu); no faces here, so no Five Faces."""
    vals = [c // 4 + 1 for c in cards]  # A = 1 .. 4 = 4
    bull = any(sum(t) % 10 == 0 for t in itertools.combinations(vals, 3))
    if not bull:
        rank = 0
    else:
        pts = sum(vals) % 10
        rank = 10 if pts == 0 else pts  # Niu 1..9, Niu Niu
    mult = 3 if rank == 10 else 2 if rank >= 7 else 1
    high = max((c // 4, SUIT_ORDER[c % 4]) for c in cards)  # rank order, then suit
    return rank, mult, high


def brute_force_net(deck: int) -> dict[Fraction, Fraction]:
    hands = list(itertools.combinations(range(deck), 5))
    info = [classic_hand(h) for h in hands]
    key = np.array([r * 1000 + hi[0] * 10 + hi[1] for r, _m, hi in info])
    mult = np.array([m for _r, m, _hi in info])
    bits = np.array([sum(1 << c for c in h) for h in hands])
    counts: Counter[Fraction] = Counter()
    for i in range(len(hands)):
        ok = (bits & bits[i]) == 0
        win = ok & (key[i] > key)
        lose = ok & (key[i] < key)
        assert not (ok & (key[i] == key)).any()  # one deck: no two hands tie
        counts[Fraction(19, 20) * int(mult[i])] += int(win.sum())
        for m, n in zip(*np.unique(mult[lose], return_counts=True), strict=True):
            counts[Fraction(-int(m))] += int(n)
    total = sum(counts.values())
    return {a: Fraction(n, total) for a, n in counts.items() if n}


def test_niuniu_net_matches_a_brute_force_of_a_sub_deck() -> None:
    from solver.games.niuniu.audit import net_distribution
    from solver.games.niuniu.odds import matchups_of
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.source import rules_table

    deck = 16  # A..4: the first 16 ids; a subset's colex rank is its row in the table
    r = load_rules("classic")
    n = 4368
    t = rules_table(r, None)
    hands = np.stack([np.asarray(t.column(f"c{i}"))[:n] for i in range(5)], axis=1)
    assert int(hands.max()) == deck - 1
    strength = np.asarray(t.column("classic_strength"))[:n].astype(np.int64)
    category = np.asarray(t.column("classic_category"))[:n].astype(np.uint8)
    mu = matchups_of(r, hands.astype(np.uint8), strength, category, deck)
    got = dict(net_distribution(r, mu, "double", Fraction(1, 20)))
    assert got == brute_force_net(deck)


@pytest.mark.slow
def test_niuniu_full_deck_net_agrees_with_the_exact_edge() -> None:
    from solver.games.niuniu.odds import niuniu_edge

    spec = load_spec("niuniu", None, {"bet": "double"}, None)
    edge = niuniu_edge(None, "double")
    assert spec.net is not None
    amounts = {a for a, _ in spec.net}
    assert amounts == {Fraction(-m) for m in (1, 2, 3, 5)} | {
        Fraction(19, 20) * m for m in (1, 2, 3, 5)
    }
    assert sum(p for _, p in spec.net) == 1
    assert sum(a * p for a, p in spec.net) == edge.ev
    assert sum(p for a, p in spec.net if a > 0) == edge.p_win


def test_taungau_net_includes_declines_and_matches_the_edge() -> None:
    from solver.games.taungau.odds import taungau_edge

    for reveals in ("last", "first"):
        spec = load_spec("taungau", "macau", {"banker_reveals": reveals}, None)
        assert spec.net is not None and spec.outcome is not None
        ev = sum(a * p for a, p in spec.net)
        assert ev == taungau_edge("macau", reveals).ev_optimal
    pagat = load_spec("taungau", "pagat", {}, None)
    edge = taungau_edge("pagat")
    assert pagat.net is not None
    assert dict(pagat.net) == {Fraction(1): edge.p_win, Fraction(-1): edge.p_loss,
                               Fraction(0): edge.p_push}  # fmt: skip


def _test(res: dict[str, object], name: str, group: str = "all") -> dict[str, object]:
    tests = res["fairness"]
    assert isinstance(tests, list)
    return next(t for t in tests if t["name"] == name and t["group"] == group)


@pytest.mark.slow
def test_fair_net_passes_and_rigged_ones_are_flagged(tmp_path: Path) -> None:
    opts = {"bet": "double"}
    fair, edge, bull = (str(tmp_path / f"{k}.parquet") for k in ("fair", "edge", "bull"))
    deal("niuniu", 20_000, seed=1, out=fair, options=opts)
    deal("niuniu", 20_000, seed=3, out=edge, options=opts, bias={"banker_edge": 0.05})
    # more bulls for everyone: who wins stays even, by how much does not
    deal("niuniu", 20_000, seed=5, out=bull, options=opts, bias={"bull_rate": 0.75})
    res = cli_audit("niuniu", [fair], options=opts, by=["table"], out=str(tmp_path / "rep"))
    net = _test(res, "net")
    assert net["p_value"] > 1e-3 and net["df"] == 7 and net["n"] == 20_000
    assert "banker_edge" in str(net["bias"]) and isinstance(net["power_rounds"], int)
    assert all(_test(res, "net", f"table=t{i}")["p_value"] > 1e-6 for i in range(4))
    assert "net" in audit_text(res)
    rows = pq.read_table(tmp_path / "rep" / "net.parquet").to_pylist()
    assert sum(r["observed"] for r in rows if r["group"] == "all") == 20_000
    assert "| net | all |" in (tmp_path / "rep" / "audit.md").read_text()
    res = cli_audit("niuniu", [edge], options=opts)
    assert _test(res, "net")["p_value"] < 1e-6
    res = cli_audit("niuniu", [bull], options=opts)
    assert _test(res, "outcome")["p_value"] > 1e-3  # who wins: still even
    assert _test(res, "net")["p_value"] < 1e-6


def test_an_amount_the_rules_cannot_pay_fails_the_net_test() -> None:
    from solver.audit.findings import fairness_tests
    from solver.audit.partial import GroupCounts, Partial

    spec = load_spec("niuniu", None, {"bet": "double"}, None)
    g = GroupCounts(len(spec.labels), len(spec.unit_names), rows=2, rounds=2)
    g.net = {0.95: 1, 7.0: 1}
    part = Partial(rows=2, rounds=2, groups={"": g})
    net = next(t for t in fairness_tests(part, spec) if t.name == "net")
    assert net.p_value == 0.0 and net.deviations[0]["label"] == "other"


def test_a_fair_taungau_log_passes_outcome_and_net(tmp_path: Path) -> None:
    path = str(tmp_path / "macau.parquet")
    deal("taungau", 3000, seed=6, out=path)
    res = cli_audit("taungau", [path])
    assert _test(res, "net")["p_value"] > 1e-6 and _test(res, "outcome")["p_value"] > 1e-6
    assert "decline" in str(_test(res, "net")["note"]) and not res["not_run"]
