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
