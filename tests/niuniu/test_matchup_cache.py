"""The disk cache of Niu Niu's matchup sums (:func:`solver.games.niuniu.matchups.niuniu_sums`):
what a later process reads back is what was counted, a file that does not add up or was
written for another key is counted again, and what the counts do not depend on (the
name, the commission, what a tie does) shares one file. The figures themselves are
checked against brute force in test_odds.py and test_edge_rules.py, which reach them
through this cache. Preset ``no_faces`` (658,008 hands) keeps each count under a
second."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from solver.games.niuniu import matchups
from solver.games.niuniu.matchups import niuniu_matchups, niuniu_sums, sums_of
from solver.games.niuniu.odds import edge_of, niuniu_edge
from solver.games.niuniu.rules import load_rules
from solver.kit.exact import exact_commission


@pytest.fixture
def tables(niuniu_tables: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the tables with an empty cache, and nothing remembered in memory."""
    out = tmp_path / "tables"
    shutil.copytree(niuniu_tables, out, symlinks=True, ignore=shutil.ignore_patterns("rules"))
    monkeypatch.setattr(matchups, "_SUMS", {})
    return out


def _files(tables: Path) -> list[Path]:
    return sorted((tables / "rules").glob("matchup-sums-*.json"))


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process: nothing in memory (the disk cache stays)."""
    monkeypatch.setattr(matchups, "_SUMS", {})
    monkeypatch.setattr(matchups, "_MATCHUPS", {})


def test_sums_read_back_are_the_sums_counted(tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = load_rules("no_faces")
    counted = niuniu_sums(r, tables)
    [path] = _files(tables)
    direct = sums_of(niuniu_matchups(r, tables), r.n_codes)
    assert replace(counted, seconds=0) == replace(direct, seconds=0)
    assert counted.pairs == 658_008 * 324_632  # C(40,5) x C(35,5)
    _forget(monkeypatch)
    monkeypatch.setattr(matchups, "sums_of", lambda *a: pytest.fail("counted again"))
    assert niuniu_sums(r, tables) == counted  # from the file, seconds and all
    c = exact_commission(None, r.commission)
    for bet in r.bets:
        assert niuniu_edge(r, bet, None, tables) == edge_of(r, direct, bet, c)
    # the name, the commission and what a tie does are not in the key: the same file
    other = replace(r, name="mine", commission=0.0, on_tie="banker")
    assert niuniu_sums(other, tables).wins == counted.wins and _files(tables) == [path]
    assert niuniu_sums(other, tables).rules == "mine"


def test_a_file_that_does_not_add_up_or_has_another_key_is_counted_again(
    tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = load_rules("no_faces")
    counted = niuniu_sums(r, tables)
    [path] = _files(tables)
    whole = json.loads(path.read_text())
    k = counted.wins.index(max(counted.wins))
    broken = [
        {
            **whole,
            "sums": {**whole["sums"], "wins": [w + (i == k) for i, w in enumerate(counted.wins)]},
        },
        {**whole, "sums": {**whole["sums"], "decks": 2}},
        {**whole, "sums": {**whole["sums"], "hands": whole["sums"]["hands"][:-1]}},
        {**whole, "key": {**whole["key"], "pass": "shoe"}},
        [],
    ]
    niuniu_matchups(r, tables)  # the counts kept in memory: each count again is cheap
    counts = []
    monkeypatch.setattr(matchups, "sums_of", lambda *a: counts.append(1) or sums_of(*a))
    for i, bad in enumerate([*broken, "{not json"]):
        path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
        monkeypatch.setattr(matchups, "_SUMS", {})
        got = niuniu_sums(r, tables)
        assert len(counts) == i + 1  # counted again, not read
        assert replace(got, seconds=0) == replace(counted, seconds=0)
        assert json.loads(path.read_text())["sums"] == got.to_json()  # rewritten whole


def test_a_shoe_pass_is_kept_apart_from_the_one_deck_count(tables: Path) -> None:
    """The report compares the shoe pass's one-deck row with preset classic: the two
    must never be read from one cache entry (the check would compare a figure with
    itself)."""
    shoe, classic = load_rules("shoe6"), load_rules("classic")
    one = replace(shoe, decks=1, name="classic")
    assert matchups._cache_key(one, tables) == matchups._cache_key(classic, tables)
    assert matchups._sums_key(one, tables, True) != matchups._sums_key(classic, tables, False)
    disk = [
        matchups._disk_key(matchups._sums_key(x, tables, s))
        for x, s in ((one, True), (classic, False))
    ]
    assert disk[0] != disk[1]
