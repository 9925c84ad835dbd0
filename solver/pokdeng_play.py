"""Pok Deng at runtime: evaluate, settle, advise and chart — single hands and batches.

Presets (``standard``, ``straights``) are looked up by colex rank in the ``pokdeng`` and
``pokdeng_strategy`` tables; a user's rule file (or dict) is computed directly with the
vectorised code of :mod:`solver.pokdeng` and :mod:`solver.pokdeng_strategy` (fast: the
whole strategy for one rule set takes well under a second).

>>> evaluate("9S 9D", rules={"name": "demo"})
HandEval(hand=('9S', '9D'), type=HandType.POK, points=8, deng=2, strength=58, rules='demo')
>>> print(compare("6C 4C 5C", "KH 2S 3C", rules={"name": "demo"}))
player wins 2: both Normal 5: deng 3 vs 1, player wins the difference 2
>>> a = advise("7H 5D", rules={"name": "demo"})
>>> a.action, a.ev_draw > a.ev_stand
('draw', True)
>>> print(a)  # doctest: +NORMALIZE_WHITESPACE
5D 7H (Normal 2, 1 deng): DRAW — EV draw -0.5346, stand -0.8756 (margin 0.3410);
dealer draws on 4 or less; rules demo
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from .cards import CARD_NAMES, RANK_NAMES, Card, parse_hand
from .errors import ParseError, RulesError, TableError
from .indexing import colex_rank_array
from .pokdeng import (
    N_TWO,
    HandClass,
    HandType,
    PokDengRules,
    classify,
    load_rules,
    settle_classes,
)
from .pokdeng import settle as _settle_arrays
from .pokdeng_strategy import (
    CONFIGS,
    DRAW_DEN,
    POLICIES,
    Action,
    Solution,
    config_rules,
    overall_ev,
    solve,
    strategy_row,
)
from .rules import preset_names
from .tables import LoadedTable, open_table

__all__ = [
    "Advice",
    "Chart",
    "HandEval",
    "Showdown",
    "advise",
    "advise_batch",
    "chart_png",
    "chart_text",
    "cli_advise",
    "cli_advise_text",
    "cli_compare",
    "cli_compare_text",
    "cli_eval",
    "cli_eval_text",
    "cli_strategy",
    "cli_strategy_text",
    "compare",
    "evaluate",
    "evaluate_batch",
    "overall",
    "settle",
    "settle_batch",
    "strategy_chart",
]

RulesSpec = str | os.PathLike[str] | Mapping[str, Any] | PokDengRules | None


# ---------------------------------------------------------------- rule sets and tables


@dataclass(frozen=True)
class _Ruleset:
    rules: PokDengRules
    config: str | None  # a table configuration (preset), or None: compute directly


def _resolve(spec: RulesSpec) -> _Ruleset:
    if isinstance(spec, PokDengRules):
        return _Ruleset(spec, None)
    if spec is None or (isinstance(spec, str) and spec in preset_names("pokdeng")):
        rules = load_rules(spec)
        return _Ruleset(rules, rules.name if rules.name in CONFIGS else None)
    return _Ruleset(load_rules(spec), None)


_CHECKED: set[tuple[int, str]] = set()


def _table(name: str, tables: str | os.PathLike[str] | None, config: str) -> LoadedTable:
    """Open a Pok Deng table and check it was built with today's preset ``config``."""
    t = open_table(name, tables)
    key = (id(t), config)
    if key not in _CHECKED:
        stored = t.rules.get(config)
        if stored is None:
            raise TableError(
                f"table {name} has no rule set {config!r}; rebuild with `bull build --game pokdeng`"
            )
        if stored != config_rules(config).to_data():
            raise TableError(
                f"table {name} was built with different {config!r} rules; "
                "rebuild with `bull build --game pokdeng`"
            )
        _CHECKED.add(key)
    return t


def _policy(rs: _Ruleset, k: int | None) -> int:
    if k is None:
        return rs.rules.dealer_draws_at_most
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 9:
        raise RulesError(
            f"dealer policy {k!r}: the dealer draws at a total of K or less, K an integer 0..9"
        )
    return k


def _check_policy_in_table(rs: _Ruleset, k: int) -> None:
    if rs.config is not None and k not in POLICIES:
        built = ", ".join(str(p) for p in POLICIES)
        raise RulesError(
            f"dealer policy K={k} is not in the tables for preset "
            f"{rs.config!r} (built: {built}); a rule file may set any K"
        )


@lru_cache(maxsize=16)
def _solution(rules: PokDengRules, k: int) -> Solution:
    return solve(rules, k)


# ---------------------------------------------------------------- evaluate


@dataclass(frozen=True)
class HandEval:
    """One hand's type, points, deng and strength (``10 * type + points``)."""

    hand: tuple[str, ...]
    type: HandType
    points: int
    deng: int
    strength: int
    rules: str

    @property
    def hand_class(self) -> HandClass:
        return HandClass(self.type, self.points, self.deng)

    def __str__(self) -> str:
        return f"{' '.join(self.hand)}: {self.hand_class} (strength {self.strength})"


def _as_cards(
    hand: str | Sequence[str] | Sequence[int], sizes: Sequence[int] = (2, 3)
) -> tuple[Card, ...]:
    return parse_hand(hand, size=sizes)


def _check_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int64]:
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise ParseError(f"a batch of hands must have shape (n, 2) or (n, 3), got {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ParseError("card ids must be integers 0..51")
    arr = arr.astype(np.int64)
    bad = np.nonzero(((arr < 0) | (arr > 51)).any(axis=1))[0]
    if bad.size:
        raise ParseError(f"row {int(bad[0])}: card id out of range 0..51")
    srt = np.sort(arr, axis=1)
    dup = np.nonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))[0]
    if dup.size:
        row = [CARD_NAMES[c] for c in arr[dup[0]].tolist()]
        raise ParseError(f"row {int(dup[0])}: duplicate card in hand {' '.join(row)!r}")
    return srt


def evaluate_batch(
    cards: npt.ArrayLike, rules: RulesSpec = None, tables: str | os.PathLike[str] | None = None
) -> dict[str, npt.NDArray[np.int8]]:
    """Type, points, deng and strength of a batch: ``cards`` is (n, 2) or (n, 3) card ids.

    >>> out = evaluate_batch([[32, 34], [0, 4]], rules={"name": "demo"})
    >>> out["type"].tolist(), out["deng"].tolist()
    ([5, 0], [2, 2])
    """
    srt = _check_batch(cards)
    rs = _resolve(rules)
    if rs.config is None:
        t, p, d = classify(srt, rs.rules)
        return {
            "type": t,
            "points": p,
            "deng": d,
            "strength": (10 * t.astype(np.int16) + p).astype(np.int8),
        }
    table = _table("pokdeng", tables, rs.config)
    rows = colex_rank_array(srt, presorted=True) + (N_TWO if srt.shape[1] == 3 else 0)
    cfg = rs.config
    return {
        "type": table.column(f"{cfg}_type")[rows],
        "points": table.column("points")[rows],
        "deng": table.column(f"{cfg}_deng")[rows],
        "strength": table.column(f"{cfg}_strength")[rows],
    }


def evaluate(
    hand: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> HandEval:
    """Evaluate one hand of 2 or 3 cards."""
    cards = _as_cards(hand)
    rs = _resolve(rules)
    out = evaluate_batch(np.array([cards]), rs.rules if rs.config is None else rs.config, tables)
    return HandEval(
        hand=tuple(CARD_NAMES[c] for c in cards),
        type=HandType(int(out["type"][0])),
        points=int(out["points"][0]),
        deng=int(out["deng"][0]),
        strength=int(out["strength"][0]),
        rules=rs.rules.name,
    )


# ---------------------------------------------------------------- compare / settle


@dataclass(frozen=True)
class Showdown:
    """A settled showdown; ``net`` is the player's net in stakes."""

    player: HandEval
    dealer: HandEval
    winner: str
    net: int
    reason: str

    def __str__(self) -> str:
        if self.winner == "push":
            return f"push: {self.reason}"
        return f"{self.winner} wins {abs(self.net)}: {self.reason}"


def compare(
    player: str | Sequence[str] | Sequence[int],
    dealer: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> Showdown:
    """Settle the player's hand against the dealer's (2 or 3 cards each, one deck)."""
    p_cards = _as_cards(player)
    d_cards = _as_cards(dealer)
    shared = sorted(set(p_cards) & set(d_cards))
    if shared:
        raise ParseError(f"card {CARD_NAMES[shared[0]]} is in both hands (one deck)")
    rs = _resolve(rules)
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    p = evaluate(p_cards, spec, tables)
    d = evaluate(d_cards, spec, tables)
    s = settle_classes(p.hand_class, d.hand_class, rs.rules)
    return Showdown(player=p, dealer=d, winner=s.winner, net=s.net, reason=s.reason)


def settle(
    player: str | Sequence[str] | Sequence[int],
    dealer: str | Sequence[str] | Sequence[int],
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> int:
    """The player's net in stakes (see :func:`compare` for the winner and the reason).

    >>> settle("3S 3H 3D", "JS QH KD", rules={"name": "demo"})
    2
    """
    return compare(player, dealer, rules, tables).net


def settle_batch(
    player: npt.ArrayLike,
    dealer: npt.ArrayLike,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> npt.NDArray[np.int64]:
    """The player's net for each row of two batches of hands (each (n, 2) or (n, 3)).

    >>> settle_batch([[32, 34]], [[0, 12, 13]], rules={"name": "demo"}).tolist()
    [2]
    """
    p_arr = np.asarray(player)
    d_arr = np.asarray(dealer)
    if len(p_arr) != len(d_arr):
        raise ParseError(f"{len(p_arr)} player hands but {len(d_arr)} dealer hands")
    p_srt = _check_batch(p_arr)
    d_srt = _check_batch(d_arr)
    both = np.sort(np.concatenate([p_srt, d_srt], axis=1), axis=1)
    clash = np.nonzero((both[:, 1:] == both[:, :-1]).any(axis=1))[0]
    if clash.size:
        raise ParseError(f"row {int(clash[0])}: a card is in both hands (one deck)")
    rs = _resolve(rules)
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    p = evaluate_batch(p_srt, spec, tables)
    d = evaluate_batch(d_srt, spec, tables)
    return _settle_arrays(
        p["type"], p["points"], p["deng"], d["type"], d["points"], d["deng"], rs.rules
    )


# ---------------------------------------------------------------- advise


@dataclass(frozen=True)
class Advice:
    """The best action for a two-card start with both exact EVs (player's net per stake)."""

    hand: tuple[str, ...]
    type: HandType
    points: int
    deng: int
    action: str
    ev_stand: Fraction
    ev_draw: Fraction
    margin: Fraction
    dealer_draws_at_most: int
    rules: str

    def __str__(self) -> str:
        head = f"{' '.join(self.hand)} ({HandClass(self.type, self.points, self.deng)})"
        tail = f"dealer draws on {self.dealer_draws_at_most} or less; rules {self.rules}"
        if self.action == "pok":
            return f"{head}: POK — no choice, EV {float(self.ev_stand):+.4f}; {tail}"
        other = "stand" if self.action == "draw" else "draw"
        ev = {"stand": self.ev_stand, "draw": self.ev_draw}
        return (
            f"{head}: {self.action.upper()} — EV {self.action} {float(ev[self.action]):.4f}"
            f", {other} {float(ev[other]):.4f} (margin {float(self.margin):.4f}); {tail}"
        )


def advise_batch(
    cards: npt.ArrayLike,
    dealer_draws_at_most: int | None = None,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Action code (:class:`~solver.pokdeng_strategy.Action`) and exact EV numerators
    over ``den`` for a batch of two-card starts, shape (n, 2)."""
    srt = _check_batch(cards)
    if srt.shape[1] != 2:
        raise ParseError("advice is for two-card starts; a three-card hand has already drawn")
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    ranks = colex_rank_array(srt, presorted=True)
    if rs.config is None:
        sol = _solution(rs.rules, k)
        stand, draw = sol.ev_stand_num[ranks], sol.ev_draw_num[ranks]
        action = sol.action[ranks]
    else:
        _check_policy_in_table(rs, k)
        table = _table("pokdeng_strategy", tables, rs.config)
        rows = strategy_row(rs.config, k, 0) + ranks
        stand = table.column("ev_stand_num")[rows] * (
            DRAW_DEN // table.column("ev_stand_den")[rows]
        )
        draw = table.column("ev_draw_num")[rows] * (DRAW_DEN // table.column("ev_draw_den")[rows])
        action = table.column("action")[rows].astype(np.int8)
        check = table.column("rank")[rows]
        cfg = table.column("config")[rows]
        pol = table.column("dealer_draws_at_most")[rows]
        if (check != ranks).any() or (cfg != CONFIGS.index(rs.config)).any() or (pol != k).any():
            raise TableError(
                "table pokdeng_strategy rows are out of order; rebuild with "
                "`bull build --game pokdeng`"
            )
    return {
        "action": action,
        "ev_stand_num": stand,
        "ev_draw_num": draw,
        "den": np.full(len(ranks), DRAW_DEN, dtype=np.int64),
    }


def advise(
    hand: str | Sequence[str] | Sequence[int],
    dealer_draws_at_most: int | None = None,
    rules: RulesSpec = None,
    tables: str | os.PathLike[str] | None = None,
) -> Advice:
    """Stand or draw for a two-card start, with both exact EVs (RULES §5)."""
    cards = parse_hand(hand, size=(2, 3))
    if len(cards) == 3:
        shown = " ".join(CARD_NAMES[c] for c in cards)
        raise ParseError(
            f"advise takes a two-card start; {shown!r} has 3 cards (a three-card "
            "hand has already drawn: no choice left)"
        )
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    out = advise_batch(np.array([cards]), k, spec, tables)
    ev = evaluate(cards, spec, tables)
    stand = Fraction(int(out["ev_stand_num"][0]), DRAW_DEN)
    draw = Fraction(int(out["ev_draw_num"][0]), DRAW_DEN)
    return Advice(
        hand=ev.hand,
        type=ev.type,
        points=ev.points,
        deng=ev.deng,
        action=Action(int(out["action"][0])).label,
        ev_stand=stand,
        ev_draw=draw,
        margin=abs(draw - stand),
        dealer_draws_at_most=k,
        rules=rs.rules.name,
    )


def overall(
    rules: RulesSpec = None,
    dealer_draws_at_most: int | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The player's overall EV under optimal drawing (``ev_optimal``) and under "draw on 4
    or less" (``ev_simple``), floats and exact ``*_fraction`` strings.

    >>> overall({"name": "demo"})["ev_simple_fraction"]   # the same policy as the dealer
    '0/1'
    """
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    if rs.config is None:
        return overall_ev(_solution(rs.rules, k))
    _check_policy_in_table(rs, k)
    table = _table("pokdeng_strategy", tables, rs.config)
    try:
        rec = dict(table.meta["extra"]["overall_ev"][rs.config][str(k)])
    except (KeyError, TypeError):
        raise TableError(
            "table pokdeng_strategy lacks the overall EVs; rebuild with `bull build --game pokdeng`"
        ) from None
    return rec


# ---------------------------------------------------------------- the strategy chart


@dataclass(frozen=True)
class Chart:
    """The strategy as a 13 x 13 grid of starts: cell ``(i, j)`` holds ranks i and j
    (0 = A .. 12 = K); ``i == j`` a pair, ``i < j`` suited, ``i > j`` offsuit (ranks
    ``j, i``). Every start in a cell has the same EVs (suit symmetry)."""

    rules: str
    dealer_draws_at_most: int
    action: tuple[tuple[str, ...], ...]
    points: tuple[tuple[int, ...], ...]
    ev_stand: tuple[tuple[Fraction, ...], ...]
    ev_draw: tuple[tuple[Fraction, ...], ...]
    ev_optimal: Fraction
    ev_simple: Fraction

    @staticmethod
    def cell_cards(i: int, j: int) -> tuple[Card, Card]:
        """A representative start of cell (i, j)."""
        if i == j:
            return (i * 4, i * 4 + 1)
        if i < j:
            return (i * 4, j * 4)
        return (j * 4, i * 4 + 1)

    @staticmethod
    def cell_name(i: int, j: int) -> str:
        """``'5-5'``, ``'A-4s'`` (suited), ``'10-Ko'`` (offsuit)."""
        lo, hi = min(i, j), max(i, j)
        kind = "" if i == j else ("s" if i < j else "o")
        return f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]}{kind}"

    def margin(self, i: int, j: int) -> Fraction:
        return abs(self.ev_draw[i][j] - self.ev_stand[i][j])

    def summary(self) -> list[str]:
        """One line per two-card total: what most of its starts do, and the exceptions.

        Exceptions are named by ranks: ``4-10/J/Q/Ks`` is 4 with a 10, J, Q or K of its
        suit; a start without ``s``/``o`` means suited and offsuit alike.
        """
        lines = []
        for pts in range(8):
            cells = [
                (i, j)
                for i in range(13)
                for j in range(13)
                if self.points[i][j] == pts and self.action[i][j] != "pok"
            ]
            draws = [c for c in cells if self.action[c[0]][c[1]] == "draw"]
            stands = [c for c in cells if self.action[c[0]][c[1]] == "stand"]

            def starts(group: list[tuple[int, int]]) -> int:
                return sum(6 if i == j else 4 if i < j else 12 for i, j in group)

            if starts(draws) >= starts(stands):
                main, alt, other = "draw", "stand", stands
            else:
                main, alt, other = "stand", "draw", draws
            line = f"total {pts}: {main}"
            if other:
                line += f"; {alt} with {_group_names(other)}"
            lines.append(line)
        return lines


def _group_names(cells: Sequence[tuple[int, int]]) -> str:
    """Compact names for chart cells (row, column), suited above the diagonal.

    >>> _group_names([(3, 9), (3, 10), (3, 11), (3, 12), (0, 3), (3, 0), (1, 1)])
    'A-4, 2-2, 4-10/J/Q/Ks'
    """
    kinds: dict[tuple[int, int], set[str]] = {}
    for i, j in cells:
        lo, hi = min(i, j), max(i, j)
        kinds.setdefault((lo, hi), set()).add("" if i == j else "s" if i < j else "o")
    groups: dict[tuple[int, str], list[int]] = {}
    for (lo, hi), ks in sorted(kinds.items()):
        suffix = "" if ks in ({"s", "o"}, {""}) else next(iter(ks))
        groups.setdefault((lo, suffix), []).append(hi)
    return ", ".join(
        f"{RANK_NAMES[lo]}-{'/'.join(RANK_NAMES[h] for h in his)}{suffix}"
        for (lo, suffix), his in groups.items()
    )


def strategy_chart(
    rules: RulesSpec = None,
    dealer_draws_at_most: int | None = None,
    tables: str | os.PathLike[str] | None = None,
) -> Chart:
    """The whole strategy as a :class:`Chart` (169 cells = every class of starts)."""
    rs = _resolve(rules)
    k = _policy(rs, dealer_draws_at_most)
    reps = np.array([Chart.cell_cards(i, j) for i in range(13) for j in range(13)])
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    adv = advise_batch(reps, k, spec, tables)
    ev = evaluate_batch(reps, spec, tables)
    tot = overall(spec, k, tables)

    def grid(values: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(values[i * 13 : (i + 1) * 13]) for i in range(13))

    return Chart(
        rules=rs.rules.name,
        dealer_draws_at_most=k,
        action=grid([Action(int(a)).label for a in adv["action"]]),
        points=grid([int(p) for p in ev["points"]]),
        ev_stand=grid([Fraction(int(n), DRAW_DEN) for n in adv["ev_stand_num"]]),
        ev_draw=grid([Fraction(int(n), DRAW_DEN) for n in adv["ev_draw_num"]]),
        ev_optimal=Fraction(tot["ev_optimal_fraction"]),
        ev_simple=Fraction(tot["ev_simple_fraction"]),
    )


def _cell_text(chart: Chart, i: int, j: int) -> str:
    a = chart.action[i][j]
    if a == "pok":
        return f"P{chart.points[i][j]}"
    m = round(float(chart.margin(i, j)) * 100)
    return f"{a[0].upper()}{'<1' if m == 0 else m:>3}"


def chart_text(chart: Chart) -> str:
    """The chart as a terminal grid, with a legend and a summary by total."""
    head = "    " + "".join(f"{RANK_NAMES[j]:>5}" for j in range(13))
    lines = [
        f"Pok Deng drawing strategy — rules {chart.rules}, dealer draws on "
        f"{chart.dealer_draws_at_most} or less",
        "Row: one card, column: the other. Above the diagonal suited, below offsuit, on it pairs.",
        "D draw, S stand, P8/P9 Pok (no choice). Number: the EV margin in hundredths of a stake.",
        "",
        head,
    ]
    for i in range(13):
        lines.append(
            f"{RANK_NAMES[i]:>3} " + "".join(f"{_cell_text(chart, i, j):>5}" for j in range(13))
        )
    lines.append("")
    lines.extend(chart.summary())
    lines.append(
        f"overall EV per stake: optimal {float(chart.ev_optimal):+.5f}, "
        f"draw on 4 or less {float(chart.ev_simple):+.5f}"
    )
    return "\n".join(lines)


def chart_png(chart: Chart, path: str | os.PathLike[str]) -> None:
    """Draw the chart as a PNG (matplotlib, Agg canvas; imported only here)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.colors import ListedColormap
        from matplotlib.figure import Figure
    except ImportError:
        raise RulesError(
            "the PNG chart needs matplotlib: pip install 'bull-solver[plot]'"
        ) from None
    codes = {"stand": 0, "draw": 1, "pok": 2}
    grid = np.array([[codes[a] for a in row] for row in chart.action])
    fig = Figure(figsize=(9.5, 10.5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.07, 0.12, 0.9, 0.77))
    cmap = ListedColormap(["#f4c542", "#4f9de0", "#9ccf7a"])
    ax.imshow(grid, cmap=cmap, vmin=0, vmax=2)
    from matplotlib.patches import Rectangle

    for i in range(13):
        for j in range(13):
            a = chart.action[i][j]
            if a == "pok":
                label = f"Pok {chart.points[i][j]}"
            else:
                m = float(chart.margin(i, j))
                label = f"{a[0].upper()}\n{m:.2f}" if m >= 0.005 else f"{a[0].upper()}\n{m:.3f}"
            ax.text(
                j,
                i,
                label,
                ha="center",
                va="center",
                fontsize=8.5,
                linespacing=1.1,
                fontweight="bold" if a != "pok" else "normal",
            )
        ax.add_patch(
            Rectangle(
                (i - 0.47, i - 0.47),
                0.94,
                0.94,
                fill=False,
                edgecolor="#333333",
                linewidth=2.0,
                zorder=3,
            )
        )
    ticks = list(range(13))
    ax.set_xticks(ticks, [RANK_NAMES[t] for t in ticks])
    ax.set_yticks(ticks, [RANK_NAMES[t] for t in ticks])
    ax.xaxis.tick_top()
    ax.set_xticks([t - 0.5 for t in range(1, 13)], minor=True)
    ax.set_yticks([t - 0.5 for t in range(1, 13)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    ax.tick_params(which="major", length=0, labelsize=11)
    fig.suptitle(
        f"Pok Deng drawing strategy — rules {chart.rules}, dealer draws on "
        f"{chart.dealer_draws_at_most} or less",
        fontsize=13,
        y=0.985,
    )
    fig.text(
        0.5,
        0.947,
        "your two cards: row and column · upper right: suited · "
        "lower left: offsuit · outlined diagonal: pairs",
        ha="center",
        fontsize=10,
    )
    fig.text(
        0.07,
        0.075,
        "S stand (yellow) · D draw (blue) · Pok: no choice (green). "
        "Number: EV margin of the right action, in stakes.",
        fontsize=9.5,
    )
    fig.text(
        0.07,
        0.05,
        f"Overall player EV per stake: optimal {float(chart.ev_optimal):+.4f}; "
        f"draw on 4 or less {float(chart.ev_simple):+.4f}.",
        fontsize=9.5,
    )
    fig.text(0.07, 0.025, "Heads-up, exact card removal (RULES.md §5).", fontsize=9.5)
    try:
        fig.savefig(os.fspath(path))
    except OSError as exc:
        raise ParseError(f"cannot write PNG file {os.fspath(path)}: {exc.strerror}") from None


# ---------------------------------------------------------------- CLI contract

_OTHER_GAME_OPTIONS = {
    "bet": "--bet",
    "commission": "--commission",
    "banker_reveals": "--banker-reveals",
}


def _check_options(options: Mapping[str, Any], policy_ok: bool) -> int | None:
    for key, flag in _OTHER_GAME_OPTIONS.items():
        if options.get(key) is not None:
            raise RulesError(f"option {flag} does not apply to pokdeng")
    k = options.get("dealer_draws_at_most")
    if k is not None and not policy_ok:
        raise RulesError(
            "option --dealer-draws-at-most applies to pokdeng advise and strategy only"
        )
    return None if k is None else int(k)


def _eval_record(e: HandEval) -> dict[str, Any]:
    return {
        "hand": list(e.hand),
        "type": e.type.label,
        "points": e.points,
        "deng": e.deng,
        "strength": e.strength,
        "rules": e.rules,
    }


def cli_eval(
    hands: list[str], rules: str | None, options: dict[str, Any], tables: str | None
) -> list[dict[str, Any]]:
    """``bull eval pokdeng``: one record per hand."""
    _check_options(options, policy_ok=False)
    rs = _resolve(rules)
    spec: RulesSpec = rs.rules if rs.config is None else rs.config
    parsed = [_as_cards(h) for h in hands]
    return [_eval_record(evaluate(c, spec, tables)) for c in parsed]


def cli_eval_text(rec: dict[str, Any]) -> str:
    c = HandClass(HandType.from_label(rec["type"]), rec["points"], rec["deng"])
    return f"{' '.join(rec['hand'])}: {c} (strength {rec['strength']})"


def cli_compare(
    player: str, dealer: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    """``bull compare pokdeng PLAYER DEALER``: winner, reason and the player's net."""
    _check_options(options, policy_ok=False)
    s = compare(player, dealer, rules, tables)
    p, d = _eval_record(s.player), _eval_record(s.dealer)
    return {
        "player": p["hand"],
        "dealer": d["hand"],
        "player_type": p["type"],
        "player_points": p["points"],
        "player_deng": p["deng"],
        "dealer_type": d["type"],
        "dealer_points": d["points"],
        "dealer_deng": d["deng"],
        "winner": s.winner,
        "reason": s.reason,
        "net": s.net,
        "rules": s.player.rules,
    }


def cli_compare_text(rec: dict[str, Any]) -> str:
    pc = HandClass(
        HandType.from_label(rec["player_type"]), rec["player_points"], rec["player_deng"]
    )
    dc = HandClass(
        HandType.from_label(rec["dealer_type"]), rec["dealer_points"], rec["dealer_deng"]
    )
    head = f"player {' '.join(rec['player'])} ({pc}) vs dealer {' '.join(rec['dealer'])} ({dc})"
    verdict = "push" if rec["winner"] == "push" else f"{rec['winner']} wins"
    return f"{head}: {verdict}, player net {rec['net']:+d} — {rec['reason']}"


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def cli_advise(
    hand: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    """``bull advise pokdeng HAND``: action, both EVs, margin (floats and exact fractions)."""
    k = _check_options(options, policy_ok=True)
    a = advise(hand, k, rules, tables)
    return {
        "hand": list(a.hand),
        "type": a.type.label,
        "points": a.points,
        "deng": a.deng,
        "action": a.action,
        "ev_stand": float(a.ev_stand),
        "ev_draw": float(a.ev_draw),
        "margin": float(a.margin),
        "ev_stand_fraction": _frac(a.ev_stand),
        "ev_draw_fraction": _frac(a.ev_draw),
        "margin_fraction": _frac(a.margin),
        "dealer_draws_at_most": a.dealer_draws_at_most,
        "rules": a.rules,
    }


def cli_advise_text(rec: dict[str, Any]) -> str:
    a = Advice(
        hand=tuple(rec["hand"]),
        type=HandType.from_label(rec["type"]),
        points=rec["points"],
        deng=rec["deng"],
        action=rec["action"],
        ev_stand=Fraction(rec["ev_stand_fraction"]),
        ev_draw=Fraction(rec["ev_draw_fraction"]),
        margin=Fraction(rec["margin_fraction"]),
        dealer_draws_at_most=rec["dealer_draws_at_most"],
        rules=rec["rules"],
    )
    return str(a)


def cli_strategy(
    rules: str | None, options: dict[str, Any], tables: str | None, png: str | None = None
) -> dict[str, Any]:
    """``bull strategy pokdeng``: every cell of the chart, the summary and overall EVs."""
    k = _check_options(options, policy_ok=True)
    chart = strategy_chart(rules, k, tables)
    cells = []
    for i in range(13):
        for j in range(13):
            cells.append(
                {
                    "cell": Chart.cell_name(i, j),
                    "row": RANK_NAMES[i],
                    "column": RANK_NAMES[j],
                    "kind": "pair" if i == j else "suited" if i < j else "offsuit",
                    "points": chart.points[i][j],
                    "action": chart.action[i][j],
                    "ev_stand": float(chart.ev_stand[i][j]),
                    "ev_draw": float(chart.ev_draw[i][j]),
                    "margin": float(chart.margin(i, j)),
                    "ev_stand_fraction": _frac(chart.ev_stand[i][j]),
                    "ev_draw_fraction": _frac(chart.ev_draw[i][j]),
                }
            )
    rec: dict[str, Any] = {
        "rules": chart.rules,
        "dealer_draws_at_most": chart.dealer_draws_at_most,
        "cells": cells,
        "summary": chart.summary(),
        "ev_optimal": float(chart.ev_optimal),
        "ev_optimal_fraction": _frac(chart.ev_optimal),
        "ev_simple": float(chart.ev_simple),
        "ev_simple_fraction": _frac(chart.ev_simple),
        "png": None,
    }
    if png:
        chart_png(chart, png)
        rec["png"] = os.fspath(png)
    return rec


def _chart_from_record(rec: Mapping[str, Any]) -> Chart:
    cells = rec["cells"]

    def grid(key: str, conv: Any) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(conv(cells[i * 13 + j][key]) for j in range(13)) for i in range(13))

    return Chart(
        rules=rec["rules"],
        dealer_draws_at_most=rec["dealer_draws_at_most"],
        action=grid("action", str),
        points=grid("points", int),
        ev_stand=grid("ev_stand_fraction", Fraction),
        ev_draw=grid("ev_draw_fraction", Fraction),
        ev_optimal=Fraction(rec["ev_optimal_fraction"]),
        ev_simple=Fraction(rec["ev_simple_fraction"]),
    )


def cli_strategy_text(rec: dict[str, Any]) -> str:
    text = chart_text(_chart_from_record(rec))
    if rec.get("png"):
        text += f"\nchart written to {rec['png']}"
    return text
