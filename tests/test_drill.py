"""``bull drill``: answers computed here by brute force from the rule text (RULES.md
§3, §5) score 100%; wrong ones are explained in one line and counted by kind; piped
input works, end of input and the time limit end it with a summary."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from test_rank_round import nn_category, nn_key, pd_class, pd_net

from solver import games
from solver.cli import main
from solver.kit.drill import DrillSummary, read_points, run_drill


class Oracle:
    """Answers each prompt from the hands the drill printed (brute force)."""

    def __init__(self, out: io.StringIO, game: str, deals: int, wrong: bool = False) -> None:
        self.out, self.game, self.deals, self.wrong = out, game, deals, wrong

    def hands(self) -> list[str]:
        text = self.out.getvalue()
        last = text.rsplit("deal ", 1)[-1]
        return re.findall(r"hand \d+: (.+)\n", last)

    def lines(self) -> Iterator[str]:
        for _ in range(self.deals):
            hands = self.hands()
            for h in hands:
                if self.game == "niuniu":
                    c = nn_category(h)
                    pts = 10 if c == 11 else c  # five faces: J+Q+K = 30, the rest 20
                    answer = "no bull" if c == 0 else "niu niu" if pts == 10 else str(pts)
                else:
                    answer = str(pd_class(h)[1])
                yield ("3" if answer != "3" else "4") if self.wrong else answer
            if self.game == "niuniu":
                best = max(range(len(hands)), key=lambda i: nn_key(hands[i]))
            else:
                best = max(
                    range(len(hands)),
                    key=lambda i: sum(
                        1 for j in range(len(hands)) if pd_net(hands[i], hands[j]) >= 0
                    ),
                )
            yield str(best + 1)


def drill(game: str, deals: int, hands: int, wrong: bool = False) -> tuple[DrillSummary, str]:
    g = games.get(game)
    deck = g.drill_deck(None, None)
    out = io.StringIO()
    oracle = Oracle(out, game, deals, wrong)
    summary = run_drill(
        deck,
        lambda hs: g.eval_records(hs, None, {}, None),
        lambda hs: g.rank_record(hs, None, {}, None),
        g.eval_text,
        oracle.lines(),
        out,
        hands=hands,
        seed=7,
    )
    return summary, out.getvalue()


@pytest.mark.parametrize(("game", "hands"), [("niuniu", 2), ("niuniu", 4), ("pokdeng", 3)])
def test_brute_force_answers_score_everything(game: str, hands: int) -> None:
    summary, text = drill(game, 15, hands)
    assert summary.questions == 15 * (hands + 1)
    assert summary.correct == summary.questions, text
    assert "wrong" not in text
    assert "100%" in text.splitlines()[-1] and summary.missed == {}


def test_wrong_answers_are_explained_and_counted() -> None:
    summary, text = drill("niuniu", 5, 2, wrong=True)
    assert summary.questions == 15
    assert summary.correct == 5  # only the winners were right
    assert text.count("  wrong: ") == 10
    assert "bull" in text and "[classic]" in text  # the explanation is the eval line
    assert sum(summary.missed.values()) == 10


def test_cli_piped_input_and_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("7\nno bull\n1\n"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["drill", "niuniu", "--seed", "1"], out, err) == 0
    text = out.getvalue()
    assert "seed 1" in text and "drill over (end of input): " in text
    assert re.search(r"(\d) of 3 right", text)
    monkeypatch.setattr("sys.stdin", io.StringIO("7\n" * 100))
    out = io.StringIO()
    assert main(["drill", "niuniu", "--seed", "1", "--time-limit", "0"], out, err) == 0
    assert "time limit" in out.getvalue() and "0 of 0" in out.getvalue()
    assert main(["drill", "niuniu", "--hands", "5"], out, err) == 2


def test_read_points() -> None:
    assert [read_points(a) for a in ("No bull", "niu niu", "Niu 7", "bull 3", "10", "abc")] == [
        0,
        10,
        7,
        3,
        10,
        None,
    ]
