"""``bull drill``: answers computed here by brute force from the rule text (RULES.md
§3-§5: the bull's three cards or tiles, the points, the winner) score 100%; wrong ones
are explained by their arithmetic and counted by kind; a typo is asked again, not
scored; ``quit``, end of input and the time limit end it with a summary; ``--json``
writes one line per event."""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterator

import pytest
from test_rank_round import nn_key, nn_value, pd_class, pd_net, tn_best, tn_types

from solver import games
from solver.cli import main
from solver.kit.drill import DrillSummary, read_points, run_drill


def nn_bull(hand: str) -> tuple[list[str], int] | None:
    """A bull (three cards summing to a multiple of 10) and the points, or None."""
    cards = hand.split()
    for three in itertools.combinations(range(5), 3):
        if sum(nn_value(cards[i]) for i in three) % 10 == 0:
            rest = sum(nn_value(cards[i]) for i in range(5) if i not in three)
            return [cards[i] for i in three], (rest - 1) % 10 + 1
    return None


def tn_bull(hand: str) -> tuple[list[str], int] | None:
    """Macau: a bull reaching the best score (RULES §4, [2:1]/[4:2] as 3 or 6)."""
    types = tn_types(hand)
    best = tn_best(types, True)
    if best == 0:
        return None
    choices = [(3, 6) if t in ("42", "21") else (int(t[0]) + int(t[1]),) for t in types]
    for vals in itertools.product(*choices):
        for three in itertools.combinations(range(5), 3):
            if sum(vals[i] for i in three) % 10 == 0:
                d = sum(vals[i] for i in range(5) if i not in three) % 10
                if (d or 10) == best:
                    return [f"{types[i][0]}{types[i][1]}" for i in three], best
    raise AssertionError("the best score has a bull")


class Oracle:
    """Answers each prompt from the hands the drill printed (brute force)."""

    def __init__(self, out: io.StringIO, game: str, deals: int, wrong: bool = False) -> None:
        self.out, self.game, self.deals, self.wrong = out, game, deals, wrong

    def hands(self) -> list[str]:
        last = self.out.getvalue().rsplit("deal ", 1)[-1]
        return re.findall(r"hand \d+: (.+)\n", last)

    def lines(self) -> Iterator[str]:
        for _ in range(self.deals):
            hands = self.hands()
            for h in hands:
                if self.game == "pokdeng":
                    pts = pd_class(h)[1]
                    yield str((pts + 1) % 10) if self.wrong else str(pts)
                    continue
                found = nn_bull(h) if self.game == "niuniu" else tn_bull(h)
                if found is None:
                    if self.wrong:  # three cards that are no bull, and some points
                        yield " ".join(h.split()[:3])
                        yield "5"
                    else:
                        yield "no bull"
                    continue
                three, pts = found
                # ranks only for Niu Niu ("A 2 7"), two-digit tiles for Tau Ngau ("65")
                named = [c[:-1] for c in three] if self.game == "niuniu" else three
                yield " ".join(named)
                yield str(pts % 10 + 1) if self.wrong else ("niu niu" if pts == 10 else str(pts))
            yield str(self.winner(hands) + 1)

    def winner(self, hands: list[str]) -> int:
        n = range(len(hands))
        if self.game == "niuniu":
            return max(n, key=lambda i: nn_key(hands[i]))
        if self.game == "taungau":
            return max(n, key=lambda i: tn_best(tn_types(hands[i]), True))
        return max(n, key=lambda i: sum(1 for j in n if pd_net(hands[i], hands[j]) >= 0))


def drill(
    game: str, deals: int, hands: int, wrong: bool = False, lines: Iterator[str] | None = None
) -> tuple[DrillSummary, str]:
    g = games.get(game)
    deck = g.drill_deck(None, None)
    out = io.StringIO()
    oracle = Oracle(out, game, deals, wrong)
    summary = run_drill(
        deck,
        lambda hs: g.eval_records(hs, None, {}, None),
        lambda hs: g.rank_record(hs, None, {}, None),
        g.eval_text,
        lines if lines is not None else oracle.lines(),
        out,
        hands=hands,
        seed=7,
    )
    return summary, out.getvalue()


@pytest.mark.parametrize(
    ("game", "hands"), [("niuniu", 2), ("niuniu", 4), ("taungau", 3), ("pokdeng", 3)]
)
def test_brute_force_answers_score_everything(game: str, hands: int) -> None:
    summary, text = drill(game, 15, hands)
    assert summary.questions == 15 * (hands + 1)
    assert summary.correct == summary.questions, text
    assert "wrong" not in text and "not an answer" not in text
    assert "100%" in text.splitlines()[-1] and summary.missed == {}
    if game != "pokdeng":
        assert text.count(" bull (three of it, or 'no bull')? ") == 15 * hands + 1  # asked


def test_wrong_answers_are_explained_with_the_arithmetic() -> None:
    summary, text = drill("niuniu", 5, 2, wrong=True)
    assert summary.questions == 15
    assert summary.correct == 5  # only the winners were right
    assert text.count("  wrong: ") == 10
    assert sum(summary.missed.values()) == 10
    wrong = re.findall(r"  wrong: (.*)", text)
    assert len(wrong) == 10
    # verify's arithmetic ("A+2+7 = 10 is a bull, 4+9 = 13, points 3"), not P(win)/EV
    assert all("P(win)" not in w and "EV" not in w for w in wrong), wrong
    assert all(" = " in w or "no three of" in w for w in wrong), wrong
    arithmetic = r"niu_\w+: \w+(\+\w+){2} = \d+ is a bull, \w+\+\w+ = \d+, points \d+"
    assert any(re.fullmatch(arithmetic, w) for w in wrong)
    # every hand without a bull was named by three cards: said to be no bull
    dealt = re.findall(r"hand \d+: (.+)\n", text)
    assert text.count(" is not a bull; ") == sum(nn_bull(h) is None for h in dealt) > 0
    _, pd_text = drill("pokdeng", 3, 2, wrong=True)
    assert re.search(r"wrong: \w+\+\w+ = \d\+\d = \d+, points \d \(\w+, \d deng\)", pd_text)


def test_a_typo_is_asked_again_and_quit_ends() -> None:
    good = Oracle(io.StringIO(), "pokdeng", 1)
    out = io.StringIO()
    good.out = out
    answers = good.lines()

    def with_typos() -> Iterator[str]:
        yield "banana"  # not scored: asked again
        yield "²"  # a superscript two is no digit (issue 24: a traceback before)
        yield "9" * 5000
        yield from answers
        yield "quit"

    g = games.get("pokdeng")
    summary = run_drill(
        g.drill_deck(None, None),
        lambda hs: g.eval_records(hs, None, {}, None),
        lambda hs: g.rank_record(hs, None, {}, None),
        g.eval_text,
        with_typos(),
        out,
        hands=2,
        seed=7,
    )
    text = out.getvalue()
    assert summary.reason == "quit" and summary.reasked == 3
    assert summary.questions == 3 and summary.correct == 3, text
    assert text.count("not an answer: ") == 3 and "drill over (quit): 3 of 3 right" in text


def test_cli_piped_input_and_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("7\nno bull\n1\n"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["drill", "niuniu", "--seed", "1"], out, err) == 0
    text = out.getvalue()
    assert "seed 1" in text and "drill over (end of input): " in text
    assert re.search(r"(\d) of \d right", text)
    monkeypatch.setattr("sys.stdin", io.StringIO("7\n" * 100))
    out = io.StringIO()
    assert main(["drill", "niuniu", "--seed", "1", "--time-limit", "0"], out, err) == 0
    assert "time limit" in out.getvalue() and "0 of 0" in out.getvalue()
    assert main(["drill", "niuniu", "--hands", "5"], out, err) == 2


def test_cli_json_is_one_object_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("no bull\nno bull\n1\nquit\n"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["drill", "niuniu", "--seed", "1", "--json"], out, err) == 0
    recs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["event"] for r in recs][:3] == ["start", "deal", "ask"]
    answers = [r for r in recs if r["event"] == "answer"]
    assert len(answers) == 3 and all(isinstance(r["right"], bool) for r in answers)
    assert all(r["explain"] for r in answers)
    deal = next(r for r in recs if r["event"] == "deal")
    assert len(deal["hands"]) == 2 and all(len(h) == 5 for h in deal["hands"])
    last = recs[-1]
    assert last["event"] == "summary" and last["reason"] == "quit"
    assert last["questions"] == 3 and last["correct"] == sum(r["right"] for r in answers)


def test_read_points() -> None:
    answers = ("No bull", "niu niu", "Niu 7", "bull 3", "10", "abc", "²", "11", "9" * 10**6)
    assert [read_points(a) for a in answers] == [0, 10, 7, 3, 10, None, None, None, None]
