"""The request bodies of ``bull serve``: one model per endpoint, the CLI's options as
fields (``--dealer-draws-at-most K`` is ``"dealer_draws_at_most": K``) with the CLI's
bounds, unknown fields refused. They are the OpenAPI document's schemas.

A rule set is a preset name or a rule file's content as a JSON object (what ``bull rules
GAME --json`` prints, or any part of it with ``base``) — never a path on the server.

>>> EvalBody(hands=["KS 9H 8C 3D 7S"]).options()
{}
>>> CompareBody(player="KS 9H 8C 3D 7S", banker="JS QS KD 5H 5D", bet="double").options()
{'bet': 'double'}
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from solver.games import OPTION_KEYS

__all__ = [
    "AdviseBody",
    "CompareBody",
    "EdgeBody",
    "EvalBody",
    "EvalOptions",
    "GrabBody",
    "OddsBody",
    "RankBody",
    "RoundBody",
    "StrategyBody",
    "VerifyBody",
    "unpaired_surrogate",
]

RulesField = str | dict[str, Any] | None


def unpaired_surrogate(data: Any) -> str | None:
    """Where a string of ``data`` (or a key) holds a lone UTF-16 surrogate — JSON's
    ``"\\ud800"`` decodes to one, and it is no character (it cannot be written as
    UTF-8): ``hands[3]``; ``None`` when there is none. Walks without recursion.

    >>> unpaired_surrogate({"hands": ["KS", "\\ud800"]})
    'hands[1]'
    >>> unpaired_surrogate({"hands": ["KS 9H 8C 3D 7S"]}) is None
    True
    """
    todo: list[tuple[str, Any]] = [("", data)]
    while todo:
        where, item = todo.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return where or "body"
        elif isinstance(item, dict):
            for k, v in item.items():
                todo.append((where or "body", k))
                todo.append((f"{where}.{k}" if where else str(k), v))
        elif isinstance(item, list | tuple):
            todo.extend((f"{where}[{i}]", v) for i, v in enumerate(item))
    return None


class _Rules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _characters(cls, data: Any) -> Any:
        where = unpaired_surrogate(data)
        if where is not None:
            raise ValueError(
                f"{where}: a lone UTF-16 surrogate (\\ud800-\\udfff) is not a character"
            )
        return data

    rules: RulesField = Field(
        None,
        description="a preset name (GET /v1/{game}/rules lists them) or a rule file as a "
        'JSON object, e.g. {"base": "classic", "commission": 0.03}; default: the '
        "game's default preset",
    )

    def options(self) -> dict[str, Any]:
        """The CLI options given (the game checks which it takes)."""
        return self.given(self.__dict__)  # the fields' values (getattr of a missing one is slow)

    @staticmethod
    def given(fields: dict[str, Any]) -> dict[str, Any]:
        """The CLI options among ``fields`` (a body's checked fields), ``None`` left out.

        >>> _Rules.given({"rules": "casino", "bet": "double", "commission": None})
        {'bet': 'double'}
        """
        return {k: v for k in OPTION_KEYS if (v := fields.get(k)) is not None}


class _Game(_Rules):
    bet: str | None = Field(None, description="niuniu: the bet, any the rule set names")
    commission: float | None = Field(
        None, ge=0, lt=1, description="house commission on player winnings, a fraction"
    )
    banker_reveals: Literal["first", "last"] | None = Field(
        None, description="taungau macau: does the banker show first or last"
    )
    dealer_draws_at_most: int | None = Field(
        None, ge=0, le=9, description="pokdeng: the dealer draws at a total of K or less"
    )


class _Dealer(_Game):
    dealer: Literal["best-response", "equilibrium"] | None = Field(
        None, description="pokdeng: the dealer's best response to player_strategy, or the "
        "exact equilibrium",
    )  # fmt: skip
    must_draw_at_most: int | None = Field(
        None, ge=-1, le=7, description="pokdeng dealer: the house makes the dealer draw on K "
        "or less (-1: free)",
    )  # fmt: skip
    player_strategy: Literal["mirror", "optimal"] | None = Field(
        None, description="pokdeng dealer best-response: the player strategy answered"
    )


Hand = str
"""A hand in the CLI's notation (``"KS 9H 8C 3D 7S"``, ``"[6:5][4:1]..."``)."""


class EvalOptions(_Game):
    """``bull eval``'s fields but the hands (the hot route checks the hands itself)."""


class EvalBody(_Game):
    """``bull eval``: the records of ``hands`` (one per hand, in order)."""

    hands: list[Hand] = Field(min_length=1, description="the hands, each one string")


class CompareBody(_Game):
    """``bull compare``: ``player`` against ``banker`` (one record), or ``pairs`` of
    ``[player, banker]`` (one record each)."""

    player: Hand | None = None
    banker: Hand | None = None
    pairs: list[tuple[Hand, Hand]] | None = Field(None, min_length=1)


class RankBody(_Game):
    """``bull rank``: ``hands`` (one record), or ``deals``, a list of hand lists."""

    hands: list[Hand] | None = Field(None, min_length=2)
    deals: list[list[Hand]] | None = Field(None, min_length=1)


class RoundBody(_Game):
    """``bull round``: ``banker`` and ``players`` (one record), or ``rounds``, each the
    banker's hand then the players' (``bull round --input``, vectorised)."""

    banker: Hand | None = None
    players: list[Hand] | None = Field(None, min_length=1)
    rounds: list[list[Hand]] | None = Field(None, min_length=1)


class AdviseBody(_Dealer):
    """``bull advise`` (Pok Deng): ``hand`` (one record) or ``hands`` (one each)."""

    hand: Hand | None = None
    hands: list[Hand] | None = Field(None, min_length=1)
    dealer_sees: int | None = Field(
        None, ge=2, le=3, description="the dealer's decision when the player shows N cards"
    )


class StrategyBody(_Dealer):
    """``bull strategy`` (Pok Deng): the whole drawing chart."""


class GrabBody(_Rules):
    """``bull grab`` (Niu Niu): four visible cards, ``hand`` or ``hands``."""

    hand: Hand | None = None
    hands: list[Hand] | None = Field(None, min_length=1)
    players: int | None = Field(None, ge=1, le=9, description="players against the banker")


class OddsBody(_Rules):
    """``bull odds``."""


class EdgeBody(_Game):
    """``bull edge``."""


class VerifyBody(_Game):
    """``bull verify``: claim rows (the columns of a claims file as keys: ``hand``,
    ``points``, ``bull`` ... or ``player``, ``banker``, ``winner``, ``net``) in, the
    report out; ``out``: also the disagreeing rows, as ``--out`` writes them."""

    rows: list[dict[str, Any]] = Field(min_length=1)
    out: bool = Field(False, description="also return the rows --out would write")
