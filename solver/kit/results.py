"""The result types every game's Python API returns: one per concept.

* a game's evaluated hand (``NiuNiuHand``, ``TauNgauHand``, ``PokDengHand``) holds its
  hand as ``hand`` (item ids, canonical order; ``names`` spells them) and is ordered
  by strength under its rule set with ``<``/``>`` (:class:`Ranked`);
* ``compare(player, banker)`` returns a :class:`Showdown` — both hands, the winner and
  the reason — in every game;
* ``settle(player, banker)`` returns a :class:`Settlement` — the showdown and what it
  pays: ``net`` (the player's, in stakes), ``banker_net``, ``bet`` and ``commission``.

The house side is ``banker`` in every result; Pok Deng names it the dealer (RULES.md
§8: its winner is ``"dealer"``) and its results answer ``.dealer`` too.

>>> from solver.games.niuniu import play as nn
>>> s = nn.settle("JS QS KS 5H 5D", "4C 7C 8D JD KH", bet="double")
>>> s.winner, s.net, s.banker_net, s.showdown.reason
('player', 2.85, -3.0, 'niu_niu beats no_bull')
>>> nn.evaluate("JS QS KS 5H 5D") > nn.evaluate("4C 7C 8D JD KH")
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from solver.core.errors import BullError

__all__ = ["Ranked", "Settlement", "Showdown"]

H = TypeVar("H")


class Ranked:
    """Hands of one rule set ordered by strength: ``a < b`` when ``b`` beats ``a`` in a
    showdown. ``==`` stays the dataclass's (the same hand under the same rules); two
    hands of equal strength are neither ``<`` nor ``>``. Comparing hands of two rule
    sets or two games is an error naming both."""

    __slots__ = ()

    rules: str

    def versus(self, other: Any) -> int:
        """-1, 0 or 1: how this hand does against ``other`` (the game's order)."""
        raise NotImplementedError  # pragma: no cover

    def _check(self, other: object) -> Any:
        if type(other) is not type(self):
            raise BullError(
                f"cannot order a {type(self).__name__} against a {type(other).__name__}"
            )
        if other.rules != self.rules:
            raise BullError(
                f"cannot order hands of two rule sets ({self.rules!r} and {other.rules!r})"
            )
        return other

    def __lt__(self, other: object) -> bool:
        return self.versus(self._check(other)) < 0

    def __le__(self, other: object) -> bool:
        return self.versus(self._check(other)) <= 0

    def __gt__(self, other: object) -> bool:
        return self.versus(self._check(other)) > 0

    def __ge__(self, other: object) -> bool:
        return self.versus(self._check(other)) >= 0


@dataclass(frozen=True, slots=True)
class Showdown(Generic[H]):
    """One player's hand against the banker's (Pok Deng: the dealer's): who wins and
    why. ``winner`` is ``"player"``, ``"banker"`` (``"dealer"`` in Pok Deng) or
    ``"push"``. Tau Ngau adds whether the player declines his bull and when the
    banker reveals (``None`` in the other games)."""

    player: H
    banker: H
    winner: str
    reason: str
    rules: str
    player_declines: bool = False
    banker_reveals: str | None = None

    @property
    def dealer(self) -> H:
        """The banker's hand under Pok Deng's name for him."""
        return self.banker

    def __str__(self) -> str:
        return (
            f"{self.winner} wins: {self.reason}"
            if self.winner != "push"
            else (f"push: {self.reason}")
        )


@dataclass(frozen=True, slots=True)
class Settlement(Generic[H]):
    """A settled showdown: ``net`` is the player's net in stakes after commission,
    ``banker_net`` the banker's (they differ by the house's commission), ``bet`` the
    bet settled (``None`` where the game has no bets) and ``commission`` the fraction
    of a player's winnings the house keeps (0 where the game takes none)."""

    showdown: Showdown[H]
    net: float
    banker_net: float
    bet: str | None = None
    commission: float = 0.0

    @property
    def winner(self) -> str:
        return self.showdown.winner

    @property
    def reason(self) -> str:
        return self.showdown.reason

    @property
    def player(self) -> H:
        return self.showdown.player

    @property
    def banker(self) -> H:
        return self.showdown.banker

    @property
    def dealer(self) -> H:
        return self.showdown.banker

    @property
    def rules(self) -> str:
        return self.showdown.rules

    @property
    def player_declines(self) -> bool:
        return self.showdown.player_declines

    @property
    def comparison(self) -> Showdown[H]:
        """The showdown (the name of the first releases)."""
        return self.showdown

    def __str__(self) -> str:
        bet = f" ({self.bet} bet)" if self.bet else ""
        return f"{self.showdown}; player net {self.net:+g}{bet}"
