"""What ``--help`` offers is what acts (issue 28, "One vocabulary", CLI): every option of
every command has help text; a command lists only the games that have it (the
registry's ``commands``); a game option is offered only by the commands it changes,
and each offered one changes the answer."""

from __future__ import annotations

import argparse
import io
import json
from typing import Any

import pytest

from solver import games
from solver.cli import _parser, main
from solver.cli_options import ACTS_ON

FLAGS = {
    "bet": "--bet",
    "commission": "--commission",
    "banker_reveals": "--banker-reveals",
    "dealer_draws_at_most": "--dealer-draws-at-most",
}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"bull {name} {a.option_strings[0] if a.option_strings else a.dest}"
        for name, sp in _subparsers().items()
        for a in sp._actions
        if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()
    ]
    assert missing == []
    deal = _subparsers()["deal"].format_help()
    for flag in ("--rounds", "--seed", "--bias"):
        assert flag in deal


def _game_choices(sp: argparse.ArgumentParser) -> list[str] | None:
    for a in sp._actions:
        if a.dest == "game" and not a.option_strings:
            return list(a.choices or [])
    return None


def test_a_command_lists_only_the_games_that_have_it() -> None:
    subs = _subparsers()
    for command in ("advise", "strategy", "grab"):
        having = [g for g in games.names() if command in games.get(g).commands]
        assert 0 < len(having) < len(games.names())
        assert _game_choices(subs[command]) == having, command
        other = next(g for g in games.names() if g not in having)
        out, err = io.StringIO(), io.StringIO()
        assert main([command, other, "x"], out, err) == 2
        assert f"`bull {command}` is for {', '.join(having)} only, not {other}" in err.getvalue()
    for command in ("eval", "compare", "rank", "round", "odds", "edge", "verify"):
        assert _game_choices(subs[command]) == list(games.names()), command


def test_game_options_only_where_they_act() -> None:
    for name, sp in _subparsers().items():
        offered = {k for k, flag in FLAGS.items() if flag in sp._option_string_actions}
        if name == "vectors":  # its own --banker-reveals: the vectors' Tau Ngau showdowns
            assert offered == {"banker_reveals"}
            continue
        assert offered == set(ACTS_ON.get(name, ())), name


def _json(*argv: str) -> Any:
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--json"], out, err) == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


NN = ("KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "4C 7C 8H JD KH")
TN = ("66 65 43 42 22", "65 41 33 55 11")


@pytest.mark.parametrize(
    ("argv", "flag", "value"),
    [
        (["eval", "niuniu", NN[0]], "--bet", "double"),
        (["compare", "niuniu", NN[0], NN[2]], "--bet", "double"),
        (["compare", "niuniu", NN[0], NN[2]], "--commission", "0"),
        (["rank", "niuniu", NN[0], NN[1]], "--bet", "double"),
        (["round", "niuniu", "--banker", NN[2], "--player", NN[0]], "--bet", "double"),
        (["round", "niuniu", "--banker", NN[2], "--player", NN[0]], "--commission", "0"),
        (["eval", "taungau", TN[0]], "--banker-reveals", "first"),
        (["compare", "taungau", TN[1], TN[0]], "--banker-reveals", "first"),
        (["round", "taungau", "--banker", TN[0], "--player", TN[1]], "--banker-reveals", "first"),
        (["advise", "pokdeng", "7H 5D"], "--dealer-draws-at-most", "6"),
        (["strategy", "pokdeng"], "--dealer-draws-at-most", "6"),
    ],
)
def test_an_offered_option_changes_the_answer(argv: list[str], flag: str, value: str) -> None:
    """Each game option a cheap command offers changes its record (the slow commands —
    edge, verify, audit, deal, probe, risk — are covered by their own tests)."""
    assert _json(*argv) != _json(*argv, flag, value)
