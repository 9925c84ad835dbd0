"""The Pok Deng rule language (issue 22): types, their precedence, their deng and whether
they compare by type or by points, as data. Today's presets are sugar for it (expanded,
written as TOML and read back, they give the committed table's columns byte for byte),
and the issue's two Pok Deng houses — runs paid their deng but typed and compared as
Normal hands by points; J-Q-K tested as "pictures" (Sam Lueang) before the straight
test — are rule files whose every hand agrees with an evaluator written here from the
issue text and RULES.md §5."""

from __future__ import annotations

import io
import tomllib
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from solver.cli import main
from solver.core.errors import RulesError
from solver.core.rules import to_toml
from solver.games.pokdeng.hands import all_hands, all_shoe_hands, classify, settle
from solver.games.pokdeng.rules import load_rules

REPO = Path(__file__).resolve().parent.parent


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("preset", ["standard", "straights", "shoe8"])
def test_expanded_presets_classify_every_hand_alike(preset: str, tmp_path: Path) -> None:
    code, text, err = run("rules", "pokdeng", "--rules", preset, "--expand")
    assert code == 0, err
    data = tomllib.loads(text)
    assert "straights" not in data and "ace" not in data and data["types"]
    path = tmp_path / f"{preset}.toml"
    path.write_text(text, encoding="utf-8")
    full, rules = load_rules(str(path)), load_rules(preset)
    assert full.types and full.expand() == data  # the full form round-trips
    for size in (2, 3):
        hands = all_shoe_hands(size) if rules.decks > 1 else all_hands(size)
        for mine, theirs in zip(classify(hands, full), classify(hands, rules), strict=True):
            assert mine.dtype == theirs.dtype and mine.tobytes() == theirs.tobytes()
    if preset == "shoe8":
        return
    # and the committed table's columns for the preset, byte for byte
    cols = ["size", "card0", "card1", "card2", f"{preset}_type", f"{preset}_deng",
            f"{preset}_strength"]  # fmt: skip
    t = pq.read_table(REPO / "tables" / "pokdeng.parquet", columns=cols)
    size = t.column("size").to_numpy()
    for n in (2, 3):
        rows = size == n
        cards = np.stack([t.column(f"card{i}").to_numpy()[rows] for i in range(n)], axis=1)
        kind, points, deng = classify(cards, full)
        strength = (10 * kind.astype(np.int16) + points).astype(np.int8)
        assert kind.tobytes() == t.column(f"{preset}_type").to_numpy()[rows].tobytes()
        assert deng.tobytes() == t.column(f"{preset}_deng").to_numpy()[rows].tobytes()
        assert strength.tobytes() == t.column(f"{preset}_strength").to_numpy()[rows].tobytes()


# ---------------------------------------------------------------- the houses

TYPES = ["normal", "sam_lueang", "straight", "straight_flush", "tong", "pok"]


def brute(cards: tuple[int, ...], house: str) -> tuple[str, int, int]:
    """(type, points, deng) of one hand, from RULES §5 and the issue's two houses (one
    deck; the standard [deng] table)."""
    ranks = sorted(c >> 2 for c in cards)
    suits = {c & 3 for c in cards}
    points = sum(r + 1 if r < 9 else 0 for r in ranks) % 10
    suited = len(suits) == 1
    if len(cards) == 2:
        pair = ranks[0] == ranks[1]
        if points >= 8:
            return "pok", points, 2 if pair or suited else 1
        return "normal", points, 2 if pair or suited else 1
    run = (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1) or ranks == [0, 11, 12]
    faces = all(r >= 10 for r in ranks)
    by_kind = 3 if suited else 1  # a three-card pair: 1 under the standard table
    if len(set(ranks)) == 1:
        return "tong", points, 5
    if house == "runs_as_normal":  # a run is paid 3 (5 of one suit) but is a Normal hand
        if run:
            return "normal", points, 5 if suited else 3
        if faces:
            return "sam_lueang", points, 3
        return "normal", points, by_kind
    # pictures first: J-Q-K is Sam Lueang even though it is a run
    if faces:
        return "sam_lueang", points, 3
    if run:
        return ("straight_flush", points, 5) if suited else ("straight", points, 3)
    return "normal", points, by_kind


HOUSES: dict[str, list[dict[str, Any]]] = {
    "runs_as_normal": [
        {"name": "pok", "when": "cards == 2 and points >= 8", "deng": "kind"},
        {"name": "tong", "when": "kind == 3", "deng": 5},
        {"name": "normal", "when": "cards == 3 and straight(both) and suited", "deng": 5},
        {"name": "normal", "when": "cards == 3 and straight(both)", "deng": 3},
        {"name": "sam_lueang", "when": "faces == 3", "deng": 3},
        {"name": "normal", "when": "true", "deng": "kind"},
    ],
    "pictures_first": [
        {"name": "pok", "when": "cards == 2 and points >= 8", "deng": "kind"},
        {"name": "tong", "when": "kind == 3", "deng": 5},
        {"name": "sam_lueang", "when": 'cards == 3 and all_in("J-K")', "deng": 3},
        {"name": "straight_flush", "when": "straight(both) and suited", "deng": 5},
        {"name": "straight", "when": "straight(both)", "deng": 3},
        {"name": "normal", "when": "true", "deng": "kind"},
    ],
}


def _file(tmp_path: Path, types: list[dict[str, Any]], **top: Any) -> str:
    data = {"game": "pokdeng", "name": "house", **top, "types": types}
    path = tmp_path / "house.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("house", sorted(HOUSES))
def test_a_house_of_types_classifies_every_hand_as_written(house: str, tmp_path: Path) -> None:
    rules = load_rules(_file(tmp_path, HOUSES[house]))
    for size in (2, 3):
        hands = all_hands(size)
        kind, points, deng = classify(hands, rules)
        assert sorted(map(tuple, hands.tolist())) == list(combinations(range(52), size))
        for i, cards in enumerate(hands.tolist()):
            want = brute(tuple(cards), house)
            got = (TYPES[kind[i]], int(points[i]), int(deng[i]))
            assert got == want, (cards, got, want)


def test_runs_compare_by_points_and_pictures_beat_runs(tmp_path: Path) -> None:
    runs = load_rules(_file(tmp_path, HOUSES["runs_as_normal"]))
    # 4-5-6 (a run, 5 points, 3 deng) against 3-4-K (7 points): the 7 wins, by points
    t = classify(np.array([[12, 17, 22], [8, 13, 48]]), runs)
    assert settle(t[0][0], t[1][0], t[2][0], t[0][1], t[1][1], t[2][1], runs).tolist() == -1
    # the run that wins on points is paid its 3 deng
    t = classify(np.array([[24, 29, 34], [8, 13, 48]]), runs)  # 7-8-9: 24, 4 points
    assert TYPES[int(t[0][0])] == "normal" and int(t[1][0]) == 4 and int(t[2][0]) == 3
    pictures = load_rules(_file(tmp_path, HOUSES["pictures_first"]))
    # J-Q-K: Sam Lueang, not a straight, so the straight 4-5-6 beats it (its 3 deng)
    t = classify(np.array([[40, 45, 50], [12, 17, 22]]), pictures)
    assert [TYPES[k] for k in t[0].tolist()] == ["sam_lueang", "straight"]
    assert settle(t[0][0], t[1][0], t[2][0], t[0][1], t[1][1], t[2][1], pictures).tolist() == -3


@pytest.mark.parametrize(
    "types,top,words",
    [
        ([{"name": "run", "when": "true"}], {}, ["types[1].name", "'run'"]),
        ([{"name": "normal", "when": "faces >> 2"}], {}, ["type 1", "malformed"]),
        ([{"name": "normal", "when": "true", "deng": 12}], {}, ["deng 12"]),
        ([{"name": "normal", "when": "true"}], {"straights": True}, ["'straights'", "per type"]),
        ([{"name": "normal", "when": "true", "colour": 1}], {}, ["'colour'"]),
    ],
)
def test_bad_types_are_one_line_errors(
    types: list[dict[str, Any]], top: dict[str, Any], words: list[str], tmp_path: Path
) -> None:
    path = _file(tmp_path, types, **top)
    with pytest.raises(RulesError) as exc:
        load_rules(path)
    msg = str(exc.value)
    assert "\n" not in msg and all(w in msg for w in words), msg
    code, out, err = run("rules", "pokdeng", "--rules", path)
    assert code == 2 and out == "" and err.count("\n") == 1


# ---------------------------------------------------------------- verify's catalogue


@pytest.mark.parametrize("preset", ["standard", "straights"])
def test_an_expanded_preset_gets_the_presets_catalogue(preset: str, tmp_path: Path) -> None:
    """A file in the rule language is diagnosed with the same rule variants as the
    preset it expands (straights, the ace, each type's deng ...), and every variant
    gives every hand (and a seeded sample of showdowns) the same answers."""
    from solver.games.pokdeng.diagnose import (
        pokdeng_catalogue,
        pokdeng_hand_answers,
        pokdeng_showdown_answers,
    )

    keyed = load_rules(preset)
    path = tmp_path / "full.toml"
    path.write_text(to_toml(keyed.expand()), encoding="utf-8")
    full = load_rules(str(path))
    assert full.types
    mine = {v.key: v for v in pokdeng_catalogue(full, "all")}
    theirs = {v.key: v for v in pokdeng_catalogue(keyed, "all")}
    assert sorted(mine) == sorted(theirs)
    want = {
        "standard": {"straights=true,ace=both", "straights=true,ace=low", "deng.tong=3"},
        "straights": {"straights=false", "ace=low", "ace=high", "deng.straight=1"},
    }
    assert want[preset] <= set(mine)
    cards = np.full((1326 + 22100, 3), 255, dtype=np.uint8)
    cards[:1326, :2] = all_hands(2)
    cards[1326:] = all_hands(3)
    size = np.r_[np.full(1326, 2), np.full(22100, 3)]
    rng = np.random.default_rng(22)
    deal = np.array([rng.permutation(52)[:6] for _ in range(2_000)], dtype=np.uint8)
    ps, ds = rng.integers(2, 4, 2_000), rng.integers(2, 4, 2_000)
    pl, dl = deal[:, :3].copy(), deal[:, 3:].copy()
    pl[ps == 2, 2] = 255
    dl[ds == 2, 2] = 255
    for key in sorted(mine):
        a = pokdeng_hand_answers(cards, size, full, mine[key])
        b = pokdeng_hand_answers(cards, size, keyed, theirs[key])
        for field in ("type", "points", "deng"):
            assert a[field].tobytes() == b[field].tobytes(), (key, field)
        a = pokdeng_showdown_answers(pl, ps, dl, ds, full, mine[key])
        b = pokdeng_showdown_answers(pl, ps, dl, ds, keyed, theirs[key])
        assert a["net"].tobytes() == b["net"].tobytes(), key
