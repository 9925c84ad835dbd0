"""The Monte Carlo simulators across games: seeded runs reproduce, and bad arguments
are refused (each game's simulator is tested in ``tests/<game>/test_simulate.py``)."""

from __future__ import annotations

import pytest

from solver import games
from solver.core.errors import BullError
from solver.games.niuniu import simulate as nn_sim
from solver.games.pokdeng import simulate as pd_sim
from solver.games.taungau import simulate as tn_sim

# ------------------------------------------------------------------ the evaluators


# ------------------------------------------------------------------ exact inside the CI


# ------------------------------------------------------------------ mechanics


def test_seeded_and_reproducible() -> None:
    a = tn_sim.simulate_taungau("pagat", rounds=5_000, seed=42)
    b = tn_sim.simulate_taungau("pagat", rounds=5_000, seed=42)
    c = tn_sim.simulate_taungau("pagat", rounds=5_000, seed=43)
    assert a == b and a.mean != c.mean
    assert a.to_json()["rounds"] == 5_000


@pytest.mark.parametrize(
    "call",
    [
        lambda: nn_sim.simulate_niuniu(rounds=1),
        lambda: nn_sim.simulate_niuniu(players=0),
        lambda: tn_sim.simulate_taungau(players=7),  # 40 tiles needed, 32 in the set
        lambda: tn_sim.simulate_taungau("pagat", policy="first"),
        lambda: tn_sim.simulate_taungau(policy="sometimes"),
        lambda: pd_sim.simulate_pokdeng(policy="always"),
        lambda: games.get("chess"),
    ],
)
def test_bad_input(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BullError):
        call()


@pytest.mark.parametrize(("deck", "cards"), [(312, 25), (312, 39), (312, 1), (52, 25), (32, 30)])
def test_dealt_cards_are_the_full_shuffles(deck: int, cards: int) -> None:
    """The first ``cards`` of a shuffle, by a partial selection, are the full sort's: the
    order of the smallest keys, rows with ties at the boundary or among them included
    (keys drawn from a few values so that ties are common)."""
    import numpy as np

    from solver.kit.simulation import deal, first_items

    rng = np.random.default_rng(7)
    keys = rng.random((400, deck))
    coarse = np.floor(keys * deck / 2) / deck  # about two keys per value: many ties
    for k in (keys, coarse):
        want = np.argsort(k, axis=1)[:, :cards]
        assert np.array_equal(first_items(k, cards), want)
    assert np.array_equal(
        deal(np.random.default_rng(3), 400, deck, cards),
        np.argsort(np.random.default_rng(3).random((400, deck)), axis=1)[:, :cards],
    )
