"""Tau Ngau: the table against an independent brute force, RULES.md counts and examples,
banker distributions against direct enumeration, settlement, equal multisets."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow.parquet as pq
import pytest

import solver.games.taungau.play as tp
from solver.core.errors import RulesError
from solver.core.tiles import parse_hand
from solver.games.taungau.hands import build_tables, settle
from solver.games.taungau.rules import TauNgauRules, load_rules
from solver.store.tables import LoadedTable, open_table
from taungau import fixtures as ref

BANKER_HANDS = 80730  # C(27, 5)
DISAGREE = "[6:6][6:5][4:3][4:2][2:2]"


@pytest.fixture(scope="session")
def tg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ref.tables_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def table(tg_dir: Path) -> LoadedTable:
    return open_table("taungau", tg_dir)


def col(table: LoadedTable, name: str) -> npt.NDArray[Any]:
    return np.asarray(table.column(name))


def tiles_of(table: LoadedTable) -> npt.NDArray[np.int64]:
    return np.stack([col(table, f"t{i}") for i in range(5)], axis=1).astype(np.int64)


# ------------------------------------------------------------------ layout


def test_rows_are_every_hand_in_colex_order(table: LoadedTable) -> None:
    assert table.num_rows == 201376
    lex = np.array(list(combinations(range(32), 5)), dtype=np.int64)
    colex = lex[np.lexsort(lex.T)]  # last column is the primary key
    assert np.array_equal(tiles_of(table), colex)


def test_metadata_names_both_presets(table: LoadedTable) -> None:
    assert table.rules == {
        "macau": load_rules("macau").to_data(),
        "pagat": load_rules("pagat").to_data(),
    }
    raw = pq.read_table(table.path)
    assert all(c.null_count == 0 for c in raw.columns)  # sentinels, never nulls


# ------------------------------------------------------------------ exhaustive brute force


def _expected_values(types: tuple[tuple[int, int], ...], play: dict[str, Any]) -> int:
    if not play["has_bull"]:
        return 255
    bits = 0
    for wild, bit in (((2, 1), 1), ((4, 2), 2)):
        if wild in types and play["values"][wild] == 6:
            bits |= bit
    return bits


@pytest.mark.slow
def test_every_hand_against_brute_force(table: LoadedTable) -> None:
    """All 201,376 rows: every bull, every 3/6 choice, canonical bull, both presets."""
    names = ["has_bull", "reachable"] + [
        f"{p}_{c}"
        for p in ("macau", "pagat")
        for c in ("points", "strength", "bull_mask", "values")
    ]
    got = {n: col(table, n).tolist() for n in names}
    rows = tiles_of(table).tolist()
    bad: list[str] = []
    for i, ids in enumerate(rows):
        types = ref.hand_types(ids)
        m = ref.evaluate(types, "macau")
        p = ref.evaluate(types, "pagat")
        reach = sum(1 << d for d in m["reachable"])
        want = {
            "has_bull": m["has_bull"],
            "reachable": reach,
            "macau_points": m["score"] or 0,
            "macau_strength": m["score"] or 0,
            "macau_bull_mask": sum(1 << q for q in m["bull"]) if m["has_bull"] else 0,
            "macau_values": _expected_values(types, m),
            "pagat_points": 255 if p["score"] is None else p["score"],
            "pagat_strength": 0 if p["score"] is None else p["score"] + 1,
            "pagat_bull_mask": sum(1 << q for q in p["bull"]) if p["has_bull"] else 0,
            "pagat_values": _expected_values(types, p),
        }
        for n in names:
            if got[n][i] != want[n]:
                bad.append(f"row {i} {[ref.NAMES[t] for t in ids]} {n}: {got[n][i]} != {want[n]}")
                break
        if len(bad) > 5:
            break
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ RULES §6 and §4


def test_rules_section_6_counts(table: LoadedTable) -> None:
    has = col(table, "has_bull")
    assert int((~has).sum()) == 55510
    pagat = np.bincount(col(table, "pagat_points"), minlength=256)
    assert pagat[:10].tolist() == [
        10660,
        12226,
        11916,
        14168,
        13230,
        13864,
        16444,
        17840,
        18220,
        17298,
    ]
    assert pagat[255] == 55510
    macau = np.bincount(col(table, "macau_points"), minlength=11)
    assert macau.tolist() == [
        55510,
        12226,
        11916,
        10636,
        13230,
        13864,
        16300,
        14748,
        18220,
        17298,
        17428,
    ]


def test_presets_disagree_on_6768_hands(table: LoadedTable) -> None:
    m = col(table, "macau_points").astype(int) % 10
    p = col(table, "pagat_points").astype(int)
    has = col(table, "has_bull")
    assert int((m[has] != p[has]).sum()) == 6768


def test_disagreement_hand(tg_dir: Path) -> None:
    """RULES §4: reaches 0 ([4:2] as 6) or 7 (as 3): 0 = 10 under macau, 7 under pagat."""
    m = tp.evaluate(DISAGREE, "macau", tables=tg_dir)
    p = tp.evaluate(DISAGREE, "pagat", tables=tg_dir)
    assert (m.points, m.values_by_name, m.reachable) == (10, {"[4:2]": 6}, (7, 10))
    assert (p.points, p.values_by_name, p.reachable) == (7, {"[4:2]": 3}, (0, 7))
    types = ref.hand_types(parse_hand(DISAGREE))
    assert ref.evaluate(types, "macau")["score"] == 10
    assert ref.evaluate(types, "pagat")["score"] == 7


PLAYER_6 = "[6:5][4:1][6:4][6:4][5:5]"  # bull [6:4][6:4][5:5], keeps [6:5][4:1] -> 6
BANKERS = {
    "[1:1][2:2][3:3][5:1][6:1]": (0, 6),  # no bull: player +6
    "[6:6][4:4][3:2][5:3][6:1]": (10, -4),  # keeps [6:6][4:4] -> 10: player -4
    "[3:1][1:1][3:2][5:3][6:1]": (6, 0),  # keeps [3:1][1:1] -> 6: equal, nobody pays
    "[5:4][2:2][3:2][5:3][6:1]": (3, 3),  # keeps [5:4][2:2] -> 3: player +3
}


@pytest.mark.parametrize("banker", sorted(BANKERS))
@pytest.mark.parametrize("reveals", ["first", "last"])
def test_worked_examples_macau(tg_dir: Path, banker: str, reveals: str) -> None:
    points, net = BANKERS[banker]
    assert ref.macau_points(parse_hand(banker)) == points
    s = tp.settle(PLAYER_6, banker, "macau", banker_reveals=reveals, tables=tg_dir)
    assert s.player.points == 6
    assert s.player.rest is not None
    assert sorted(ref.NAMES[t] for t in s.player.rest) == ["[4:1]", "[6:5]"]
    assert s.banker.points == points
    assert (s.net, s.banker_net) == (net, -net)
    assert s.winner == ("player" if net > 0 else "banker" if net < 0 else "push")
    assert not s.player_declines


def test_decline_example(tg_dir: Path) -> None:
    """RULES §4: a bull leaving [5:4][1:1] (1) against a banker's 10 pays 9 with the bull,
    4 without it. Revealed first, the player declines (10 - 1 > 4); revealed last he
    cannot know and plays on expectation."""
    player, banker = "[5:4][1:1][6:4][6:4][5:5]", "[6:6][4:4][3:2][5:3][6:1]"
    macau = load_rules("macau")
    assert settle(1, 10, macau) == (-9, 9)
    assert settle(1, 10, macau, player_declines=True) == (-4, 4)
    first = tp.settle(player, banker, "macau", banker_reveals="first", tables=tg_dir)
    assert (first.player.points, first.player_declines, first.net) == (1, True, -4)
    last = tp.settle(player, banker, "macau", banker_reveals="last", tables=tg_dir)
    h = last.player
    assert h.decline_if_banker_at_least == 6
    assert h.ev_declare is not None and h.ev_declare > -4
    assert (last.player_declines, last.net, last.winner) == (False, -9, "banker")


def test_no_bull_player_pays_four_always(tg_dir: Path) -> None:
    """RULES §4: without a bull a player pays 4, even against a banker without one."""
    s = tp.settle("[1:1][2:2][3:3][5:1][6:1]", "[1:1][2:2][3:3][5:1][6:1]", "macau", tables=tg_dir)
    assert (s.player.has_bull, s.banker.has_bull, s.net, s.winner) == (False, False, -4, "banker")
    assert s.player.points == 0 and s.player.decision_last is not None
    assert s.player.decision_last.label == "no_bull"
    pg = tp.settle("[1:1][2:2][3:3][5:1][6:1]", "[1:1][2:2][3:3][5:1][6:1]", "pagat", tables=tg_dir)
    assert (pg.player.points, pg.net, pg.winner) == (None, 0, "push")


# ------------------------------------------------------------------ banker side


def test_banker_distributions_sum(table: LoadedTable) -> None:
    total = sum(col(table, f"macau_banker_{k}").astype(np.int64) for k in range(11))
    assert np.all(total == BANKER_HANDS)


def _sample_rows(table: LoadedTable, n: int) -> list[int]:
    rng = np.random.default_rng(2026)
    rows = [int(r) for r in rng.choice(table.num_rows, n, replace=False)]
    ranks = tp.colex_rank_array(
        np.array(
            [
                parse_hand(DISAGREE),
                parse_hand("[2:1][4:2][6:5][1:1][6:6]"),
                parse_hand("[6:6][6:6][1:1][1:1][2:1]"),
            ]
        ),
        presorted=True,
    )
    return rows + [int(r) for r in ranks]


@pytest.mark.slow
def test_banker_distribution_against_direct_enumeration(table: LoadedTable) -> None:
    """Sampled hands: count the banker's score over all 80,730 hands of the other 27
    tiles with the reference evaluator; EVs and decisions follow from RULES §4."""
    rows = _sample_rows(table, 12)
    tiles = tiles_of(table)
    for r in rows:
        ids = tiles[r].tolist()
        counts = ref.banker_counts(ids)
        got = [int(col(table, f"macau_banker_{k}")[r]) for k in range(11)]
        assert got == counts, [ref.NAMES[t] for t in ids]
        p = ref.macau_points(ids)
        if p == 0:
            assert int(col(table, "macau_decision_last")[r]) == 2
            assert int(col(table, "macau_ev_declare_num")[r]) == -4 * BANKER_HANDS
            continue
        declare = sum(c * (p - b) for b, c in enumerate(counts))
        first = sum(c * (-4 if b - p > 4 else p - b) for b, c in enumerate(counts))
        assert int(col(table, "macau_ev_declare_num")[r]) == declare
        assert col(table, "macau_ev_declare")[r] == pytest.approx(declare / BANKER_HANDS)
        assert int(col(table, "macau_ev_first_num")[r]) == first
        assert int(col(table, "macau_ev_last_num")[r]) == max(declare, -4 * BANKER_HANDS)
        assert int(col(table, "macau_decision_last")[r]) == (
            1 if declare < -4 * BANKER_HANDS else 0
        )
        assert int(col(table, "macau_decline_at_least")[r]) == (p + 5 if p <= 5 else 255)


def test_decision_columns_consistent(table: LoadedTable) -> None:
    p = col(table, "macau_points").astype(np.int64)
    dist = np.stack([col(table, f"macau_banker_{k}") for k in range(11)], axis=1)
    declare = (dist.astype(np.int64) * (p[:, None] - np.arange(11)[None, :])).sum(axis=1)
    has = p > 0
    assert np.array_equal(col(table, "macau_ev_declare_num")[has], declare[has])
    at = col(table, "macau_decline_at_least")
    assert np.array_equal(at[has & (p <= 5)], p[has & (p <= 5)] + 5)
    assert np.all(at[~has | (p > 5)] == 255)


def test_single_lookup_matches_api(tg_dir: Path) -> None:
    h = tp.evaluate("[2:1][4:2][6:5][1:1][6:6]", tables=tg_dir)
    ids = parse_hand("[2:1][4:2][6:5][1:1][6:6]")
    assert h.banker is not None and sum(h.banker) == BANKER_HANDS
    assert h.ev_declare == Fraction(
        sum(c * ((h.points or 0) - b) for b, c in enumerate(h.banker)), BANKER_HANDS
    )
    types = ref.hand_types(ids)
    want = ref.evaluate(types, "macau")
    assert h.points == want["score"]
    assert h.values_by_name == {f"[{a}:{b}]": v for (a, b), v in want["values"].items()}


# ------------------------------------------------------------------ settlement


def _random_pairs(n: int, seed: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    rng = np.random.default_rng(seed)
    both = np.array([rng.choice(32, 10, replace=False) for _ in range(n)])
    return both[:, :5], both[:, 5:]


@pytest.mark.parametrize(
    ("rules", "reveals"), [("macau", "last"), ("macau", "first"), ("pagat", "last")]
)
def test_settlement_sums_to_zero_and_follows_rules(tg_dir: Path, rules: str, reveals: str) -> None:
    player, banker = _random_pairs(3000, 7)
    out = tp.settle_batch(player, banker, rules, banker_reveals=reveals, tables=tg_dir)
    assert np.all(out["net"] + out["banker_net"] == 0)
    for i in range(300):  # the rules' own formulas, on the reference's scores
        pt, bt = ref.hand_types(player[i].tolist()), ref.hand_types(banker[i].tolist())
        if rules == "macau":
            p = ref.evaluate(pt, "macau")["score"] or 0
            b = ref.evaluate(bt, "macau")["score"] or 0
            declines = bool(out["declines"][i])
            if reveals == "first":
                assert declines == (p > 0 and b - p > 4)
            want = -4 if p == 0 or declines else p - b
        else:
            p_ = ref.evaluate(pt, "pagat")["score"]
            b_ = ref.evaluate(bt, "pagat")["score"]
            pk = -1 if p_ is None else p_
            bk = -1 if b_ is None else b_
            want = (pk > bk) - (pk < bk)
        assert int(out["net"][i]) == want


def test_compare_matches_batch(tg_dir: Path) -> None:
    player, banker = _random_pairs(40, 11)
    for reveals in ("first", "last"):
        out = tp.settle_batch(player, banker, "macau", banker_reveals=reveals, tables=tg_dir)
        for i in range(len(player)):
            s = tp.settle(
                player[i].tolist(),
                banker[i].tolist(),
                "macau",
                banker_reveals=reveals,
                tables=tg_dir,
            )
            assert (s.net, s.banker_net, s.player_declines) == (
                int(out["net"][i]),
                int(out["banker_net"][i]),
                bool(out["declines"][i]),
            )


# ------------------------------------------------------------------ equal multisets


def test_equal_multisets_equal_rows(table: LoadedTable) -> None:
    """Every column but the tile ids depends only on the multiset of types."""
    tiles = tiles_of(table)
    type_of = np.array([ref.TYPES.index(t) for t in ref.TILE_TYPE])
    types = type_of[tiles]
    key = sum(types[:, i] * 21**i for i in range(5))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    assert len(first) == 33934
    for name in table.column_names:
        if name.startswith("t") and name[1:].isdigit():
            continue
        c = col(table, name)
        assert np.array_equal(c, c[first][inverse]), name


def test_equal_multisets_equal_answers_api(tg_dir: Path) -> None:
    # [6:6] copies are ids 30, 31; [1:1] copies 0, 1
    a = tp.evaluate([30, 0, 2, 11, 28], tables=tg_dir)
    b = tp.evaluate([31, 1, 2, 11, 29], tables=tg_dir)
    assert a == b
    batch = tp.evaluate_batch(np.array([[30, 0, 2, 11, 28], [31, 1, 2, 11, 29]]), tables=tg_dir)
    for k, v in batch.items():
        assert np.array_equal(v[0], v[1]), k


# ------------------------------------------------------------------ rule sets


def test_rule_set_copy_is_answered_from_its_own_table_and_agrees(
    tg_dir: Path, table: LoadedTable, tmp_path: Path
) -> None:
    """A rule set that is not a preset (here: macau under another name) is answered from
    a table of its own, built on first use; few-hand and big lookups agree with the
    preset's table, and so does the direct per-hand evaluator (80,730 banker hands
    enumerated for each hand)."""
    from solver.games.taungau.hands import evaluate_rows

    house = {**load_rules("macau").to_data(), "name": "house"}
    rng = np.random.default_rng(5)
    tiles = tiles_of(table)
    rows = rng.choice(table.num_rows, 5, replace=False)
    direct_rows = evaluate_rows(tiles[rows], load_rules(house))
    looked_rows = tp.evaluate_batch(tiles[rows], "macau", tables=tg_dir)
    assert np.array_equal(direct_rows["ev_declare_num"], looked_rows["ev_declare_num"])
    assert np.array_equal(direct_rows["banker_3"], looked_rows["banker"][:, 3])
    for n in (7, 300):
        rows = rng.choice(table.num_rows, n, replace=False)
        direct = tp.evaluate_batch(tiles[rows], house, tables=tmp_path)
        looked = tp.evaluate_batch(tiles[rows], "macau", tables=tg_dir)
        assert direct.keys() == looked.keys()
        for k in direct:
            assert np.array_equal(direct[k], looked[k]), k


def test_rule_file_variant(tmp_path: Path, tg_dir: Path) -> None:
    """A house variant: 0 counts as 0 under difference settlement."""
    f = tmp_path / "zero.toml"
    f.write_text(
        'game = "taungau"\nzero_counts_as = 0\nsettlement = "difference"\n'
        "no_bull_pays = 4\ndecline_allowed = true\n",
        encoding="utf-8",
    )
    h = tp.evaluate(DISAGREE, str(f), tables=tg_dir)
    assert (h.rules, h.points, h.reachable) == ("zero", 7, (0, 7))
    assert h.banker is not None and sum(h.banker) == BANKER_HANDS


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"zero_count_as": 10}, "unknown field 'zero_count_as'"),
        ({"zero_counts_as": 5}, "'zero_counts_as' is 5"),
        ({"settlement": "odd"}, "'settlement' is 'odd'"),
        ({"settlement": "even_money", "decline_allowed": False}, "'no_bull_pays' applies only"),
        ({"banker_reveals": "never"}, "'banker_reveals' is 'never'"),
    ],
)
def test_bad_rule_sets(data: dict[str, Any], needle: str) -> None:
    base = load_rules("macau").to_data()
    with pytest.raises(RulesError) as exc:
        TauNgauRules.from_data("bad", base | data)
    assert needle in str(exc.value)


def test_rules_round_trip() -> None:
    for name in ("macau", "pagat"):
        r = load_rules(name)
        assert TauNgauRules.from_data(name, r.to_data()) == r
    assert load_rules() == load_rules("macau")
    assert load_rules().banker_reveals == "last"


# ------------------------------------------------------------------ performance


def test_build_matches_the_committed_table() -> None:
    """The whole tile build, banker distributions included, reproduces the committed
    table (its time budget, 10 s, is measured by scripts/bench_builds.py, not here)."""
    tables = build_tables()
    assert tables["taungau"].num_rows == 201376
    committed = Path(__file__).resolve().parents[2] / "tables" / "taungau.parquet"
    assert tables["taungau"].equals(pq.read_table(committed))
