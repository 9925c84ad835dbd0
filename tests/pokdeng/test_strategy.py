"""The exact Pok Deng drawing strategy against a direct enumeration of every deal."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pokdeng.fixtures import (
    CONFIG_ARGS,
    Reference,
    built_tables,
    direct_loops,
    direct_numpy,
    ids,
)
from solver.core.indexing import colex_rank
from solver.games.pokdeng.hands import all_hands
from solver.games.pokdeng.rules import HandType, PokDengRules
from solver.games.pokdeng.strategy import (
    CONFIGS,
    DRAW_DEN,
    POLICIES,
    Action,
    config_rules,
    overall_ev,
    solve,
    strategy_row,
)
from solver.store.tables import open_table


@pytest.fixture(scope="module")
def refs() -> dict[str, Reference]:
    return {c: Reference(*CONFIG_ARGS[c]) for c in CONFIGS}


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tables(tmp_path_factory)


def _rank(text: str) -> int:
    return colex_rank(sorted(ids(text)))


def test_denominators() -> None:
    assert DRAW_DEN == 1225 * 48 * 47 == 2_763_600


# a spread of starts: low totals, a five, suited, pairs, faces, straight draws, Pok
SAMPLE = [
    "5D 7H",
    "AS 3S",
    "4C 10D",
    "5S 9S",
    "5H 9C",
    "JS QS",
    "JS JH",
    "10C KD",
    "2S 3H",
    "QS KS",
    "AS KH",
    "9S 9D",
    "4S 5S",
    "6H 6D",
    "7C 9C",
    "AH 4D",
]


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS)
def test_sample_against_direct_enumeration(config: str, refs: dict[str, Reference]) -> None:
    """Every dealer hand and both draw cards, settled by the reference: exact equality."""
    ref = refs[config]
    for k in POLICIES:
        sol = solve(config_rules(config), k)
        # every sample start at the default policy, a rotating few at the others
        starts = SAMPLE if k == 4 and config == "standard" else SAMPLE[POLICIES.index(k) :: 3]
        for text in starts:
            r = _rank(text)
            stand, draw = direct_numpy(ref, ids(text), k)
            assert (int(sol.ev_stand_num[r]), int(sol.ev_draw_num[r])) == (stand, draw), (
                config,
                k,
                text,
            )


@pytest.mark.slow
def test_pure_python_loops_agree(refs: dict[str, Reference]) -> None:
    """The plainest possible loops (no numpy) for two starts: same exact fractions."""
    ref = refs["standard"]  # Reference(False, "both")
    sol = solve(config_rules("standard"), 4)
    for text in ("5D 7H", "5S 9S"):
        stand, draw = direct_loops(ref, ids(text), 4)
        r = _rank(text)
        assert Fraction(int(sol.ev_stand_num[r]), DRAW_DEN) == Fraction(stand, DRAW_DEN)
        assert Fraction(int(sol.ev_draw_num[r]), DRAW_DEN) == Fraction(draw, DRAW_DEN)


def test_dealer_pok_first_leaves_evs_unchanged(refs: dict[str, Reference]) -> None:
    """Heads-up a non-Pok player pays a dealer Pok's deng whether he stood or drew."""
    for config in CONFIGS:
        base = config_rules(config)
        off = PokDengRules(**{**base.__dict__, "dealer_pok_first": False})
        assert base.dealer_pok_first and not off.dealer_pok_first
        for k in POLICIES:
            a, b = solve(base, k), solve(off, k)
            assert (a.ev_stand_num == b.ev_stand_num).all()
            assert (a.ev_draw_num == b.ev_draw_num).all()
    # and in the direct enumeration, which settles a dealer Pok before or after the draw
    ref = refs["standard"]
    for text in ("5D 7H", "JS QS"):
        assert direct_numpy(ref, ids(text), 4, pok_first=True) == direct_numpy(
            ref, ids(text), 4, pok_first=False
        )


def test_pok_starts_read_pok_with_equal_evs(refs: dict[str, Reference]) -> None:
    for config in CONFIGS:
        sol = solve(config_rules(config), 4)
        pok = sol.type == HandType.POK
        assert pok.sum() == 252
        assert (sol.action[pok] == Action.POK).all()
        assert (sol.ev_stand_num[pok] == sol.ev_draw_num[pok]).all()
        assert (sol.action[~pok] != Action.POK).all()
    stand, draw = direct_numpy(refs["standard"], ids("4S 5S"), 4)
    assert stand == draw == solve(config_rules("standard"), 4).ev_stand_num[_rank("4S 5S")]


def test_same_policy_as_dealer_is_exactly_fair() -> None:
    """Symmetry: a player drawing on 4 or less against a dealer drawing on 4 or less plays
    the dealer's own game, so the overall EV is exactly 0 under every rule set."""
    for config in CONFIGS:
        assert overall_ev(solve(config_rules(config), 4))["ev_simple_fraction"] == "0/1"
        for k in POLICIES:
            o = overall_ev(solve(config_rules(config), k))
            assert Fraction(o["ev_optimal_fraction"]) >= Fraction(o["ev_simple_fraction"])


def test_suit_symmetry_169_classes() -> None:
    """Starts with the same ranks and suitedness have identical EVs (a consistency check
    on the card-removal bookkeeping: it must not depend on which suits)."""
    sol = solve(config_rules("straights"), 4)
    two = all_hands(2)
    r0, r1 = two[:, 0] >> 2, two[:, 1] >> 2
    suited = (two[:, 0] & 3) == (two[:, 1] & 3)
    key = r0.astype(int) * 26 + r1.astype(int) * 2 + suited
    groups = np.unique(key)
    assert len(groups) == 169
    for g in groups:
        m = key == g
        assert len(set(sol.ev_stand_num[m].tolist())) == 1
        assert len(set(sol.ev_draw_num[m].tolist())) == 1


@pytest.mark.slow
def test_stand_evs_of_every_start_by_direct_enumeration(refs: dict[str, Reference]) -> None:
    """EV(stand) for all 1,326 starts: every dealer hand and dealer draw, vectorised."""
    ref = refs["straights"]
    k = 4
    sol = solve(config_rules("straights"), k)
    d0, d1 = np.triu_indices(52, 1)
    dcode = ref.code2[d0, d1]
    is_pok = np.array([c[0] == "pok" for c in ref.classes])[dcode]
    dpts = np.array([c[1] for c in ref.classes])[dcode]
    draws = ~is_pok & (dpts <= k)
    cards = np.arange(52)
    # final dealer class for each (D, c) with c not in D, as a (1326, 52) array (-1: c in D)
    final = np.where(
        draws[:, None], ref.code3[d0[:, None], d1[:, None], cards[None]], dcode[:, None]
    )
    final[(cards[None] == d0[:, None]) | (cards[None] == d1[:, None])] = -1
    for row, (a, b) in enumerate(all_hands(2).tolist()):
        ok = (d0 != a) & (d0 != b) & (d1 != a) & (d1 != b)
        f = final[ok][:, [c for c in range(52) if c not in (a, b)]]
        f = f[f >= 0]
        assert f.size == 1225 * 48
        assert int(ref.settle[ref.code2[a, b], f].sum()) * 47 == int(sol.ev_stand_num[row])


def test_known_decisions() -> None:
    sol = solve(config_rules("standard"), 4)
    assert sol.action_of(ids("5D 7H")) == Action.DRAW  # total 2
    assert sol.action_of(ids("7S 10H")) == Action.STAND  # total 7
    assert sol.action_of(ids("JS QS")) == Action.DRAW  # 0, and Sam Lueang chances


def test_build_tables(tables: Path) -> None:
    hands = open_table("pokdeng", tables)
    strat = open_table("pokdeng_strategy", tables)
    assert hands.num_rows == 1326 + 22100
    for t in (hands, strat):  # numeric only: no string columns, no nulls
        assert all(str(tp) != "string" for tp in t._file.schema_arrow.types)
    assert strat.meta["extra"]["action_codes"] == {"0": "stand", "1": "draw", "2": "pok"}
    assert strat.num_rows == 1326 * len(POLICIES) * len(CONFIGS)
    assert set(strat.rules) == set(CONFIGS) == set(hands.rules)
    for cfg in CONFIGS:
        assert strat.rules[cfg] == config_rules(cfg).to_data()
    assert strat.rules["straights_low"]["ace"] == "low"
    # row order and content against fresh solves
    for cfg in ("standard", "straights_high"):
        for k in POLICIES:
            sol = solve(config_rules(cfg), k)
            rows = strategy_row(cfg, k, 0) + np.arange(1326)
            assert (strat.column("config")[rows] == CONFIGS.index(cfg)).all()
            assert (strat.column("dealer_draws_at_most")[rows] == k).all()
            assert (strat.column("rank")[rows] == np.arange(1326)).all()
            num = strat.column("ev_draw_num")[rows]
            den = strat.column("ev_draw_den")[rows]
            assert (num * (DRAW_DEN // den) == sol.ev_draw_num).all()
            assert np.allclose(strat.column("ev_stand")[rows], sol.ev_stand_num / DRAW_DEN)
            assert (strat.column("action")[rows] == sol.action).all()
            assert strat.meta["extra"]["overall_ev"][cfg][str(k)] == overall_ev(sol)
    # hands: three-card rows follow the two-card rows, card2 sentinel on two-card rows
    assert (hands.column("card2")[:1326] == 255).all()
    assert (hands.column("size")[1326:] == 3).all()
    assert hands.column("card0")[1326:1327].tolist() == [0]  # AS AH AD: colex rank 0
    assert [hands.column(f"card{i}")[1326] for i in range(3)] == [0, 1, 2]
    row = 1326 + _rank("AS 2S 3S")
    assert [hands.column(f"card{i}")[row] for i in range(3)] == [0, 4, 8]
    assert HandType(int(hands.column("straights_type")[row])) == HandType.STRAIGHT_FLUSH
    assert HandType(int(hands.column("straights_high_type")[row])) == HandType.NORMAL
    assert HandType(int(hands.column("standard_type")[row])) == HandType.NORMAL
    assert hands.column("standard_deng")[row] == 3 and hands.column("points")[row] == 6


@pytest.mark.slow
def test_strategy_build_matches_the_committed_table() -> None:
    """The whole strategy table for all policies and rule sets reproduces the committed
    one (its time budget, 60 s, is measured by scripts/bench_builds.py, not here)."""
    import pyarrow.parquet as pq

    from solver.games.pokdeng.strategy import strategy_table

    committed = Path(__file__).resolve().parents[2] / "tables" / "pokdeng_strategy.parquet"
    assert strategy_table()[0].equals(pq.read_table(committed))
