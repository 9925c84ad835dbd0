"""`bull verify` on Niu Niu claims: planted mistakes are caught on the right rows and
attributed to the right rule variant; clean files pass; malformed input is reported.

Mistakes are planted with a small, independent Niu Niu evaluator written here from
RULES.md §3 (cards as text, every rule spelled out), never with the code under test.
The evaluators are pure functions of a hand: each hand is worked out once
(``functools.cache``) however many tests and claims files ask for it.
"""

from __future__ import annotations

import csv
import io
import json
import random
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.cli import main

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = "SHDC"
DECK = [r + s for r in RANKS for s in SUITS]


# ---------------------------------------------------------------- the independent reference


@cache
def rank(card: str) -> int:
    return RANKS.index(card[:-1]) + 1  # 1..13


@cache
def value(card: str) -> int:
    return min(rank(card), 10)


def bull(cards: list[str], skip_first: bool = False) -> tuple[bool, int]:
    """(has bull, points), trying every triple (or, the mistake, none using card 0)."""
    return _bull(tuple(cards), skip_first)


@cache
def _bull(cards: tuple[str, ...], skip_first: bool) -> tuple[bool, int]:
    idx = range(1, 5) if skip_first else range(5)
    for t in combinations(idx, 3):
        if sum(value(cards[i]) for i in t) % 10 == 0:
            p = sum(value(c) for c in cards) % 10
            return True, 10 if p == 0 else p
    return False, 0


def category(
    cards: list[str],
    specials: list[str],
    *,
    fsb_below_10: bool = False,
    fsb_any_rank: bool = False,
    four_faces_any: bool = False,
    skip_first: bool = False,
) -> str:
    """The category label under ``specials`` (low to high), with the mistakes asked for."""
    return _category(
        tuple(cards), tuple(specials), fsb_below_10, fsb_any_rank, four_faces_any, skip_first
    )


@cache
def _category(
    cards: tuple[str, ...],
    specials: tuple[str, ...],
    fsb_below_10: bool,
    fsb_any_rank: bool,
    four_faces_any: bool,
    skip_first: bool,
) -> str:
    ranks = sorted(rank(c) for c in cards)
    faces = sum(r > 10 for r in ranks)
    total = sum(value(c) for c in cards)
    qualifies = {
        "five_faces": faces == 5,
        "four_faces": faces == 4 and (four_faces_any or ranks.count(10) == 1),
        "four_of_a_kind": any(ranks.count(r) == 4 for r in ranks),
        "straight_flush": len({c[-1] for c in cards}) == 1
        and ranks == list(range(ranks[0], ranks[0] + 5)),
        "five_small_bull": (fsb_any_rank or max(ranks) <= 4)
        and (total < 10 if fsb_below_10 else total <= 10),
    }
    best = None
    for s in specials:
        if qualifies[s]:
            best = s
    if best:
        return best
    has, p = _bull(cards, skip_first)
    return "no_bull" if not has else "niu_niu" if p == 10 else f"niu_{p}"


CLASSIC = ["five_faces"]
CASINO = ["five_faces", "four_of_a_kind", "straight_flush", "five_small_bull"]


def hand_claims(cards: list[str], specials: list[str], **mistakes: bool) -> dict[str, Any]:
    has, p = bull(cards, mistakes.get("skip_first", False))
    if mistakes.get("niu_niu_zero") and p == 10:
        p = 0
    cat_kw = {k: v for k, v in mistakes.items() if k != "niu_niu_zero"}
    return {
        "hand": " ".join(cards),
        "has_bull": has,
        "points": p,
        "category": category(cards, specials, **cat_kw),
    }


def special_hands() -> list[list[str]]:
    """Hands at every special-hand boundary, plus plain ones (all in a fixed order)."""
    out = []
    # five small bull: totals 5..12 with all cards A..4, and with a 5
    for combo in combinations([c for c in DECK if rank(c) <= 4], 5):
        t = sum(value(c) for c in combo)
        if t in (9, 10, 11) and len(out) < 60:
            out.append(list(combo))
    out += [
        ["AS", "AH", "AD", "2C", "5S"],
        ["AS", "AH", "AD", "AC", "5S"],
        ["AS", "AH", "AD", "2C", "6S"],
        ["AS", "2H", "3D", "AC", "3S"],
    ]
    # four faces with and without a 10; five faces; quads; straight flushes
    out += [
        ["JS", "QH", "KD", "JC", "10S"],
        ["JS", "QH", "KD", "JC", "9S"],
        ["JS", "QH", "KD", "JC", "AS"],
        ["JS", "QH", "KD", "JC", "5H"],
        ["JS", "JH", "JD", "JC", "10S"],
        ["JS", "JH", "JD", "JC", "QS"],
        ["JS", "QH", "KD", "KC", "QS"],
        ["7S", "7H", "7D", "7C", "3S"],
        ["AS", "2S", "3S", "4S", "5S"],
        ["9H", "10H", "JH", "QH", "KH"],
        ["AS", "AH", "AD", "AC", "2S"],
        ["2S", "2H", "2D", "2C", "AS"],
    ]
    return out


def sample_hands(n: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    return [rng.sample(DECK, 5) for _ in range(n)]


# ---------------------------------------------------------------- helpers


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def verify_json(
    path: Path, tables: Path, *extra: str, game: str = "niuniu"
) -> tuple[int, dict[str, Any]]:
    """``bull verify GAME`` of ``path`` with ``--json``: its exit code (0 or 1) and report."""
    code, out, err = run("verify", game, str(path), "--tables", str(tables), "--json", *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    keys = list(rows[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(
                {k: ("true" if v is True else "false" if v is False else v) for k, v in r.items()}
            )
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def planted(
    tmp_path: Path,
    name: str,
    specials: list[str],
    seed: int = 1,
    n_random: int = 1500,
    truth: list[str] | None = None,
    **mistakes: bool,
) -> tuple[Path, set[int]]:
    """A CSV of claims made with ``mistakes`` (and ``specials``), and the line numbers
    where the claim differs from the right one under ``truth`` (default: ``specials``);
    line 1 is the header."""
    rows, wrong = [], set()
    for i, cards in enumerate(special_hands() + sample_hands(n_random, seed)):
        good = hand_claims(cards, truth or specials)
        bad = hand_claims(cards, specials, **mistakes)
        rows.append(bad)
        if bad != good:
            wrong.add(i + 2)
    return write_csv(tmp_path / name, rows), wrong


def disagreeing_lines(out_file: Path) -> set[int]:
    return {json.loads(line)["line"] for line in out_file.read_text().splitlines()}


def assert_planted(code: int, s: dict[str, Any], out: Path, wrong: set[int], expected: str) -> None:
    """A file with a planted mistake, verified with ``--out``: exit 1; the rows it
    changed, and only they, disagree and are written out (there are some); the first
    cause listed is the planted one, and it explains every one of them."""
    assert code == 1 and s["disagree"] == len(wrong) > 0
    assert disagreeing_lines(out) == wrong
    assert s["diagnosis"][0]["key"] == expected, s["diagnosis"][:3]
    assert s["diagnosis"][0]["explains"] == len(wrong)


# ---------------------------------------------------------------- clean files


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_clean_file_passes(tmp_path: Path, niuniu_tables: Path, fmt: str) -> None:
    rows = [hand_claims(c, CLASSIC) for c in special_hands() + sample_hands(400, 7)]
    if fmt == "csv":
        path = write_csv(tmp_path / "c.csv", rows)
    elif fmt == "jsonl":
        path = write_jsonl(tmp_path / "c.jsonl", rows)
    else:
        path = tmp_path / "c.parquet"
        pq.write_table(pa.Table.from_pylist(rows), path)
    code, s = verify_json(path, niuniu_tables)
    assert code == 0
    assert (s["rows"], s["checked"], s["agree"], s["disagree"]) == (len(rows),) * 3 + (0,)
    assert s["by_field"] == {"has_bull": 0, "points": 0, "category": 0}
    assert s["diagnosis"] == [] and s["malformed"] == 0


def test_clean_casino_and_text_summary(tmp_path: Path, niuniu_tables: Path) -> None:
    rows = [hand_claims(c, CASINO) for c in special_hands() + sample_hands(300, 8)]
    path = write_csv(tmp_path / "c.csv", rows)
    code, out, _ = run(
        "verify", "niuniu", str(path), "--rules", "casino", "--tables", str(niuniu_tables)
    )
    assert code == 0
    assert f"rows read {len(rows)}, checked {len(rows)}" in out
    assert "result: all claims agree" in out


def test_lists_and_odd_spellings(tmp_path: Path, niuniu_tables: Path) -> None:
    """JSON list hands, Parquet list columns, unicode suits, commas, T for ten."""
    rows = [
        {"hand": ["AS", "2C", "4D", "7H", "9S"], "points": 3},
        {"hand": "a♠, 2♣, 4♦, 7♥, 9♠", "points": 3},
        {"hand": "TS JS QS KS 5H", "points": 5},
        {"hand": [0, 5, 14, 27, 32], "points": 3},  # card ids: AS 2H 4D 7C 9S
    ]
    code, s = verify_json(write_jsonl(tmp_path / "l.jsonl", rows[:3]), niuniu_tables)
    assert code == 0 and s["checked"] == 3
    path = tmp_path / "l.parquet"
    pq.write_table(
        pa.table(
            {
                "hand": pa.array([["AS", "2C", "4D", "7H", "9S"], ["KS", "QS", "JS", "10S", "5H"]]),
                "points": [3, 5],
            }
        ),
        path,
    )
    assert verify_json(path, niuniu_tables)[0] == 0
    path = tmp_path / "ids.parquet"
    pq.write_table(
        pa.table(
            {
                "hand": pa.array([[0, 5, 14, 27, 32], [0, 0, 1, 2, 3], None], pa.list_(pa.uint8())),
                "points": [3, 3, 3],
            }
        ),
        path,
    )
    code, s = verify_json(path, niuniu_tables)
    assert code == 1 and s["checked"] == 1 and s["numbering"] == "row"
    assert [(m["line"], m["message"]) for m in s["malformed_rows"]] == [
        (2, "hand: duplicate card AS"),
        (3, "hand: empty"),
    ]


# ---------------------------------------------------------------- planted mistakes


@pytest.mark.parametrize(
    ("mistake", "specials", "rules", "expected"),
    [
        ({"fsb_below_10": True}, CASINO, "casino", "five_small_bull_total=below_10"),
        ({"fsb_any_rank": True}, CASINO, "casino", "five_small_bull_max_rank=any"),
        ({"skip_first": True}, CLASSIC, "classic", "mistake=bull_skips_first"),
        ({"skip_first": True}, CASINO, "casino", "mistake=bull_skips_first"),
        ({"niu_niu_zero": True}, CLASSIC, "classic", "mistake=niu_niu_as_zero"),
    ],
)
def test_planted_hand_mistake(
    tmp_path: Path,
    niuniu_tables: Path,
    mistake: dict[str, bool],
    specials: list[str],
    rules: str,
    expected: str,
) -> None:
    path, wrong = planted(tmp_path, "p.csv", specials, **mistake)
    assert wrong, "the planted mistake must change some claims"
    out = tmp_path / "bad.jsonl"
    code, s = verify_json(path, niuniu_tables, "--rules", rules, "--out", str(out))
    assert_planted(code, s, out, wrong, expected)
    assert s["headline"].startswith(f"all {len(wrong)} disagreement")


def test_four_faces_without_the_ten(tmp_path: Path, niuniu_tables: Path) -> None:
    """An implementation counting Four Faces with any fifth card, against a rule file
    that counts Four Faces properly."""
    specials = ["four_faces", "five_faces"]
    rules = tmp_path / "ff.toml"
    rules.write_text(
        'game = "niuniu"\nname = "ff"\nspecials = ["four_faces", "five_faces"]\n'
        'tie_break = "highest_card"\nsuit_order = ["S", "H", "C", "D"]\n'
        'bets = ["equal"]\ndefault_bet = "equal"\ncommission = 0.05\n'
        "[multipliers.equal]\ndefault = 1\n"
    )
    path, wrong = planted(tmp_path, "ff.csv", specials, four_faces_any=True)
    code, s = verify_json(path, niuniu_tables, "--rules", str(rules))
    assert code == 1 and s["disagree"] == len(wrong) >= 3
    assert s["diagnosis"][0]["key"] == "four_faces_fifth=any"
    assert s["diagnosis"][0]["explains"] == len(wrong)


def test_four_faces_counted_when_the_preset_does_not(tmp_path: Path, niuniu_tables: Path) -> None:
    path, wrong = planted(
        tmp_path, "ff.csv", ["four_faces", *CASINO], truth=CASINO, four_faces_any=True
    )
    code, s = verify_json(path, niuniu_tables, "--rules", "casino")
    assert code == 1 and s["disagree"] == len(wrong)
    assert s["diagnosis"][0]["key"] == "four_faces_fifth=any"
    assert s["diagnosis"][0]["explains"] == len(wrong)


@pytest.mark.parametrize(
    ("specials", "expected"),
    [
        (
            ["five_faces", "five_small_bull", "four_of_a_kind", "straight_flush"],
            "special_order=five_faces<five_small_bull<straight_flush<four_of_a_kind",
        ),
        (["five_faces", "four_of_a_kind", "five_small_bull"], "specials_without=straight_flush"),
    ],
)
def test_planted_specials(
    tmp_path: Path, niuniu_tables: Path, specials: list[str], expected: str
) -> None:
    """Which specials count, and their order (AAAA2 is both quads and five small bull)."""
    path, wrong = planted(tmp_path, "sp.csv", specials, truth=CASINO)
    code, s = verify_json(path, niuniu_tables, "--rules", "casino")
    assert code == 1 and s["disagree"] == len(wrong) > 0
    assert s["diagnosis"][0]["key"] == expected, s["diagnosis"][:3]
    assert s["diagnosis"][0]["explains"] == len(wrong)


def test_two_mistakes_are_covered_together(tmp_path: Path, niuniu_tables: Path) -> None:
    path, wrong = planted(tmp_path, "two.csv", CASINO, fsb_below_10=True, skip_first=True)
    code, s = verify_json(path, niuniu_tables, "--rules", "casino")
    assert code == 1 and s["disagree"] == len(wrong)
    keys = {k for c in s["cover"] for k in c["key"].split("+")}  # the two, or their pair
    assert {"mistake=bull_skips_first", "five_small_bull_total=below_10"} <= keys
    assert sum(c["explains"] for c in s["cover"]) == len(wrong)


def test_reason_and_correct_answer(tmp_path: Path, niuniu_tables: Path) -> None:
    path = write_csv(
        tmp_path / "r.csv",
        [
            {"hand": "AS 2C 4D 7H 9S", "has_bull": False, "points": 0, "bull": ""},
            {"hand": "7S 3H 10D 8C 6S", "has_bull": True, "points": 4, "bull": "8C 6S 10D"},
            {"hand": "KS 9H 8C 3D 7S", "has_bull": True, "points": 7, "bull": "KS 9H 8C"},
            {"hand": "KS 9H 8C 3D 7S", "has_bull": True, "points": 7, "bull": "3D 7S KS"},
            {"hand": "4C 7C 8D JD KH", "has_bull": False, "points": 0, "bull": "none"},
            {"hand": "4C 7C 8D JD KH", "has_bull": "", "points": "", "bull": "4C 7C 8D"},
        ],
    )
    out = tmp_path / "bad.csv"
    code, s = verify_json(path, niuniu_tables, "--out", str(out))
    assert code == 1
    rows = list(csv.DictReader(out.open()))
    assert [int(r["line"]) for r in rows] == [2, 3, 4, 7]
    assert "claimed no_bull" in rows[0]["reason"] and "A+2+7 = 10" in rows[0]["reason"]
    assert "points 3" in rows[0]["reason"]
    assert json.loads(rows[0]["correct"])["points"] == 3
    assert "6+8+10 = 24 is not a multiple of 10" in rows[1]["reason"]
    assert "not a multiple of 10" in rows[2]["reason"]
    assert s["fields"]["bull"]["not_stated"] == 1
    assert s["fields"]["has_bull"]["not_stated"] == 1


def test_bull_claim_any_valid_bull(tmp_path: Path, niuniu_tables: Path) -> None:
    """Every valid bull is a right claim, not only our canonical one."""
    cards = ["KS", "JH", "QC", "5D", "5S"]  # K+J+Q = 30, J+5+5 = 20, ...
    rows = []
    for t in combinations(range(5), 3):
        b = [cards[i] for i in t]
        ok = sum(value(c) for c in b) % 10 == 0
        rows.append(({"hand": " ".join(cards), "bull": " ".join(b)}, ok))
    path = write_jsonl(tmp_path / "b.jsonl", [r for r, _ in rows])
    out = tmp_path / "bad.jsonl"
    _code, s = verify_json(path, niuniu_tables, "--out", str(out))
    assert disagreeing_lines(out) == {i + 1 for i, (_, ok) in enumerate(rows) if not ok}
    assert s["fields"]["bull"]["agree"] == sum(ok for _, ok in rows)


# ---------------------------------------------------------------- showdowns


def highest(cards: list[str], suits: str) -> tuple[int, int]:
    return max((rank(c), 3 - suits.index(c[-1])) for c in cards)


def first_written_top(cards: list[str], suits: str) -> tuple[int, int]:
    """The mistake: the top rank, with the suit of the first card of that rank written."""
    top = max(rank(c) for c in cards)
    first = next(c for c in cards if rank(c) == top)
    return top, 3 - suits.index(first[-1])


def showdown(
    player: list[str],
    banker: list[str],
    suits: str = "SHCD",
    tie_break: str = "highest_card",
    commission: float = 0.05,
) -> dict[str, Any]:
    """classic: categories then the highest card; equal bet paying 1 less commission."""
    order = ["no_bull"] + [f"niu_{k}" for k in range(1, 10)] + ["niu_niu", "five_faces"]
    cp, cb = category(player, CLASSIC), category(banker, CLASSIC)
    kp, kb = order.index(cp), order.index(cb)
    if kp == kb:
        if tie_break == "input_order":
            kp, kb = first_written_top(player, suits), first_written_top(banker, suits)
        elif tie_break == "rank_by_rank":
            rp = sorted((rank(c) for c in player), reverse=True)
            rb = sorted((rank(c) for c in banker), reverse=True)
            kp, kb = (rp, highest(player, suits)), (rb, highest(banker, suits))
        else:
            kp, kb = highest(player, suits), highest(banker, suits)
    winner = "player" if kp > kb else "banker" if kb > kp else "push"
    net = round(1 - commission, 9) if winner == "player" else -1 if winner == "banker" else 0
    return {"player": " ".join(player), "banker": " ".join(banker), "winner": winner, "net": net}


def deals(n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ten = rng.sample(DECK, 10)
        out.append((ten[:5], ten[5:]))
    # same top rank, suits decide; pairs of the top rank in one hand
    out += [
        (["KS", "9H", "8C", "3D", "7S"], ["KH", "9S", "8D", "3C", "7H"]),
        (["KC", "9H", "8C", "3D", "7S"], ["KD", "9S", "8D", "3C", "7H"]),
        (["KD", "KH", "2C", "3D", "5S"], ["KS", "QS", "2D", "3C", "4H"]),
        # a pair at the top, the lower suit written first: niu niu against niu niu
        (["KD", "KS", "9D", "8D", "3D"], ["KH", "KC", "9H", "8H", "3H"]),
        (["QC", "QH", "9C", "8C", "3C"], ["QD", "QS", "9S", "8S", "3S"]),
        (["JD", "JH", "9D", "8D", "3D"], ["JC", "JS", "9H", "8H", "3H"]),
    ]
    return out


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"suits": "SHDC"}, "suit_order=SHDC"),
        ({"tie_break": "rank_by_rank"}, "tie_break=rank_by_rank"),
        ({"commission": 0.03}, "commission=0.03"),
        ({"tie_break": "input_order"}, "mistake=suit_from_input_order"),
    ],
)
def test_planted_showdown_mistake(
    tmp_path: Path, niuniu_tables: Path, kwargs: dict[str, Any], expected: str
) -> None:
    rows, wrong = [], set()
    for i, (p, b) in enumerate(deals(1500, 3)):
        good, bad = showdown(p, b), showdown(p, b, **kwargs)
        rows.append(bad)
        if bad != good:
            wrong.add(i + 2)
    assert wrong
    out = tmp_path / "bad.jsonl"
    code, s = verify_json(write_csv(tmp_path / "s.csv", rows), niuniu_tables, "--out", str(out))
    assert_planted(code, s, out, wrong, expected)


def test_clean_showdowns_with_dealer_column(tmp_path: Path, niuniu_tables: Path) -> None:
    rows = [showdown(p, b) for p, b in deals(300, 4)]
    for r in rows:
        r["dealer"] = r.pop("banker")
        r["extra"] = "ignored"
    code, s = verify_json(write_jsonl(tmp_path / "s.jsonl", rows), niuniu_tables)
    assert code == 0 and s["checked"] == len(rows)


# ---------------------------------------------------------------- --out is atomic


class FailingFile:
    """A file that fails with ``exc`` once ``budget`` characters are written: a full disk,
    or an interruption, in the middle of writing."""

    def __init__(self, f: Any, budget: int, exc: BaseException) -> None:
        self.f, self.budget, self.exc = f, budget, exc

    def write(self, text: str) -> int:
        if len(text) > self.budget:
            self.f.write(text[: self.budget])
            self.f.flush()
            raise self.exc
        self.budget -= len(text)
        return int(self.f.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.f, name)


def fail_writes_after(monkeypatch: pytest.MonkeyPatch, budget: int, exc: BaseException) -> None:
    """Files the ``--out`` writer opens fail after ``budget`` characters."""
    import builtins

    import solver.kit.findings

    real_open = builtins.open

    def failing_open(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(path, mode, *args, **kwargs)
        return FailingFile(f, budget, exc) if "w" in mode or "x" in mode else f

    monkeypatch.setattr(solver.kit.findings, "open", failing_open, raising=False)


@pytest.mark.parametrize("name", ["bad.jsonl", "bad.csv"])
@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_out_never_half_written(
    tmp_path: Path,
    niuniu_tables: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    exc: BaseException,
) -> None:
    """A run that fails or is interrupted while writing --out leaves the old file as it
    was (or none) and no temporary file; a finished run leaves exactly the whole file."""
    path, wrong = planted(tmp_path, "p.csv", CLASSIC, skip_first=True)
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / name
    out.write_text("old\n")
    fail_writes_after(monkeypatch, 2_000, exc)
    argv = ("verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--out", str(out))
    try:
        code, _, err = run(*argv)
    except KeyboardInterrupt:  # the CLI may also turn it into exit code 130
        code, err = 130, "interrupted"
    if isinstance(exc, KeyboardInterrupt):
        assert code == 130 and "interrupted" in err
    else:
        assert code == 2 and "cannot write" in err and "No space left" in err
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in outdir.iterdir()) == [name]
    monkeypatch.undo()
    code, _ = verify_json(path, niuniu_tables, "--out", str(out))
    assert code == 1 and sorted(p.name for p in outdir.iterdir()) == [name]
    text = out.read_text()
    assert len(text) > 2_000 and text.endswith("\n")
    if name.endswith(".jsonl"):
        assert disagreeing_lines(out) == wrong
    else:
        assert {int(r["line"]) for r in csv.DictReader(io.StringIO(text))} == wrong


def test_out_cannot_be_written(tmp_path: Path, niuniu_tables: Path) -> None:
    path, _ = planted(tmp_path, "p.csv", CLASSIC, n_random=50)
    for target in (tmp_path / "missing" / "bad.jsonl", tmp_path):
        code, _, err = run(
            "verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--out", str(target)
        )
        assert code == 2 and f"cannot write {target}" in err


# ---------------------------------------------------------------- malformed rows, bad input


def test_malformed_rows_reported_with_line_numbers(tmp_path: Path, niuniu_tables: Path) -> None:
    text = (
        "hand,points,category\n"
        "AS 2C 4D 7H 9S,3,niu_3\n"
        "AS 2C 4D 7H ZZ,3,niu_3\n"  # 3: unknown card
        "AS AS 4D 7H 9S,3,niu_3\n"  # 4: duplicate card
        "AS 2C 4D 7H,3,niu_3\n"  # 5: four cards
        "\n"  # 6: blank, ignored
        "AS 2C 4D 7H 9S,three,niu_3\n"  # 7: bad number
        "AS 2C 4D 7H 9S,3,niu_33\n"  # 8: unknown category
        "AS 2C 4D 7H 9S,3\n"  # 9: too few fields
        "KS 9H 8C 3D 7S,7,niu_7\n"
        ",3,niu_3\n"
    )  # 11: no hand
    path = tmp_path / "m.csv"
    path.write_text(text)
    for batch in ("262144", "2"):
        code, s = verify_json(path, niuniu_tables, "--batch-size", batch)
        assert code == 1
        assert s["malformed"] == 7 and s["checked"] == 2 and s["disagree"] == 0
        lines = {m["line"]: m["message"] for m in s["malformed_rows"]}
        assert set(lines) == {3, 4, 5, 7, 8, 9, 11}
        assert lines[11] == "hand: empty"
        assert "ZZ" in lines[3] and "duplicate" in lines[4] and "4 cards" in lines[5]
        assert "three" in lines[7] and "niu_33" in lines[8] and "fields" in lines[9]


def test_a_claim_column_empty_in_every_row(tmp_path: Path, niuniu_tables: Path) -> None:
    """A claim column with no byte at all (every value empty: not stated) is read, not
    a traceback."""
    path = tmp_path / "e.csv"
    path.write_text("hand,points\nAS 2C 4D 7H 9S,\nKS 9H 8C 3D 7S,\n")
    code, s = verify_json(path, niuniu_tables)
    assert code == 0 and s["checked"] == 2 and s["malformed"] == 0
    assert s["fields"]["points"]["not_stated"] == 2


@pytest.mark.parametrize("batch", ["262144", "2", "3"])
def test_malformed_jsonl_lines(tmp_path: Path, niuniu_tables: Path, batch: str) -> None:
    """Blocks read by Arrow at once and blocks read line by line number lines alike."""
    path = tmp_path / "m.jsonl"
    path.write_text(
        '{"hand": "AS 2C 4D 7H 9S", "points": 3}\n'
        '{"hand": "AS 2C 4D 7H 9S", "points": 3\n'
        "\n"
        "[1, 2]\n"
        '{"hand": "QS QH QD QC 10S", "points": 10}\n'
        '{"hand": ["QS", "QH", "QD", "QC", "10S"], "points": "10"}\n'
        '{"hand": "KS 9H 8C 3D 7S", "points": 7}\n'
        '{"hand": "KS 9H 8C 3D 7S", "points": 6}\n'
    )
    code, s = verify_json(path, niuniu_tables, "--batch-size", batch)
    assert code == 1 and s["checked"] == 5 and s["malformed"] == 2 and s["disagree"] == 1
    assert [m["line"] for m in s["malformed_rows"]] == [2, 4]
    assert [e["line"] for e in s["examples"]] == [8]


@pytest.mark.parametrize(
    ("content", "args", "needle"),
    [
        (None, (), "cannot read"),
        ("hand,x\nAS 2C 4D 7H 9S,1\n", (), "no claim columns"),
        ("hnd,points\nAS 2C 4D 7H 9S,3\n", (), "missing required columns"),
        ("hand,points\nAS 2C 4D 7H 9S,3\n", ("--column", "points=pts"), "'pts'"),
        ("hand,points\nAS 2C 4D 7H 9S,3\n", ("--column", "colour=x"), "unknown field"),
        ("hand,points\nZZ,3\nYY,4\n", (), "nothing readable"),
        ("hand,points\n", (), "no rows"),
    ],
)
def test_bad_input_exit_2(
    tmp_path: Path, niuniu_tables: Path, content: str | None, args: tuple[str, ...], needle: str
) -> None:
    path = tmp_path / "x.csv"
    if content is not None:
        path.write_text(content)
    code, out, err = run("verify", "niuniu", str(path), "--tables", str(niuniu_tables), *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_not_parquet_and_unknown_extension(tmp_path: Path, niuniu_tables: Path) -> None:
    bad = tmp_path / "x.parquet"
    bad.write_bytes(b"not parquet at all")
    code, _, err = run("verify", "niuniu", str(bad), "--tables", str(niuniu_tables))
    assert code == 2 and "Parquet" in err
    other = tmp_path / "x.dat"
    other.write_text("hand,points\nAS 2C 4D 7H 9S,3\n")
    code, _, err = run("verify", "niuniu", str(other), "--tables", str(niuniu_tables))
    assert code == 2 and "--format" in err
    code, _, _ = run(
        "verify", "niuniu", str(other), "--format", "csv", "--tables", str(niuniu_tables)
    )
    assert code == 0


def test_column_mapping(tmp_path: Path, niuniu_tables: Path) -> None:
    path = write_csv(tmp_path / "c.csv", [{"cards": "AS 2C 4D 7H 9S", "pts": 4}])
    code, s = verify_json(path, niuniu_tables, "--column", "hand=cards", "--column", "points=pts")
    assert code == 1 and s["by_field"] == {"points": 1}


def test_claims_from_standard_input(
    niuniu_tables: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``bull verify GAME -`` reads the claims from stdin (with --format), as a file."""
    import sys
    import tempfile

    class Stdin:
        buffer = io.BytesIO(b"hand,points\nKS 9H 8C 3D 7S,7\nAS 2S 3S 4S 5S,4\n")

    monkeypatch.setattr(sys, "stdin", Stdin())
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code, out, err = run(
        "verify", "niuniu", "-", "--format", "csv", "--json", "--tables", str(niuniu_tables)
    )
    summary = json.loads(out)
    assert code == 1 and summary["rows"] == 2 and summary["disagree"] == 1, err
    assert not list(tmp_path.glob("bull-stdin-*"))  # the spool is gone
    code, out, err = run("verify", "niuniu", "-", "--tables", str(niuniu_tables))
    assert code == 2 and "--format" in err and err.count("\n") == 1


def test_csv_lines_are_physical_and_a_bad_byte_is_one_malformed_row(
    tmp_path: Path, niuniu_tables: Path
) -> None:
    """Quoted fields holding newlines (in any column, read or not) do not shift the line
    numbers reported; a row that is not UTF-8 is malformed, the rest is checked."""
    path = tmp_path / "q.csv"
    path.write_bytes(
        b"hand,points,note\n"
        b'KS 9H 8C 3D 7S,7,"two\nlines"\n'  # lines 2-3
        b'AS 2S 3S 4S 5S,5,"three\r\nmore\nlines"\n'  # lines 4-6
        b"KS 9H 8C 3D,7,short hand\n"  # line 7
        b"AS 2S 3S 4S 6S,\xff6,bad byte\n"  # line 8
        b"1,2\n"  # line 9: too few fields
        b"AS 2S 3S 4S 7S,7,ok\n"  # line 10
    )
    code, s = verify_json(path, niuniu_tables)
    assert code == 1
    assert sorted((m["line"], m["message"][:12]) for m in s["malformed_rows"]) == [
        (7, "hand: hand '"),
        (8, "not UTF-8 te"),
        (9, "has 2 fields"),
    ]
    assert s["rows"] == 6 and s["checked"] == 3 and s["disagree"] == 0


def test_a_list_where_a_value_belongs_is_malformed_not_read_as_text(
    tmp_path: Path, niuniu_tables: Path
) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        '{"hand": "KS 9H 8C 3D 7S", "points": 7}\n'
        '{"hand": ["AS", "2S", "3S", "4S", "5S"], "points": [4]}\n'
        '{"hand": ["AS", "2S", "3S", "4S", "6S"], "points": 6}\n'
    )
    code, s = verify_json(mixed, niuniu_tables)
    assert code == 1 and s["checked"] == 2 and s["disagree"] == 0
    assert [m["line"] for m in s["malformed_rows"]] == [2]
    assert "'[4]'" in s["malformed_rows"][0]["message"]
    lists = tmp_path / "lists.jsonl"  # every row: Arrow reads the column as a list type
    lists.write_text('{"hand": "KS 9H 8C 3D 7S", "points": [7]}\n' * 3)
    code, _, err = run("verify", "niuniu", str(lists), "--tables", str(niuniu_tables))
    assert code == 2 and err.count("\n") == 1 and "expected an integer" in err


def test_a_hand_column_whose_type_changes_between_blocks(
    tmp_path: Path, niuniu_tables: Path
) -> None:
    """JSON Lines read block by block: text, then lists, then numbers — the rows that are
    no hand are malformed, the rest is checked."""
    path = tmp_path / "blocks.jsonl"
    path.write_text(
        '{"hand": "KS 9H 8C 3D 7S", "points": 7}\n{"hand": "AS 2S 3S 4S 6S", "points": 6}\n'
        '{"hand": ["AS", "2S", "3S", "4S", "5S"], "points": 5}\n'
        '{"hand": ["AS", "2S", "3S", "4S", "7S"], "points": 7}\n'
        '{"hand": 12, "points": 7}\n{"hand": {"a": 1}, "points": 7}\n'
    )
    code, s = verify_json(path, niuniu_tables, "--batch-size", "2")
    assert code == 1 and s["checked"] == 4 and s["agree"] == 4
    assert sorted(m["line"] for m in s["malformed_rows"]) == [5, 6]
