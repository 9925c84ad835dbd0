"""The "fixed Macau" house rule (RULES.md §9; issue 11): ``no_bull_pays = "banker_score"``
— a player without a bull pays the banker's score when the banker has a bull, 4 stakes
otherwise; declining a bull pays the same. Checked against the independent reference of
``fixtures.py`` (settlement from the rule text, banker scores by direct enumeration) over
every pair of scores, every one of the 201,376 hands, and sampled hands end to end.

Declining is never right under this rule: keeping a bull of score p against a banker
with a bull of score b nets p - b > -b, and against a banker without one p > -4. So the
banker revealing first or last changes nothing and every EV equals always declaring.
"""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import solver.games.taungau.play as tp
from solver.cli import main
from solver.core.errors import RulesError
from solver.games.taungau import odds as tn_odds
from solver.games.taungau import simulate as tn_sim
from solver.games.taungau.hands import settle
from solver.games.taungau.rules import TauNgauRules, load_rules
from solver.store.tables import LoadedTable, open_table
from taungau import fixtures as ref

BANKER_HANDS = 80730
PAIRS = 201376 * BANKER_HANDS
FIXED: dict[str, Any] = load_rules("macau").to_data() | {
    "name": "fixed",
    "description": "Macau, a no-bull hand pays the banker's score (4 if he has no bull)",
    "no_bull_pays": "banker_score",
}
EXACT_EV = Fraction(-5856238, 19539765)
"""The exact EV of this rule file (banker reveals first and last): recorded for the
report; the tests below recompute it independently before comparing."""


@pytest.fixture(scope="session")
def tg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ref.tables_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def macau(tg_dir: Path) -> LoadedTable:
    return open_table("taungau", tg_dir)


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tables directory of its own, where the rule file's table gets built."""
    return tmp_path_factory.mktemp("fixed_macau_tables")


def fixed() -> TauNgauRules:
    return TauNgauRules.from_data("fixed", FIXED)


# ------------------------------------------------------------------ the option


@pytest.mark.parametrize("bad", ["banker", "Banker_Score", 4.5, True, -1, 101, [4], None])
def test_bad_values_name_the_key_and_the_choices(bad: object) -> None:
    with pytest.raises(RulesError) as exc:
        TauNgauRules.from_data("x", FIXED | {"no_bull_pays": bad})
    text = str(exc.value)
    assert "\n" not in text and "'no_bull_pays'" in text
    assert "0..100" in text and '"banker_score"' in text


def test_round_trip_and_only_with_difference() -> None:
    r = fixed()
    assert r.no_bull_pays == "banker_score" and r.pays_banker_score
    assert r.to_data()["no_bull_pays"] == "banker_score"
    assert TauNgauRules.from_data("fixed", r.to_data()) == r
    assert TauNgauRules.from_data("n", FIXED | {"no_bull_pays": 7}).no_bull_pays == 7
    pagat = load_rules("pagat").to_data()
    with pytest.raises(RulesError, match="'no_bull_pays' applies only"):
        TauNgauRules.from_data("x", pagat | {"no_bull_pays": "banker_score"})
    # the presets keep their numbers
    assert load_rules("macau").no_bull_pays == 4 and not load_rules("macau").pays_banker_score


# ------------------------------------------------------------------ settlement


def test_settlement_every_pair_of_scores() -> None:
    """Every player score x banker score (0 = no bull), keeping or declining the bull."""
    r, book = fixed(), load_rules("macau")
    for p in range(11):
        for b in range(11):
            for declines in (False, True) if p else (False,):
                want = ref.difference_net(p, b, declines, "banker_score")
                assert settle(p, b, r, declines) == (want, -want), (p, b, declines)
                want = ref.difference_net(p, b, declines, 4)
                assert settle(p, b, book, declines) == (want, -want), (p, b, declines)
                # banker reveals first: decline exactly when it is strictly better
                if p:
                    better = ref.difference_net(p, b, True, "banker_score") > ref.difference_net(
                        p, b, False, "banker_score"
                    )
                    assert not better and not r.declines_first(p, b)
    assert all(r.decline_at_least(p) is None for p in range(11))


def test_compare_and_batch_follow_the_rule(tg_dir: Path, own: Path) -> None:
    rng = np.random.default_rng(17)
    both = np.array([rng.choice(32, 10, replace=False) for _ in range(400)])
    player, banker = both[:, :5], both[:, 5:]
    for reveals in ("first", "last"):
        out = tp.settle_batch(player, banker, FIXED, banker_reveals=reveals, tables=own)
        assert not out["declines"].any()
        for i in range(len(player)):
            p = ref.macau_points(player[i].tolist())
            b = ref.macau_points(banker[i].tolist())
            want = ref.difference_net(p, b, False, "banker_score")
            assert int(out["net"][i]) == want == -int(out["banker_net"][i])
            if i < 40:
                s = tp.settle(
                    player[i].tolist(),
                    banker[i].tolist(),
                    FIXED,
                    banker_reveals=reveals,
                    tables=own,
                )
                assert (s.net, s.player_declines) == (want, False)


# ------------------------------------------------------------------ every hand


def _col(t: LoadedTable, name: str) -> npt.NDArray[np.int64]:
    return np.asarray(t.column(name)).astype(np.int64)


def test_every_hand_decline_columns(macau: LoadedTable, own: Path) -> None:
    """All 201,376 hands: the rule file's own table against the rule text applied to the
    macau preset's banker distributions (checked against direct enumeration in
    test_hands.py; the strengths do not depend on the payment)."""
    got = tp.rule_columns(
        fixed(),
        ["strength", "decision_last", "decline_at_least", "ev_declare_num"]
        + ["ev_first_num", "ev_last_num"]
        + [f"banker_{k}" for k in range(11)],
        own,
    )
    p = _col(macau, "macau_points")
    assert np.array_equal(got["strength"], p)
    dist = np.stack([_col(macau, f"macau_banker_{k}") for k in range(11)], axis=1)
    for k in range(11):
        assert np.array_equal(got[f"banker_{k}"], dist[:, k])
    b = np.arange(11)[None, :]
    pays = np.where(b > 0, b, 4)  # the banker's score, 4 when he has no bull
    decline = -(dist * pays).sum(axis=1)
    keep = (dist * (p[:, None] - b)).sum(axis=1)
    declare = np.where(p > 0, keep, decline)
    first = np.where(p > 0, (dist * np.maximum(p[:, None] - b, -pays)).sum(axis=1), decline)
    assert np.array_equal(got["ev_declare_num"], declare)
    assert np.array_equal(got["ev_first_num"], first)
    assert np.array_equal(got["ev_last_num"], np.maximum(declare, decline))
    assert np.array_equal(first, declare)  # declining never helps
    assert np.array_equal(got["decision_last"], np.where(p > 0, 0, 2))
    assert (got["decline_at_least"] == 255).all()
    assert (decline < -4 * BANKER_HANDS).sum() > 100_000  # paying b costs more on average


@pytest.mark.slow
def test_sampled_hands_by_direct_enumeration(own: Path) -> None:
    """End to end through ``evaluate``: the banker's score over every one of the 80,730
    hands of the other 27 tiles by the reference, then the EVs from the rule text."""
    for text in (
        "[1:1][2:2][3:3][5:1][6:1]",  # no bull
        "[5:4][1:1][6:4][6:4][5:5]",  # a 1: under the book it declines from 6
        "[6:5][4:1][3:3][5:5][2:2]",
        "[6:6][6:5][4:3][4:2][2:2]",
    ):
        h = tp.evaluate(text, FIXED, tables=own)
        ids = list(h.tiles)
        counts = ref.banker_counts(ids)
        assert list(h.banker or ()) == counts
        ev = ref.decline_evs(ref.macau_points(ids), counts, "banker_score")
        assert h.ev_decline == Fraction(ev["decline"], BANKER_HANDS)
        assert h.ev_banker_first == Fraction(ev["first"], BANKER_HANDS)
        assert h.ev_banker_last == Fraction(ev["last"], BANKER_HANDS)
        if h.has_bull:
            assert h.ev_declare == Fraction(ev["declare"], BANKER_HANDS)
            assert h.decision_last is not None and h.decision_last.label == "declare"
        assert h.decline_if_banker_at_least is None


# ------------------------------------------------------------------ the exact edge


def test_exact_edge_first_and_last(macau: LoadedTable, own: Path) -> None:
    """Sum of the rule text's net over every (player, banker) pair of disjoint hands, by
    the macau preset's banker distributions: the same for both reveal orders."""
    p = _col(macau, "macau_points")
    dist = np.stack([_col(macau, f"macau_banker_{k}") for k in range(11)], axis=1)
    net = np.array([[ref.difference_net(a, b, False, "banker_score") for b in range(11)]
                    for a in range(11)])  # fmt: skip
    total = int((dist * net[p]).sum())
    wins = int((dist * (net[p] > 0)).sum())
    pushes = int((dist * (net[p] == 0)).sum())
    for reveals in ("first", "last"):
        res = tn_odds.taungau_edge(FIXED, reveals, own)
        assert res.ev_optimal == res.ev_optimal_first == res.ev_optimal_last
        assert res.ev_always_declare == Fraction(total, PAIRS) == EXACT_EV
        assert (res.p_win, res.p_push) == (Fraction(wins, PAIRS), Fraction(pushes, PAIRS))
        assert res.decline_last == 0 and set(res.decline_from.values()) == {None}
    no_bull = p == 0
    pays = (dist[no_bull] * np.array([4, *range(1, 11)])).sum()
    assert res.ev_by_score["no_bull"] == Fraction(-int(pays), int(no_bull.sum()) * BANKER_HANDS)


def test_simulator_agrees() -> None:
    """The independent Monte Carlo simulator (its own evaluator and payment rule)."""
    r = fixed()
    declare = tn_sim.simulate_taungau(r, "declare", rounds=100_000, seed=21)
    first = tn_sim.simulate_taungau(r, "first", rounds=100_000, seed=22)
    assert declare.contains(EXACT_EV) and first.contains(EXACT_EV)


# ------------------------------------------------------------------ the command line


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(args, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_rule_file(tmp_path: Path) -> None:
    path = tmp_path / "fixed.toml"
    path.write_text(
        'game = "taungau"\nzero_counts_as = 10\nsettlement = "difference"\n'
        'no_bull_pays = "banker_score"\ndecline_allowed = true\n',
        encoding="utf-8",
    )
    tables = tmp_path / "tables"
    tables.mkdir()
    common = ["--rules", str(path), "--tables", str(tables), "--json"]
    no_bull, seven = "[1:1][2:2][3:3][5:1][6:1]", "[6:4][6:4][5:5][3:2][1:1]"
    code, out, err = run(["compare", "taungau", no_bull, seven, *common])
    assert code == 0, err
    assert "building the taungau table" in err  # the first use says so, on the CLI's err
    rec = json.loads(out)
    assert rec["banker"]["points"] == 7 and not rec["player"]["has_bull"]
    assert (rec["net"], rec["winner"]) == (-7, "banker")
    code, out, err = run(["compare", "taungau", no_bull, "[6:6][6:6][5:4][3:1][2:1]", *common])
    assert code == 0 and "building" not in err  # the cached table
    assert json.loads(out)["net"] == -3
    one, ten = "[5:4][1:1][6:4][6:4][5:5]", "[6:6][4:4][3:2][5:3][6:1]"
    code, out, _ = run(["compare", "taungau", one, ten, *common, "--banker-reveals", "first"])
    rec = json.loads(out)  # declining would pay 10: keep the bull, lose 9
    assert (rec["net"], rec["player"]["declines"]) == (-9, False)
    code, out, _ = run(["edge", "taungau", *common, "--banker-reveals", "first"])
    rec = json.loads(out)
    assert rec["ev_optimal_fraction"] == rec["ev_optimal_last_fraction"] == "-5856238/19539765"
    code, out, err = run(["eval", "taungau", "66 66 11 11 22", "--rules", "/no/such.toml"])
    assert code == 2


def test_diagnosis_names_fixed_macau(tmp_path: Path, tg_dir: Path) -> None:
    """Showdowns settled by the fixed-Macau rule, checked against ``macau``: every
    disagreement (a no-bull player against a banker not scoring 4) is explained by
    ``no_bull_pays=banker_score``; and the conformance vectors catch that variant."""
    rng = np.random.default_rng(31)
    rows, wrong = [], set()
    for i in range(1500):
        tiles = rng.choice(32, 10, replace=False).tolist()
        p, b = ref.macau_points(tiles[:5]), ref.macau_points(tiles[5:])
        net = ref.difference_net(p, b, False, "banker_score")
        if net != ref.difference_net(p, b, False, 4):
            wrong.add(i + 1)
        rows.append(
            {
                "player": "".join(ref.NAMES[t] for t in tiles[:5]),
                "banker": "".join(ref.NAMES[t] for t in tiles[5:]),
                "net": net,
            }
        )
    path = tmp_path / "fixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = run(["verify", "taungau", str(path), "--tables", str(tg_dir), "--json"])
    assert code == 1, err
    s = json.loads(out)
    assert s["disagree"] == len(wrong) > 0
    assert s["diagnosis"][0]["key"] == "no_bull_pays=banker_score", s["diagnosis"][:3]
    assert s["diagnosis"][0]["explains"] == len(wrong)
    from solver.games.taungau.vectors import taungau_vectors

    _, cov = taungau_vectors("macau", 1, 0, None, tg_dir)
    assert "no_bull_pays=banker_score" in cov["variants_caught"] and not cov["uncaught_variants"]
