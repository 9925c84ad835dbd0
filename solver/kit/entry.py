"""A base for a game's registry entry: the optional commands a game need not have.

A game's ``GAME`` object (``solver/games/<game>/__init__.py``) subclasses
:class:`GameEntry` and lists in ``commands`` which optional commands it provides;
the faces read that list, so only the game that advises needs to say how.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.core.errors import BullError

__all__ = ["OPTIONAL_COMMANDS", "GameEntry"]

OPTIONAL_COMMANDS = ("advise", "strategy")
"""Commands only some games have."""


class GameEntry:
    """Defaults for the optional commands: each refuses, naming the game."""

    name: str = ""
    commands: frozenset[str] = frozenset()
    """Which of :data:`OPTIONAL_COMMANDS` this game provides."""

    def _refuse(self, command: str) -> BullError:
        return BullError(f"`bull {command}` does not apply to {self.name}")

    def advise_record(
        self, hand: str, rules: str | None, options: Mapping[str, Any], tables: str | None
    ) -> dict[str, Any]:
        raise self._refuse("advise")

    def advise_text(self, rec: dict[str, Any]) -> str:
        raise self._refuse("advise")

    def strategy_record(
        self, rules: str | None, options: Mapping[str, Any], tables: str | None, png: str | None
    ) -> dict[str, Any]:
        raise self._refuse("strategy")

    def strategy_text(self, rec: dict[str, Any]) -> str:
        raise self._refuse("strategy")
