"""A rule file that changes only settlement (issue 28): commission, bets and multipliers,
what a tie does, the name. Its hands rank as its preset's, so it answers from the
preset's hand table: no table is built (the 2.6 M-hand build took 91 s and 1.5 GB), and
its figures are the direct ones."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import solver.games.niuniu.hands as nh
import solver.games.niuniu.play as nn
from solver.core.indexing import all_subsets
from solver.games.niuniu.odds import niuniu_edge
from solver.games.niuniu.rules import load_rules


def _no_build(*args: object, **kwargs: object) -> None:
    raise AssertionError("a settlement-only rule file must not build a hand table")


@pytest.mark.slow
def test_a_commission_only_rule_file_reuses_the_preset_hand_table(
    tmp_path: Path, niuniu_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {**load_rules("casino").to_data(), "name": "tenpercent", "commission": 0.1}
    f = tmp_path / "tenpercent.json"
    f.write_text(json.dumps(data))
    rules = load_rules(str(f))
    monkeypatch.setattr(nh, "build_table", _no_build)
    cache = tmp_path / "tables"  # a tables directory of its own: nothing may appear in it
    cache.mkdir()
    for name in ("niuniu.parquet", "MANIFEST.json", "current", "sets"):
        (cache / name).symlink_to(niuniu_tables / name)
    before = {p.relative_to(cache).as_posix() for p in cache.rglob("*")}
    # every hand's category and strength: the rule set's own, computed here directly
    cards = all_subsets(52, 5)
    cat, strength = nh.compiled_arrays(cards, rules)
    got = nn.evaluate_batch(cards, str(f), tables=cache)
    assert np.array_equal(got["category"], cat) and np.array_equal(got["strength"], strength)
    # the edge: one deck deals no ties and the loser pays the winner's multiplier, so
    # EV = -c x sum_k m_k P(player wins with k) (tests/niuniu/test_edge_rules.py)
    edge = niuniu_edge(str(f), tables=cache)
    row = rules.multiplier_row(None)
    mult = {c.label: row[int(c)] for c in nh.Category if int(c) < len(row)}
    want = -Fraction(1, 10) * sum(mult[k] * p for k, p in edge.player_win_category.items())
    assert edge.ev == want
    assert edge.ev == niuniu_edge("casino", commission=0.1, tables=niuniu_tables).ev
    # no table written: the one thing added is the edge's figures, the matchup sums
    # cached beside the tables (rules/matchup-sums-*.json)
    added = {p.relative_to(cache).as_posix() for p in cache.rglob("*")} - before
    assert added <= {"rules"} | {a for a in added if a.startswith("rules/matchup-sums-")}
    assert all(a.endswith(".json") for a in added - {"rules"})
    # a rule file that ranks hands differently still gets its own table built
    monkeypatch.undo()
    ranked = {
        **data,
        "special_definitions": {**data["special_definitions"], "five_small_bull_total": "below_10"},
    }
    f.write_text(json.dumps(ranked))
    assert nn.evaluate("AS AH 2S 2H 4D", str(f), tables=cache).category == nh.Category.NO_BULL
    assert any(p.name.startswith("niuniu-") for p in (cache / "rules").iterdir())


def test_a_rule_files_table_holds_its_own_columns_on_the_presets_hands(
    tmp_path: Path, niuniu_tables: Path
) -> None:
    """A rule file that ranks hands its own way gets a table of its two own columns; the
    hands and their facts are read from the preset table of its deck. Where no preset
    table is, the same rule set's table is built whole, also over a file of own columns
    found there; and every column and row reads the same from either."""
    import pyarrow.parquet as pq

    from solver.games.niuniu.source import rules_table
    from solver.store import custom

    cache = tmp_path / "tables"
    cache.mkdir()
    for name in ("niuniu.parquet", "MANIFEST.json", "current", "sets"):
        (cache / name).symlink_to(niuniu_tables / name)
    rules = load_rules(
        {"game": "niuniu", "base": "classic", "name": "own", "tie_break": "rank_by_rank"}
    )
    said: list[str] = []
    custom._OPEN.clear()
    thin = rules_table(rules, cache, notice=said.append)
    assert pq.read_schema(thin.path).names == ["own_category", "own_strength"]
    alone = tmp_path / "alone"  # a tables directory without the preset table
    alone.mkdir()
    whole_path = custom.rule_table_path("niuniu", rules.to_data(), alone)
    whole_path.parent.mkdir(parents=True, exist_ok=True)
    whole_path.write_bytes(thin.path.read_bytes())  # a file of own columns, no preset table
    whole = rules_table(rules, alone, notice=said.append)
    assert len(said) == 2 and "building" in said[1]
    assert pq.read_schema(whole.path).names == whole.column_names == thin.column_names
    assert len(whole.column_names) == 19
    rows = np.random.default_rng(5).integers(0, rules.hands, 200)
    got, want = thin.rows(rows, thin.column_names), whole.rows(rows, whole.column_names)
    for c in whole.column_names:
        assert np.array_equal(thin.column(c), whole.column(c)), c
        assert np.array_equal(got[c], want[c]), c
    cards = thin.columns([f"c{i}" for i in range(5)])
    assert np.array_equal(np.stack(list(cards.values()), axis=1), all_subsets(52, 5))
