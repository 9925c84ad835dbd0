"""The arguments the ``bull`` commands share: the game (only the games that have the
command, as the registry says), the game options each command acts on, and the
argument types that validate them.

A command offers an option only where it acts (:data:`ACTS_ON`): ``--bet`` and
``--commission`` where a Niu Niu bet is settled or priced, ``--banker-reveals`` where a
Tau Ngau decline is decided, ``--dealer-draws-at-most`` where the Pok Deng dealer's
policy is played out. A game that does not take an offered option refuses it by name
(``Game.accept``).

>>> ACTS_ON["rank"]
('bet',)
>>> games_with("advise")
['pokdeng']
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from solver import games

__all__ = [
    "ACTS_ON",
    "bounded",
    "commission",
    "deck_list",
    "game_argument",
    "game_options",
    "games_with",
    "seconds",
]

GAME_OPTIONS = ("bet", "commission", "banker_reveals", "dealer_draws_at_most")

ACTS_ON: dict[str, tuple[str, ...]] = {
    "eval": ("bet", "banker_reveals"),
    "compare": ("bet", "commission", "banker_reveals"),
    "rank": ("bet",),
    "round": ("bet", "commission", "banker_reveals"),
    "advise": ("dealer_draws_at_most",),
    "strategy": ("dealer_draws_at_most",),
    "edge": GAME_OPTIONS,
    "risk": GAME_OPTIONS,
    "verify": ("bet", "commission", "banker_reveals"),
    "probe": ("bet", "commission", "banker_reveals"),
    "audit": GAME_OPTIONS,
    "deal": GAME_OPTIONS,
}
"""The game options each command acts on (and so offers)."""


def commission(text: str) -> float:
    """``--commission``: a finite fraction in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, e.g. 0.05") from None
    if not math.isfinite(value) or not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a fraction in [0, 1), e.g. 0.05")
    return value


def bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} must be {low} to {high:,}")
        return value

    return read


def seconds(text: str) -> float:
    """``drill --time-limit``: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a finite number of seconds >= 0")
    return value


def deck_list(text: str) -> tuple[int, ...]:
    """``--shoe-decks 1,2,6``: distinct shoe sizes 1..8, in increasing order."""
    try:
        sizes = sorted({int(t) for t in text.split(",") if t.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of decks like 1,2,6") from None
    if not sizes or sizes[0] < 1 or sizes[-1] > 8:
        raise argparse.ArgumentTypeError(f"{text!r}: decks are 1..8, e.g. 1,2,6")
    return tuple(sizes)


def games_with(command: str) -> list[str]:
    """The registered games that have ``command`` (an optional one only where the game
    lists it in ``Game.commands``)."""
    from solver.kit.entry import OPTIONAL_COMMANDS

    if command not in OPTIONAL_COMMANDS:
        return list(games.names())
    return [g for g in games.names() if command in games.get(g).commands]


def game_argument(sp: argparse.ArgumentParser, command: str) -> None:
    """The positional GAME of ``command``: only the games that have it (a registered
    game without it is refused by name, an unknown one as an invalid choice)."""
    having = games_with(command)

    def read(text: str) -> str:
        if text in games.names() and text not in having:
            raise argparse.ArgumentTypeError(
                f"`bull {command}` is for {', '.join(having)} only, not {text}"
            )
        return text

    sp.add_argument("game", type=read, choices=having, help=f"the game: {', '.join(having)}")


def game_options(sp: argparse.ArgumentParser, command: str) -> None:
    """The game options ``command`` acts on (:data:`ACTS_ON`)."""
    acts = ACTS_ON[command]
    add: dict[str, Callable[[], Any]] = {
        "bet": lambda: sp.add_argument(
            "--bet", help="niuniu: the bet, any the rule set names (classic: equal, double)"
        ),
        "commission": lambda: sp.add_argument(
            "--commission",
            type=commission,
            metavar="C",
            help="niuniu: house commission on player winnings, a fraction (default: preset)",
        ),
        "banker_reveals": lambda: sp.add_argument(
            "--banker-reveals",
            choices=("first", "last"),
            help="taungau macau: does the banker show first or last",
        ),
        "dealer_draws_at_most": lambda: sp.add_argument(
            "--dealer-draws-at-most",
            type=bounded(0, 9),
            metavar="K",
            help="pokdeng: the dealer draws at a total of K or less (default 4)",
        ),
    }
    for name in GAME_OPTIONS:
        if name in acts:
            add[name]()
