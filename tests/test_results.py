"""One result type per concept in every game's Python API (issue 28, "One vocabulary"):
``compare`` returns the shared Showdown, ``settle`` the shared Settlement, every hand
holds ``hand`` (ids) and ``names``, and hands of one rule set are ordered with ``<``/``>``
as a showdown between them decides."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from solver.core.errors import BullError
from solver.games.niuniu import play as nn
from solver.games.pokdeng import play as pd
from solver.games.taungau import play as tn
from solver.kit.results import Settlement, Showdown

HANDS = {
    nn: ["KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "KH 9S 8D 3C 7H", "AS 2C 4H 6D 8S"],
    tn: [
        "[6:6][6:5][4:3][4:2][2:2]",
        "[6:5][4:1][3:3][5:5][1:1]",
        "[6:4][6:4][5:3][2:1][3:1]",
        "[5:4][1:1][4:4][3:2][6:1]",
    ],
    pd: ["9S 9D", "AC 4C 4D", "6C 4H 5C", "KH 2S 3C", "7H 5D", "8S 8H"],
}
HOUSE = {nn: "banker", tn: "banker", pd: "dealer"}  # RULES.md §8: winner names


@pytest.mark.parametrize("game", [nn, tn, pd], ids=["niuniu", "taungau", "pokdeng"])
def test_one_type_per_concept(game: object) -> None:
    a, b = HANDS[game][:2]  # type: ignore[index]
    show = game.compare(a, b)  # type: ignore[attr-defined]
    settled = game.settle(a, b)  # type: ignore[attr-defined]
    assert type(show) is Showdown and type(settled) is Settlement
    assert dataclasses.is_dataclass(show) and dataclasses.is_dataclass(settled)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settled.net = 0  # type: ignore[misc]
    assert settled.showdown == show and settled.winner == show.winner
    assert show.winner in ("player", HOUSE[game], "push")  # type: ignore[index]
    assert show.banker is show.dealer and show.rules == show.player.rules
    for h in (show.player, show.banker):
        assert isinstance(h.hand, tuple) and all(type(c) is int for c in h.hand)
        assert h.names == game.evaluate(a if h is show.player else b).names  # type: ignore[attr-defined]


@pytest.mark.parametrize("game", [nn, tn, pd], ids=["niuniu", "taungau", "pokdeng"])
def test_hands_order_as_the_showdown_decides(game: object) -> None:
    """``a < b`` exactly when ``b`` beats ``a`` as the banker (the settle decides)."""
    hands = HANDS[game]  # type: ignore[index]
    for x, y in itertools.permutations(hands, 2):
        try:
            s = game.settle(x, y)  # type: ignore[attr-defined]
        except BullError:  # the two hands share a card or a tile
            continue
        hx, hy = s.player, s.banker
        if s.winner == "player":
            assert hx > hy and not hx < hy, (x, y)
        elif s.winner == "push":
            assert not hx > hy and not hx < hy and hx <= hy and hx >= hy, (x, y)
        elif hx.strength != hy.strength or game is pd:  # not a banker's tie (on_tie)
            assert hx < hy and not hx > hy, (x, y)


def test_ordering_refuses_other_rule_sets_and_games() -> None:
    a = nn.evaluate("KS 9H 8C 3D 7S")
    with pytest.raises(BullError, match="two rule sets"):
        _ = a < nn.evaluate("JS QS KD 5H 5D", "casino")
    with pytest.raises(BullError, match="cannot order"):
        _ = a < pd.evaluate("9S 9D")  # type: ignore[operator]
    assert sorted([nn.evaluate(h) for h in HANDS[nn]])[-1].names == ["5H", "5D", "JS", "QS", "KD"]


def test_rank_is_in_the_niuniu_api_as_the_readme_shows() -> None:
    r = nn.rank(["KS 9H 8C 3D 7S", "JS QS KD 5H 5D"])
    assert r.order == (1, 0) and r.reasons == ("niu_niu beats niu_7",)


def test_settlement_nets() -> None:
    s = nn.settle("JS QS KS 5H 5D", "4C 7C 8D JD KH", bet="double")
    assert (s.net, s.banker_net, s.bet, s.commission) == (2.85, -3.0, "double", 0.05)
    assert s.comparison is s.showdown  # the old name still answers
    t = tn.settle("[6:5][4:1][3:3][5:5][2:2]", "[6:6][4:4][2:1][3:1][1:1]")
    assert (t.net, t.banker_net, t.bet, t.commission) == (4, -4, None, 0.0)
    p = pd.settle("6C 4C 5C", "KH 2S 3C")
    assert (p.net, p.banker_net, p.winner) == (2, -2, "player")
    assert str(p).endswith("player net +2")
