"""`bull verify` on Pok Deng claims: clean files, planted hand and showdown mistakes
(caught on the right rows and named), malformed rows and shared cards; the mistakes
planted with an independent evaluator written here from RULES.md §5, never with the
code under test."""

from __future__ import annotations

import random
from functools import cache, partial
from pathlib import Path
from typing import Any

import pytest
from test_verify import (
    DECK,
    assert_planted,
    rank,
    verify_json,
    write_csv,
    write_jsonl,
)


def pd_class(
    cards: list[str],
    straights: bool = False,
    ace: str = "both",
    pok_pair_deng: int = 2,
    three_card_pok: bool = False,
) -> tuple[int, int, int]:
    """(type rank, points, deng) from RULES §5: Normal 0 < Sam Lueang 1 < Straight 2 <
    Straight Flush 3 < Tong 4 < Pok 5 (or the mistake: a three-card 8/9 as Pok)."""
    t, p, d = _pd_class(tuple(cards), straights, ace, pok_pair_deng)
    if three_card_pok and len(cards) == 3 and t == 0 and p >= 8:
        return 5, p, d
    return t, p, d


@cache
def _pd_class(
    cards: tuple[str, ...], straights: bool, ace: str, pok_pair_deng: int
) -> tuple[int, int, int]:
    pts = sum(rank(c) if rank(c) < 10 else 0 for c in cards) % 10
    suits = {c[-1] for c in cards}
    ranks = sorted(rank(c) for c in cards)
    if len(cards) == 2:
        pair, suited = ranks[0] == ranks[1], len(suits) == 1
        deng = 2 if pair or suited else 1
        if pts >= 8:
            return 5, pts, pok_pair_deng if pair else deng
        return 0, pts, deng
    if len(set(ranks)) == 1:
        return 4, pts, 5
    run3 = ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1
    if ace == "high":
        run3 = run3 and ranks[0] != 1
    if ace in ("high", "both") and ranks == [1, 12, 13]:
        run3 = True
    if straights and run3:
        return (3, pts, 5) if len(suits) == 1 else (2, pts, 3)
    if min(ranks) > 10:
        return 1, pts, 3
    return 0, pts, 3 if len(suits) == 1 else 1


def pd_net(
    p: tuple[int, int, int],
    d: tuple[int, int, int],
    tong_vs_sam: int = 2,
    deng_first: bool = False,
    tong_ranks: tuple[int, int] | None = None,
) -> int:
    if {p[0], d[0]} == {4, 1}:
        return tong_vs_sam if p[0] == 4 else -tong_vs_sam
    if tong_ranks is not None and p[0] == d[0] == 4:  # the mistake: ranks decide
        return (
            p[2] if tong_ranks[0] > tong_ranks[1] else -d[2] if tong_ranks[0] < tong_ranks[1] else 0
        )
    kp, kd = ((p[0], p[2], p[1]), (d[0], d[2], d[1])) if deng_first else (p[:2], d[:2])
    if kp > kd:
        return p[2]
    if kp < kd:
        return -d[2]
    return 0 if deng_first else p[2] - d[2]


def pd_hands(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    fixed = [
        ["9S", "9D"],
        ["5S", "4C"],
        ["AC", "4C", "4D"],
        ["6C", "4C", "5C"],
        ["KH", "2S", "AC"],
        ["QS", "KS", "AS"],
        ["AH", "2D", "3C"],
        ["JS", "QH", "KD"],
        ["3S", "3H", "3D"],
        ["KS", "KH", "KD"],
        ["4S", "4D"],
        ["8H", "QH"],
    ]
    return fixed + [rng.sample(DECK, rng.choice((2, 3))) for _ in range(n)]


pd_verify = partial(verify_json, game="pokdeng")


PD_TYPES = ["normal", "sam_lueang", "straight", "straight_flush", "tong", "pok"]


def pd_row(cards: list[str], **kw: Any) -> dict[str, Any]:
    t, p, d = pd_class(cards, **kw)
    return {"hand": " ".join(cards), "points": p, "type": PD_TYPES[t], "deng": d}


def test_pokdeng_clean(tmp_path: Path, pokdeng_tables: Path) -> None:
    hands = pd_hands(1500, 11)
    code, s = pd_verify(write_csv(tmp_path / "c.csv", [pd_row(h) for h in hands]), pokdeng_tables)
    assert code == 0 and s["checked"] == len(hands)
    rows = [pd_row(h, straights=True) for h in hands]
    code, s = pd_verify(
        write_jsonl(tmp_path / "s.jsonl", rows), pokdeng_tables, "--rules", "straights"
    )
    assert code == 0


@pytest.mark.parametrize(
    ("kw", "rules", "expected"),
    [
        ({"straights": True, "ace": "both"}, "standard", "straights=true,ace=both"),
        ({"straights": True, "ace": "low"}, "standard", "straights=true,ace=low"),
        ({"straights": False}, "straights", "straights=false"),
        ({"pok_pair_deng": 1}, "standard", "deng.pok_pair=1"),
        ({"three_card_pok": True}, "standard", "mistake=three_card_pok"),
    ],
)
def test_pokdeng_planted_hands(
    tmp_path: Path, pokdeng_tables: Path, kw: dict[str, Any], rules: str, expected: str
) -> None:
    truth = {"straights": rules == "straights"}
    rows, wrong = [], set()
    for i, h in enumerate(pd_hands(3000, 12)):
        good, bad = pd_row(h, **truth), pd_row(h, **kw)
        rows.append(bad)
        if good != bad:
            wrong.add(i + 2)
    out = tmp_path / "bad.jsonl"
    code, s = pd_verify(
        write_csv(tmp_path / "p.csv", rows), pokdeng_tables, "--rules", rules, "--out", str(out)
    )
    assert_planted(code, s, out, wrong, expected)


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"tong_vs_sam": 5}, "tong_vs_sam_lueang_pays=5"),
        ({"deng_first": True}, "mistake=deng_before_points"),
        ({"tong_by_rank": True}, "mistake=tong_by_rank"),
    ],
)
def test_pokdeng_planted_showdowns(
    tmp_path: Path, pokdeng_tables: Path, kw: dict[str, Any], expected: str
) -> None:
    rng = random.Random(13)
    deals = [
        (["3S", "3H", "3D"], ["JS", "QH", "KD"]),
        (["QC", "JD", "KS"], ["7S", "7H", "7D"]),
        (["6C", "4C", "5C"], ["KH", "2S", "3C"]),
        (["6C", "4C", "5C"], ["2S", "3S"]),
        (["3S", "3H", "3D"], ["KS", "KH", "KD"]),
        (["9S", "9H", "9D"], ["QS", "QH", "QD"]),
        (["2S", "2H", "2D"], ["AS", "AH", "AD"]),
        (["JS", "JH", "JD"], ["4S", "4H", "4D"]),
    ]
    for _ in range(2000):
        cards = rng.sample(DECK, 6)
        deals.append((cards[: rng.choice((2, 3))], cards[3 : 3 + rng.choice((2, 3))]))
    rows, wrong = [], set()
    for i, (p, d) in enumerate(deals):
        good = pd_net(pd_class(p), pd_class(d))
        extra = dict(kw)
        if extra.pop("tong_by_rank", False):
            extra["tong_ranks"] = (rank(p[0]), rank(d[0]))
        bad = pd_net(pd_class(p), pd_class(d), **extra)
        rows.append(
            {
                "player": " ".join(p),
                "dealer": " ".join(d),
                "net": bad,
                "winner": "player" if bad > 0 else "dealer" if bad < 0 else "push",
            }
        )
        if bad != good:
            wrong.add(i + 1)
    out = tmp_path / "bad.jsonl"
    code, s = pd_verify(write_jsonl(tmp_path / "s.jsonl", rows), pokdeng_tables, "--out", str(out))
    assert_planted(code, s, out, wrong, expected)


def test_pokdeng_malformed_and_shared_card(tmp_path: Path, pokdeng_tables: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("player,dealer,net\n9S 9D,AC 4C 4D,2\n9S 9D,9S 4C,1\nAS 2S 3S 4S,5S 6S,1\n")
    code, s = pd_verify(path, pokdeng_tables)
    assert code == 1 and s["checked"] == 1 and s["disagree"] == 0
    assert [m["line"] for m in s["malformed_rows"]] == [3, 4]
    assert "both hands" in s["malformed_rows"][0]["message"]
