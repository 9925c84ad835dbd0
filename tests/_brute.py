"""Brute force written in the tests: every ordered pair of hands compared directly."""

from __future__ import annotations

import numpy as np


def brute_force(
    hands: np.ndarray, strength: np.ndarray, weight: np.ndarray, deck: int
) -> tuple[np.ndarray, ...]:
    """Every ordered pair of hands, directly: disjoint ones compared by strength."""
    member = np.zeros((len(hands), deck), dtype=np.int64)
    member[np.arange(len(hands))[:, None], hands] = 1
    disjoint = (member @ member.T) == 0
    lt = disjoint & (strength[None, :] < strength[:, None])
    eq = disjoint & (strength[None, :] == strength[:, None])
    gt = disjoint & (strength[None, :] > strength[:, None])
    return lt.sum(1), eq.sum(1), gt.sum(1), (gt * weight[None, :]).sum(1)
