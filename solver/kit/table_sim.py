"""Whole tables dealt at random: the banker's net at N players, and two players' covariance.

``bull risk`` needs what one heads-up distribution cannot give: how the nets of several
players against *one* banker hand (card removal included) add up. :func:`simulate_tables`
deals ``tables`` tables of ``players`` players and a banker from a shuffled deck, settles
every player against the banker with the game's own vectorised settlement (the audit
description's ``settle``, Pok Deng's draws by its ``finish`` hooks, exactly as ``bull
deal`` plays), and keeps

* per number of players n = 1..players, how often the banker's round net took each value
  (the first n seats of a full table are an n-player table: one run answers every n);
* per table the average over its pairs of players of X_i·X_j, whose mean estimates
  E[X₁X₂] (so Cov = E[X₁X₂] - EV², EV exact) with a normal interval from its spread
  over the independent tables.

Amounts are kept exactly on a lattice: every net is a whole multiple of ``1/step``.

>>> import numpy as np
>>> def coin(rng, n):  # two players, each +1 or -1, independent
...     return rng.choice([-1.0, 1.0], size=(n, 2))
>>> s = simulate_tables(coin, players=2, tables=20_000, step=1, seed=1)
>>> s.tables, sorted(s.banker[0]), abs(s.pair_moment()[0]) < 0.03
(20000, [-1, 1], True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.kit.risk import NetDistribution, z_two_sided

__all__ = ["CHUNK_TABLES", "Deal", "TableSample", "cached_sample", "simulate_tables", "spec_dealer"]

CHUNK_TABLES = 50_000
"""Tables dealt and settled at once (bounds the memory: a few MB per chunk)."""

PAD = 255

Deal = Callable[[np.random.Generator, int], npt.NDArray[np.float64]]
"""Deals ``n`` tables and returns each seat's player net, shape (n, players)."""


@dataclass(frozen=True)
class TableSample:
    """What :func:`simulate_tables` kept (see the module docstring)."""

    players: int
    tables: int
    step: int
    seed: int
    pair_sum: float
    """Σ over tables of the table's mean of X_i·X_j over its pairs of players."""
    pair_sq: float
    """Σ over tables of the square of that mean."""
    banker: tuple[dict[int, int], ...]
    """``banker[n - 1]``: the banker's round net at n players, in units of 1/step, to
    how many tables had it."""
    seconds: float = 0.0

    def pair_moment(self, level: float = 99) -> tuple[float, float]:
        """The estimate of E[X₁X₂] and the half-width of its ``level`` % interval."""
        n = self.tables
        mean = self.pair_sum / n
        var = max(0.0, self.pair_sq / n - mean * mean) * n / max(1, n - 1)
        return mean, z_two_sided(level) * math.sqrt(var / n)

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "tables": self.tables,
            "step": self.step,
            "seed": self.seed,
            "pair_sum": self.pair_sum,
            "pair_sq": self.pair_sq,
            "banker": [sorted([k, v] for k, v in h.items()) for h in self.banker],
            "seconds": self.seconds,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> TableSample:
        banker = tuple({int(k): int(v) for k, v in h} for h in d["banker"])
        s = cls(
            players=int(d["players"]),
            tables=int(d["tables"]),
            step=int(d["step"]),
            seed=int(d["seed"]),
            pair_sum=float(d["pair_sum"]),
            pair_sq=float(d["pair_sq"]),
            banker=banker,
            seconds=float(d.get("seconds", 0.0)),
        )
        if len(banker) != s.players or any(sum(h.values()) != s.tables for h in banker):
            raise ValueError("a stored table sample does not add up")
        return s


def simulate_tables(
    deal: Deal,
    players: int,
    tables: int,
    step: int,
    seed: int,
    progress: Callable[[int, int], Any] | None = None,
    chunk: int = CHUNK_TABLES,
) -> TableSample:
    """Deal and settle ``tables`` tables (``deal``: see :data:`Deal`), ``chunk`` at a
    time, seeded; ``progress(done, tables)`` after each chunk."""
    if players < 1 or tables < 2:
        raise ValueError("need at least one player and two tables")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    hists: list[dict[int, int]] = [{} for _ in range(players)]
    pair_sum = pair_sq = 0.0
    done = 0
    while done < tables:
        n = min(chunk, tables - done)
        nets = np.asarray(deal(rng, n), dtype=np.float64)
        if nets.shape != (n, players):
            raise ValueError(f"the deal gave shape {nets.shape}, expected {(n, players)}")
        units = np.rint(nets * step).astype(np.int64)
        if np.abs(units - nets * step).max(initial=0.0) > 1e-6:
            raise ValueError(f"a net is not a multiple of 1/{step}")
        banker = -np.cumsum(units, axis=1)
        for k in range(players):
            vals, cnt = np.unique(banker[:, k], return_counts=True)
            h = hists[k]
            for v, c in zip(vals.tolist(), cnt.tolist(), strict=True):
                h[v] = h.get(v, 0) + c
        if players > 1:
            x = units.astype(np.float64) / step
            s, q = x.sum(axis=1), (x * x).sum(axis=1)
            t = (s * s - q) / (players * (players - 1))
            pair_sum += float(t.sum())
            pair_sq += float((t * t).sum())
        done += n
        if progress is not None:
            progress(done, tables)
    return TableSample(
        players=players,
        tables=tables,
        step=step,
        seed=seed,
        pair_sum=pair_sum,
        pair_sq=pair_sq,
        banker=tuple(hists),
        seconds=time.perf_counter() - t0,
    )


def spec_dealer(spec: Mapping[str, Any], players: int) -> Deal:
    """A :data:`Deal` from a game's audit description (``Game.audit_spec``): shuffle the
    deck, give the banker seat 0 and each player a hand of ``hand_size``, let Pok Deng
    draw (the ``finish`` hooks; the next cards of the shuffle, one per seat), settle
    each player against the banker (``settle``)."""
    deck = np.asarray(spec["deck"], dtype=np.uint8)
    k = int(spec["hand_size"])
    seats = players + 1
    finish = spec.get("finish")
    per_seat = k + (1 if finish is not None else 0)
    if seats * per_seat > len(deck):
        raise ValueError(f"{players} players and a banker need more than {len(deck)} cards")
    settle = spec["settle"]

    def deal(rng: np.random.Generator, n: int) -> npt.NDArray[np.float64]:
        order = np.argsort(rng.random((n, len(deck))), axis=1)
        cards = deck[order]
        starts = [np.ascontiguousarray(cards[:, s * k : (s + 1) * k]) for s in range(seats)]
        if finish is None:
            hands = starts
        else:
            extra = [cards[:, seats * k + s] for s in range(seats)]
            dealer_pok = np.asarray(spec["pok"](starts[0]), dtype=bool)
            first = np.asarray(spec["finish_dealer"](starts[0], extra[0]))
            first[dealer_pok, 2] = PAD
            hands = [first] + [
                np.asarray(finish(starts[s], extra[s], dealer_pok)) for s in range(1, seats)
            ]
        out = np.empty((n, players), dtype=np.float64)
        for s in range(1, seats):
            out[:, s - 1] = settle(hands[s], hands[0])[1]
        return out

    return deal


def cached_sample(
    key: Mapping[str, Any],
    compute: Callable[[], tuple[TableSample, NetDistribution]],
    tables: str | None,
) -> tuple[TableSample, NetDistribution]:
    """The table sample and the exact heads-up distribution for ``key`` (the rule set,
    options and size of the run): read from the cache next to the rule-set tables
    (``rules/risk-tables-<digest>-<code>.json``), or computed once and written there
    (whole or not at all)."""
    from solver.store.custom import cached_figures, rule_digest, store_figures

    memo = rule_digest(key) + (tables or "")
    if memo in _SAMPLES:
        return _SAMPLES[memo]
    path, stored = cached_figures("risk-tables", key, tables, 1 << 24)
    got: tuple[TableSample, NetDistribution] | None = None
    try:
        if stored is not None:
            got = (
                TableSample.from_json(stored["sample"]),
                NetDistribution.from_json(stored["player"]),
            )
    except (ValueError, AttributeError, KeyError, TypeError, ZeroDivisionError):
        got = None
    if got is None:
        got = compute()
        store_figures(path, key, {"sample": got[0].to_json(), "player": got[1].to_json()})
    _SAMPLES[memo] = got
    return got


_SAMPLES: dict[str, tuple[TableSample, NetDistribution]] = {}
