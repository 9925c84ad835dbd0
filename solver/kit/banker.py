"""The banker at a full table (``bull risk``): one result shape for every game.

From the exact heads-up distribution of one player's net, a :class:`TableSample` of
whole tables (:mod:`solver.kit.table_sim`) and the table's size N:

* ``mean`` — exact: ``-N · EV``;
* ``covariance`` — of two players' nets against one banker hand, with its 99 % interval,
  and the label of how it was found; ``variance`` = N·Var₁ + N(N-1)·Cov;
* ``distribution`` — the banker's round net: exact heads-up (the negated player
  distribution), else the simulated frequencies, each with a 99 % Wilson interval;
* ``reserve`` — the amount that covers the banker's loss in one round with probability
  0.99, 0.999 and 1 (the worst round);
* ``bands`` — the 95 % and 99 % bands of the banker's total after T rounds (normal
  approximation: a sum of T independent rounds);
* ``ruin`` (with a reserve R) — the probability that a banker starting with R cannot pay
  within T rounds: exact dynamic programming heads-up, simulated paths otherwise.

>>> from fractions import Fraction as F
>>> from solver.kit.risk import NetDistribution
>>> d = NetDistribution.of([(F(-1), F(1, 2)), (F(1), F(1, 2))])
>>> quantile_loss(d.negated(), F(99, 100))
Fraction(1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from solver.kit.exact import commission_fraction, fraction_text
from solver.kit.risk import NetDistribution
from solver.kit.table_risk import (
    EXACT_RUIN_WORK,
    band,
    ruin_probability,
    ruin_work,
    table_variance,
    wilson,
)
from solver.kit.table_sim import Deal, TableSample

__all__ = [
    "LEVEL",
    "RESERVE_LEVELS",
    "RUIN_DRAWS",
    "RUIN_PATHS",
    "BankerRisk",
    "Worst",
    "banker_risk",
    "quantile_loss",
    "risk_text",
    "table_risk",
]

LEVEL = 99
"""The confidence level (%) of every interval ``bull risk`` prints."""
RESERVE_LEVELS = (Fraction(99, 100), Fraction(999, 1000))
"""The probabilities the reserve covers (and 1: the worst round)."""
RUIN_PATHS = 10_000
"""The most paths the simulated ruin probability follows."""
RUIN_DRAWS = 4_000_000
"""About how many rounds (paths x rounds) it draws in all."""


@dataclass(frozen=True)
class Worst:
    """The banker's largest loss in one round at the table: ``amount``; ``exact`` when it
    is the true worst case, else an upper bound (``note`` says which and why); ``deal``:
    the round that costs it (``banker``: his hand record, ``player_results``: each
    player's hand record and net as a fraction), when one is known."""

    amount: Fraction
    exact: bool
    note: str = ""
    deal: Mapping[str, Any] | None = None


def quantile_loss(banker: NetDistribution, q: Fraction) -> Fraction:
    """The smallest amount R >= 0 with P(the banker loses at most R) >= q, exactly."""
    acc = Fraction(0)
    for net, p in banker.points:  # ascending net: the largest losses first
        if net >= 0:
            return Fraction(0)
        acc += p
        if acc > 1 - q:
            return -net
    return Fraction(0)


def _sample_quantile(hist: Mapping[int, int], step: int, q: float) -> tuple[float, float, float]:
    """The q-quantile of the banker's loss max(0, -net) in a sample (net in units of
    1/step, with counts) and a distribution-free 99 % interval (order statistics)."""
    from solver.kit.risk import z_two_sided

    values = np.array(sorted(hist), dtype=np.int64)
    counts = np.array([hist[v] for v in values.tolist()], dtype=np.int64)
    loss = np.maximum(0, -values)[::-1]  # ascending loss
    cum = np.cumsum(counts[::-1])
    n = int(cum[-1])
    z = z_two_sided(LEVEL)
    half = z * math.sqrt(n * q * (1 - q))

    def at(rank: float) -> float:
        r = min(n, max(1, math.ceil(rank)))
        return float(loss[int(np.searchsorted(cum, r))]) / step

    return at(q * n), at(math.floor(q * n - half)), at(q * n + half + 1)


@dataclass(frozen=True)
class BankerRisk:
    """``bull risk``'s answer (see the module docstring); ``to_json`` is its ``--json``."""

    game: str
    rules: str
    setting: Mapping[str, Any]
    players: int
    rounds: int
    player: NetDistribution
    covariance: float
    covariance_interval: tuple[float, float]
    covariance_method: str
    variance: float
    variance_interval: tuple[float, float]
    distribution_method: str
    distribution: tuple[dict[str, Any], ...]
    reserve: tuple[dict[str, Any], ...]
    bands: Mapping[str, Any]
    tables: int
    ruin: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = field(default=())
    banker_word: str = "banker"
    """What the game calls the banker (``dealer`` in Pok Deng): the worst round's key."""

    @property
    def mean(self) -> Fraction:
        return -self.players * self.player.mean

    @property
    def sd(self) -> float:
        return math.sqrt(max(0.0, self.variance))

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules,
            **dict(self.setting),
            **(
                {"commission_fraction": commission_fraction(self.setting["commission"])}
                if "commission" in self.setting
                else {}
            ),
            "players": self.players,
            "rounds": self.rounds,
            "mean": float(self.mean),
            "mean_fraction": fraction_text(self.mean),
            "ev_player": float(self.player.mean),
            "ev_player_fraction": fraction_text(self.player.mean),
            "player_variance": float(self.player.variance),
            "player_variance_fraction": fraction_text(self.player.variance),
            "covariance": self.covariance,
            "covariance_low": self.covariance_interval[0],
            "covariance_high": self.covariance_interval[1],
            "covariance_method": self.covariance_method,
            "variance": self.variance,
            "variance_low": self.variance_interval[0],
            "variance_high": self.variance_interval[1],
            "sd": self.sd,
            "level": LEVEL,
            "simulated_tables": self.tables,
            "distribution_method": self.distribution_method,
            "distribution": [dict(p) for p in self.distribution],
            "reserve": [dict(r) for r in self.reserve],
            "bands": dict(self.bands),
            "ruin": None if self.ruin is None else dict(self.ruin),
            "notes": list(self.notes),
        }

    def text(self) -> str:
        return risk_text(self)


def _exact_rows(banker: NetDistribution) -> list[dict[str, Any]]:
    return [
        {
            "net": float(a),
            "net_fraction": fraction_text(a),
            "probability": float(p),
            "probability_fraction": fraction_text(p),
            "probability_low": float(p),
            "probability_high": float(p),
        }
        for a, p in banker.points
    ]


def _sample_rows(hist: Mapping[int, int], step: int) -> list[dict[str, Any]]:
    n = sum(hist.values())
    rows = []
    for v in sorted(hist):
        lo, hi = wilson(hist[v], n, LEVEL)
        rows.append(
            {
                "net": v / step,
                "count": hist[v],
                "probability": hist[v] / n,
                "probability_low": lo,
                "probability_high": hi,
            }
        )
    return rows


def _resampled_ruin(
    hist: Mapping[int, int], reserve: Fraction, rounds: int, step: int, seed: int
) -> tuple[float, tuple[float, float], int]:
    """Paths of ``rounds`` independent rounds, each drawn from the simulated one-round
    distribution of the banker's net (``hist``: amount in units of 1/step, to count),
    from ``reserve``: the share of paths whose bankroll falls below 0, its 99 % Wilson
    interval, and the number of paths."""
    paths = max(200, min(RUIN_PATHS, RUIN_DRAWS // max(1, rounds)))
    values = np.array(sorted(hist), dtype=np.int64)
    counts = np.array([hist[v] for v in values.tolist()], dtype=np.float64)
    probs = counts / counts.sum()
    rng = np.random.default_rng(seed)
    bank = np.full(paths, int(reserve * step), dtype=np.int64)
    ruined = np.zeros(paths, dtype=bool)
    block = max(1, min(rounds, 2_000_000 // paths))
    done = 0
    while done < rounds:
        m = min(block, rounds - done)
        walk = bank[:, None] + np.cumsum(values[rng.choice(len(values), (paths, m), p=probs)], 1)
        ruined |= (walk < 0).any(axis=1)
        bank = walk[:, -1]
        done += m
    k = int(ruined.sum())
    return k / paths, wilson(k, paths, LEVEL), paths


def _deal_json(deal: Mapping[str, Any], banker_word: str) -> dict[str, Any]:
    """The worst round's deal in JSON (the banker's hand record under ``banker_word``):
    each player's net as a number and a fraction."""
    return {
        banker_word: {"hand": list(deal["banker"]["hand"]), "label": deal["banker"]["label"]},
        "player_results": [
            {
                "hand": list(p["hand"]),
                "label": p["label"],
                "net": float(Fraction(p["net"])),
                "net_fraction": fraction_text(Fraction(p["net"])),
            }
            for p in deal["player_results"]
        ],
    }


def banker_risk(
    game: str,
    rules: str,
    setting: Mapping[str, Any],
    player: NetDistribution,
    sample: TableSample,
    players: int,
    rounds: int,
    worst: Worst,
    reserve: Fraction | None = None,
    covariance_method: str = "simulated",
    notes: Sequence[str] = (),
    banker_word: str = "banker",
) -> BankerRisk:
    """Put the figures together (see the module docstring). The simulated ruin
    probability follows paths of rounds drawn from the sample's one-round distribution
    (rounds are independent; the sample holds ``sample.tables`` tables)."""
    if not 1 <= players <= sample.players:
        raise ValueError(f"the sample has tables of up to {sample.players} players")
    ev = player.mean
    m, half = sample.pair_moment(LEVEL)
    ev2 = float(ev) ** 2
    cov, cov_lo, cov_hi = m - ev2, m - half - ev2, m + half - ev2
    var1 = player.variance
    n = players
    var = float(table_variance(var1, Fraction(0), n)) + n * (n - 1) * cov
    var_iv = (
        float(var1) * n + n * (n - 1) * cov_lo,
        float(var1) * n + n * (n - 1) * cov_hi,
    )
    banker1 = player.negated()
    if n == 1:
        method = "exact"
        rows = _exact_rows(banker1)
        reserve_rows: list[dict[str, Any]] = [
            {
                "probability": float(q),
                "amount": float(quantile_loss(banker1, q)),
                "amount_fraction": fraction_text(quantile_loss(banker1, q)),
                "low": float(quantile_loss(banker1, q)),
                "high": float(quantile_loss(banker1, q)),
                "method": "exact",
            }
            for q in RESERVE_LEVELS
        ]
    else:
        method = "simulated"
        hist = sample.banker[n - 1]
        rows = _sample_rows(hist, sample.step)
        reserve_rows = []
        for q in RESERVE_LEVELS:
            amount, lo, hi = _sample_quantile(hist, sample.step, float(q))
            reserve_rows.append(
                {
                    "probability": float(q),
                    "amount": amount,
                    "low": lo,
                    "high": hi,
                    "method": "simulated",
                }
            )
    reserve_rows.append(
        {
            "probability": 1.0,
            "amount": float(worst.amount),
            "amount_fraction": fraction_text(worst.amount),
            # not exact: the worst lies between the worst simulated round and the bound
            "low": float(worst.amount)
            if worst.exact
            else max(0, -min(sample.banker[n - 1])) / sample.step,
            "high": float(worst.amount),
            "method": "exact" if worst.exact else "bound",
            "note": worst.note,
            **({} if worst.deal is None else {"worst_round": _deal_json(worst.deal, banker_word)}),
        }
    )
    sd = math.sqrt(max(0.0, var))
    mean = float(-n * ev)
    bands = {
        "rounds": rounds,
        "mean": rounds * mean,
        "sd": sd * math.sqrt(rounds),
        "95": list(band(mean, sd, rounds, 95)),
        "99": list(band(mean, sd, rounds, 99)),
        "method": "normal approximation (a sum of independent rounds)",
    }
    ruin = None
    if reserve is not None:
        if n == 1 and ruin_work(banker1, reserve, rounds) <= EXACT_RUIN_WORK:
            p = ruin_probability(banker1, reserve, rounds)
            ruin = {"starting_reserve": float(reserve), "rounds": rounds, "probability": p,
                    "low": p, "high": p, "method": "exact", "paths": None}  # fmt: skip
        else:
            hist = sample.banker[n - 1]
            p, (lo, hi), paths = _resampled_ruin(hist, reserve, rounds, sample.step, 1)
            ruin = {"starting_reserve": float(reserve), "rounds": rounds, "probability": p,
                    "low": lo, "high": hi, "method": "simulated", "paths": paths}  # fmt: skip
    return BankerRisk(
        game=game,
        rules=rules,
        setting=setting,
        players=n,
        rounds=rounds,
        player=player,
        covariance=cov,
        covariance_interval=(cov_lo, cov_hi),
        covariance_method=covariance_method,
        variance=var,
        variance_interval=var_iv,
        distribution_method=method,
        distribution=tuple(rows),
        reserve=tuple(reserve_rows),
        bands=bands,
        tables=sample.tables,
        ruin=ruin,
        notes=tuple(notes),
        banker_word=banker_word,
    )


def risk_text(r: BankerRisk) -> str:
    """The plain-text answer of ``bull risk``."""
    setting = ", ".join(f"{k} {v}" for k, v in r.setting.items() if v is not None)
    lo, hi = r.covariance_interval
    vlo, vhi = r.variance_interval
    lines = [
        f"{r.game} banker at a table of {r.players} player(s) [{r.rules}]"
        + (f" ({setting})" if setting else ""),
        f"  banker's net per round: mean {float(r.mean):+.6f} (exact: {fraction_text(r.mean)}),"
        f" SD {r.sd:.4f}",
        f"  covariance of two players' nets: {r.covariance:.6f} "
        f"({LEVEL}% interval {lo:.6f} .. {hi:.6f}; {r.covariance_method}, "
        f"{r.tables:,} tables)",
        f"  variance N*Var1 + N(N-1)*Cov = {r.variance:.4f} ({LEVEL}% interval "
        f"{vlo:.4f} .. {vhi:.4f}); one player's variance {float(r.player.variance):.6f} (exact)",
    ]
    how = (
        "exact"
        if r.distribution_method == "exact"
        else f"simulated over {r.tables:,} tables, {LEVEL}% intervals"
    )
    lines.append(f"  banker's round net ({how}):")
    rows = list(r.distribution)
    if len(rows) > 16:  # the ends and the most likely amounts
        top = sorted(range(len(rows)), key=lambda i: -rows[i]["probability"])[:10]
        keep = sorted({0, 1, len(rows) - 2, len(rows) - 1, *top})
        rows = [rows[i] for i in keep]
        lines.append(f"    ({len(r.distribution)} amounts; the most likely and the extremes)")
    for row in rows:
        iv = ""
        if r.distribution_method != "exact":
            iv = f"  [{100 * row['probability_low']:.5f}%, {100 * row['probability_high']:.5f}%]"
        lines.append(f"    {row['net']:+10.2f}  {100 * row['probability']:9.5f}%{iv}")
    for row in r.reserve:
        q = row["probability"]
        what = f"{100 * q:g}%" if q < 1 else "the worst round"
        tail = ""
        if row["method"] == "simulated":
            tail = f" ({LEVEL}% interval {row['low']:g} .. {row['high']:g}; simulated)"
        elif row["method"] == "bound":
            tail = (
                f" (an upper bound: {row.get('note', '')}; the worst simulated round cost "
                f"{row['low']:g})"
            )
        else:
            tail = " (exact)"
        lines.append(f"  reserve covering {what}: {row['amount']:g} stakes{tail}")
        if "worst_round" in row:
            lines += _deal_lines(row["worst_round"], r.banker_word)
    b = r.bands
    lines.append(
        f"  after {b['rounds']:,} rounds: banker's total mean {b['mean']:+.2f}, "
        f"95% band {b['95'][0]:+.1f} .. {b['95'][1]:+.1f}, "
        f"99% band {b['99'][0]:+.1f} .. {b['99'][1]:+.1f} (normal approximation)"
    )
    if r.ruin is not None:
        u = r.ruin
        if u["method"] == "exact":
            lines.append(
                f"  ruin from a reserve of {u['starting_reserve']:g} "
                f"within {u['rounds']:,} rounds: "
                f"{100 * u['probability']:.4f}% (exact DP)"
            )
        else:
            lines.append(
                f"  ruin from a reserve of {u['starting_reserve']:g} "
                f"within {u['rounds']:,} rounds: "
                f"{100 * u['probability']:.3f}% ({LEVEL}% interval {100 * u['low']:.3f}% .. "
                f"{100 * u['high']:.3f}%; simulated: {u['paths']:,} paths of rounds drawn "
                f"from the {r.tables:,} simulated tables)"
            )
    lines += [f"  note: {n}" for n in r.notes]
    return "\n".join(lines)


def _deal_lines(deal: Mapping[str, Any], banker_word: str) -> list[str]:
    """The worst round's deal, a line per hand, to check by hand."""
    b = deal[banker_word]
    rows = [(banker_word, " ".join(b["hand"]), b["label"], "")]
    for i, p in enumerate(deal["player_results"], 1):
        rows.append((f"player {i}", " ".join(p["hand"]), p["label"], f"{p['net']:+g}"))
    w = [max(len(r[c]) for r in rows) for c in range(3)]
    out = ["    the round that costs it (each hand, and each player's net):"]
    out += [f"      {a:<{w[0]}}  {h:<{w[1]}}  {lb:<{w[2]}}  {n}".rstrip() for a, h, lb, n in rows]
    return out


def _step(player: NetDistribution) -> int:
    """The lattice of the amounts: every net is a whole multiple of 1/step."""
    step = 1
    for a, _ in player.points:
        step = step * a.denominator // math.gcd(step, a.denominator)
    return step


def table_risk(
    *,
    game: str,
    rules: str,
    setting: Mapping[str, Any],
    key: Mapping[str, Any],
    player: Callable[[], NetDistribution],
    spec: Callable[[], Mapping[str, Any]],
    max_players: int,
    players: int,
    rounds: int,
    reserve: Fraction | None,
    sim_tables: int,
    tables: str | None,
    progress: Callable[[int, int], Any] | None = None,
    worst: Callable[[int, Fraction], Worst] | None = None,
    seed: int = 20_250,
    notes: Sequence[str] = (),
    banker_word: str = "banker",
) -> BankerRisk:
    """``bull risk`` for one game: the exact heads-up distribution (``player()``) and a
    table sample (simulated for the largest table, ``sim_tables`` tables), both computed
    once and cached, then the figures for ``players``. ``spec()`` gives the game's audit
    description (its deck and vectorised settlement); ``worst(players, bound)`` the
    worst round (``bound``: players x one player's largest win), else it is the bound
    unless the simulation dealt it."""
    from solver.core.errors import BullError
    from solver.kit.table_sim import cached_sample, simulate_tables, spec_dealer

    if not 1 <= players <= max_players:
        raise BullError(
            f"--players {players}: {game} seats 1 to {max_players} players and a banker"
        )
    if rounds < 1:
        raise BullError(f"--rounds {rounds}: expected at least 1")
    if reserve is not None and reserve < 0:
        raise BullError(f"--reserve {float(reserve):g}: expected an amount of 0 or more")
    got: list[Mapping[str, Any]] = []

    def dealer(n: int) -> Deal:
        if not got:
            got.append(spec())
        return spec_dealer(got[0], n)

    def compute() -> tuple[TableSample, NetDistribution]:
        net = player()
        deal = dealer(max_players)
        return simulate_tables(deal, max_players, sim_tables, _step(net), seed, progress), net

    run = {**key, "sim_tables": sim_tables, "seed": seed, "players": max_players}
    sample, net = cached_sample(run, compute, tables)
    if worst is not None:
        w = worst(players, players * net.max_win)
        seen = Fraction(max(0, -min(sample.banker[players - 1])), sample.step)
        if w.exact and not seen <= w.amount <= players * net.max_win:
            raise AssertionError("the worst round is not between the worst seen and the bound")
        if w.exact and players == 1 and w.amount != net.max_win:
            raise AssertionError("the worst heads-up round is not the largest win")
    elif players == 1:
        w = Worst(net.max_win, True, "the largest win of one player")
    elif -min(sample.banker[players - 1]) == players * net.max_win * sample.step:
        w = Worst(
            players * net.max_win,
            True,
            f"every player winning his largest amount, {players} x {float(net.max_win):g}: "
            "no round can cost more, and the simulation dealt one",
        )
    else:
        w = Worst(
            players * net.max_win,
            False,
            f"{players} x one player's largest win; the worst deal itself is not searched",
        )
    note = [
        "the covariance and the banker's distribution at more than one player are "
        "simulated (the exact count of every (banker, player, player) deal of a full "
        "deck is out of reach)",
        *notes,
    ]
    return banker_risk(
        game, rules, setting, net, sample, players, rounds, w, reserve, "simulated", note,
        banker_word,
    )  # fmt: skip
