"""The CLI records and texts of Pok Deng's two-sided game (issue 15):
``bull strategy pokdeng --dealer best-response|equilibrium [--must-draw-at-most K]
[--player mirror|optimal|FILE] [--png PATH] [--json]``, ``bull advise pokdeng HAND
--dealer-sees N``, and the report's comparison rows (:func:`dealer_report_rows`).

Every EV here is per stake. ``value``, ``player_ev`` and the certificate numbers are
the *player's* EV; the dealer's per-start EVs (``ev_stand``/``ev_draw`` in the dealer's
strategy) are the *dealer's* own (minus the player's), given his start and what he
sees. ``--must-draw-at-most K`` (default -1: free choice) forces a draw on a total of
K or less; ``--player`` (best response only; default ``optimal``: the player's optimum
against the dealer drawing on 4 or less, or on ``--dealer-draws-at-most``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from solver.core.cards import RANK_NAMES, parse_hand
from solver.core.errors import RulesError
from solver.games.pokdeng.chart import Chart
from solver.games.pokdeng.dealer import (
    BestResponse,
    DealerGame,
    RationalVector,
    best_response,
    card_names,
    dealer_game,
    load_player_file,
    mirror_strategy,
    optimal_strategy,
    player_values,
)
from solver.games.pokdeng.equilibrium import solve_equilibrium
from solver.games.pokdeng.rules import PokDengRules, load_rules

__all__ = [
    "DealerReportRow",
    "cli_dealer_advise",
    "cli_dealer_advise_text",
    "cli_dealer_strategy",
    "cli_dealer_strategy_text",
    "dealer_report_rows",
]

MODES = ("best-response", "equilibrium")


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def _twin(name: str, f: Fraction | None) -> dict[str, Any]:
    """``name`` as a number and its exact ``name_fraction`` twin (both ``None`` when
    there is no such value)."""
    return {
        name: None if f is None else float(f),
        f"{name}_fraction": None if f is None else _frac(f),
    }


# ---------------------------------------------------------------- options


@dataclass(frozen=True)
class _Options:
    mode: str
    must_draw_at_most: int
    player: str
    fixed_k: int | None


def _options(options: Mapping[str, Any], advise: bool) -> _Options:
    for key, flag in (
        ("bet", "--bet"),
        ("commission", "--commission"),
        ("banker_reveals", "--banker-reveals"),
    ):
        if options.get(key) is not None:
            raise RulesError(f"option {flag} does not apply to pokdeng")
    mode = options.get("dealer") or ("equilibrium" if advise else None)
    if mode is None:
        given = [
            f
            for k, f in (
                ("must_draw_at_most", "--must-draw-at-most"),
                ("player_strategy", "--player"),
            )
            if options.get(k) is not None
        ]
        raise RulesError(
            f"option {given[0] if given else '--dealer-sees'} needs --dealer "
            "best-response or --dealer equilibrium"
        )
    if mode not in MODES:
        raise RulesError(f"--dealer must be best-response or equilibrium, not {mode!r}")
    k = options.get("must_draw_at_most")
    k = -1 if k is None else int(k)
    if not -1 <= k <= 7:
        raise RulesError(f"--must-draw-at-most must be -1..7, not {k}")
    player = options.get("player_strategy")
    fixed = options.get("dealer_draws_at_most")
    if mode == "equilibrium" and player is not None:
        raise RulesError("option --player applies to --dealer best-response only")
    if mode == "equilibrium" and fixed is not None:
        raise RulesError("option --dealer-draws-at-most does not apply to --dealer equilibrium")
    player = "optimal" if player is None else str(player)
    if fixed is not None and player != "optimal":
        raise RulesError("option --dealer-draws-at-most applies to --player optimal only")
    return _Options(mode, k, player, None if fixed is None else int(fixed))


def _player(rules: PokDengRules, game: DealerGame, opts: _Options) -> RationalVector:
    if opts.player == "optimal":
        return optimal_strategy(rules, opts.fixed_k)
    if opts.player == "mirror":
        return mirror_strategy(game)
    return load_player_file(opts.player, game)


# ---------------------------------------------------------------- per-start records


def _cell(cards: Sequence[int]) -> tuple[int, int]:
    """The chart cell of a start (see :class:`~solver.games.pokdeng.chart.Chart`)."""
    a, b = sorted(cards)
    ra, rb = a >> 2, b >> 2
    if ra == rb:
        return ra, ra
    return (ra, rb) if (a & 3) == (b & 3) else (rb, ra)


def _player_starts(
    game: DealerGame, sigma: RationalVector, tau2: RationalVector, tau3: RationalVector
) -> list[dict[str, Any]]:
    stand, draw = player_values(game, tau2, tau3)
    out = []
    for i, cards in enumerate(game.two.tolist()):
        p = sigma.fraction(i)
        act = "pok" if game.pok[i] else "draw" if p == 1 else "stand" if p == 0 else "mix"
        out.append(
            {
                "hand": card_names(cards),
                "cell": Chart.cell_name(*_cell(cards)),
                "action": act,
                **_twin("draw_probability", p),
                **_twin("ev_stand", stand[i]),
                **_twin("ev_draw", draw[i]),
            }
        )
    return out


def _dealer_starts(br: BestResponse, tau2: RationalVector, tau3: RationalVector) -> list[Any]:
    game = br.game
    out = []
    for i, cards in enumerate(game.two.tolist()):
        views = {}
        for sees, tau, es, ed in (
            ("2", tau2, br.ev_stand2, br.ev_draw2),
            ("3", tau3, br.ev_stand3, br.ev_draw3),
        ):
            p = tau.fraction(i)
            act = "pok" if game.pok[i] else "draw" if p == 1 else "stand" if p == 0 else "mix"
            views[sees] = {
                "action": act,
                **_twin("draw_probability", p),
                **_twin("ev_stand", es[i]),
                **_twin("ev_draw", ed[i]),
            }
        out.append(
            {
                "hand": card_names(cards),
                "cell": Chart.cell_name(*_cell(cards)),
                "points": int(game.points[i]),
                "forced": br.forced[i],
                "sees": views,
            }
        )
    return out


# ---------------------------------------------------------------- strategy


def cli_dealer_strategy(
    rules: str | None, options: Mapping[str, Any], tables: str | None, png: str | None = None
) -> dict[str, Any]:
    """``bull strategy pokdeng --dealer ...``: both sides' strategies and the value.

    ``tables`` is not used: the game is solved from the rules in a second or two.
    """
    opts = _options(options, advise=False)
    rs = load_rules(rules)
    game = dealer_game(rs)
    rec: dict[str, Any] = {
        "rules": rs.name,
        "dealer_mode": opts.mode,
        "must_draw_at_most": opts.must_draw_at_most,
    }
    if opts.mode == "best-response":
        sigma = _player(rs, game, opts)
        br = best_response(game, sigma, opts.must_draw_at_most)
        rec["player_strategy"] = opts.player
        rec |= _twin("ev_player", br.player_ev)
        tau2, tau3 = br.tau2, br.tau3
    else:
        eq = solve_equilibrium(rs, opts.must_draw_at_most)
        sigma, tau2, tau3 = eq.sigma, eq.tau2, eq.tau3
        br = best_response(game, sigma, opts.must_draw_at_most)
        rec |= _twin("value", eq.value)
        rec |= _twin("ev_player_best_response", eq.player_best_response_ev)
        rec |= _twin("ev_dealer_best_response", eq.dealer_best_response_ev)
        rec["certificate_gap"] = float(eq.certificate_gap)
        rec["exact"] = eq.exact
        rec["mixed"] = eq.mixed_starts()
    rec["player_starts"] = _player_starts(game, sigma, tau2, tau3)
    rec["dealer_starts"] = _dealer_starts(br, tau2, tau3)
    rec["png"] = None
    if png:
        dealer_charts_png(rec, png)
        rec["png"] = os.fspath(png)
    return rec


def _grid(starts: Sequence[Mapping[str, Any]], key: Any) -> list[list[str]]:
    """13 x 13 cell labels: a cell's common label, or ``mix`` if its starts differ."""
    cells: dict[str, set[str]] = {}
    for s in starts:
        cells.setdefault(s["cell"], set()).add(key(s))
    return [
        [
            (lambda v: next(iter(v)) if len(v) == 1 else "mix")(cells[Chart.cell_name(i, j)])
            for j in range(13)
        ]
        for i in range(13)
    ]


def _player_label(s: Mapping[str, Any]) -> str:
    a = s["action"]
    return "P" if a == "pok" else "M" if a == "mix" else a[0].upper()


def _dealer_label(s: Mapping[str, Any], sees: str) -> str:
    v = s["sees"][sees]
    a = str(v["action"])
    if a == "pok":
        return "P"
    if a == "mix":
        return "M"
    return a[0] if s["forced"] else a[0].upper()


def _grid_text(title: str, grid: list[list[str]]) -> list[str]:
    lines = [title, "    " + "".join(f"{RANK_NAMES[j]:>4}" for j in range(13))]
    for i in range(13):
        row = "".join(f"{('?' if c == 'mix' else c):>4}" for c in grid[i])
        lines.append(f"{RANK_NAMES[i]:>3} {row}")
    return lines


def cli_dealer_strategy_text(rec: dict[str, Any]) -> str:
    k = rec["must_draw_at_most"]
    house = "free choice" if k < 0 else f"must draw on {k} or less, chooses above"
    lines = [
        f"Pok Deng, two-sided — rules {rec['rules']}, dealer {rec['dealer_mode']} ({house})",
        "Row: one card, column: the other. Above the diagonal suited, below offsuit, on it pairs.",
        "D draw, S stand (d: the house forces the draw), P Pok, M mixed, ? starts differ.",
        "",
    ]
    ps = rec["player_starts"]
    ds = rec["dealer_starts"]
    lines += _grid_text("Player (his two cards)", _grid(ps, _player_label))
    lines.append("")
    for sees in ("2", "3"):
        lines += _grid_text(
            f"Dealer (his two cards), the player shows {sees} cards",
            _grid(ds, lambda s, v=sees: _dealer_label(s, v)),
        )
        lines.append("")
    if rec["dealer_mode"] == "best-response":
        lines.append(
            f"dealer's best response to the player strategy {rec['player_strategy']}: "
            f"player EV per stake {rec['ev_player']:+.6f} "
            f"({rec['ev_player_fraction']})"
        )
    else:
        mixed = rec["mixed"]
        lines += [
            f"game value per stake (player's EV): {rec['value']:+.9f} = {rec['value_fraction']}",
            f"certificate: player's best response to the dealer's strategy "
            f"{rec['ev_player_best_response']:+.15f}; dealer's best response to the "
            f"player's {rec['ev_dealer_best_response']:+.15f} "
            f"({'equal exactly' if rec['exact'] else 'gap ' + str(rec['certificate_gap'])})",
            f"mixed: {mixed['player']} player starts, {mixed['dealer_sees_2']} dealer starts "
            f"seeing 2, {mixed['dealer_sees_3']} seeing 3",
        ]
    if rec.get("png"):
        lines.append(f"charts written to {rec['png']}")
    return "\n".join(lines)


def dealer_charts_png(rec: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Draw both sides' charts (player; dealer seeing 2; dealer seeing 3) in one PNG."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.colors import ListedColormap
        from matplotlib.figure import Figure
    except ImportError:
        raise RulesError(
            "the PNG chart needs matplotlib: pip install 'bull-solver[plot]'"
        ) from None
    from solver.core.errors import ParseError

    codes = {"S": 0, "s": 0, "D": 1, "d": 1, "P": 2, "M": 3, "mix": 3}
    panels = [("Player", _grid(rec["player_starts"], _player_label))]
    for sees in ("2", "3"):
        panels.append(
            (
                f"Dealer, player shows {sees}",
                _grid(rec["dealer_starts"], lambda s, v=sees: _dealer_label(s, v)),
            )
        )
    fig = Figure(figsize=(21, 8), dpi=100)
    FigureCanvasAgg(fig)
    cmap = ListedColormap(["#f4c542", "#4f9de0", "#9ccf7a", "#d98cd9"])
    for n, (title, grid) in enumerate(panels):
        ax = fig.add_axes((0.03 + n * 0.325, 0.1, 0.3, 0.75))
        ax.imshow(np.array([[codes[c] for c in row] for row in grid]), cmap=cmap, vmin=0, vmax=3)
        for i in range(13):
            for j in range(13):
                ax.text(
                    j,
                    i,
                    "?" if grid[i][j] == "mix" else grid[i][j],
                    ha="center",
                    va="center",
                    fontsize=9,
                )
        ticks = list(range(13))
        ax.set_xticks(ticks, [RANK_NAMES[t] for t in ticks])
        ax.set_yticks(ticks, [RANK_NAMES[t] for t in ticks])
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        ax.set_title(title, fontsize=13, pad=24)
    k = rec["must_draw_at_most"]
    house = "free choice" if k < 0 else f"must draw on {k} or less"
    fig.suptitle(
        f"Pok Deng, two-sided — rules {rec['rules']}, dealer {rec['dealer_mode']} ({house})",
        fontsize=14,
    )
    if rec["dealer_mode"] == "equilibrium":
        foot = f"Game value per stake (player): {rec['value']:+.6f} = {rec['value_fraction']}"
    else:
        foot = f"Player EV against the dealer's best response: {rec['ev_player']:+.6f}"
    fig.text(
        0.03,
        0.04,
        foot + ".  S stand (yellow) · D draw (blue; d forced) · Pok (green) "
        "· M mixed / ? starts differ (violet). Upper right suited, lower left offsuit.",
        fontsize=10,
    )
    try:
        fig.savefig(os.fspath(path))
    except OSError as exc:
        raise ParseError(f"cannot write PNG file {os.fspath(path)}: {exc.strerror}") from None


# ---------------------------------------------------------------- advise


def cli_dealer_advise(
    hand: str, rules: str | None, options: Mapping[str, Any], tables: str | None
) -> dict[str, Any]:
    """``bull advise pokdeng HAND --dealer-sees N``: the dealer's decision for his start
    HAND when the player shows N cards (default: his equilibrium strategy)."""
    opts = _options(options, advise=True)
    sees = options.get("dealer_sees")
    if sees is None:
        raise RulesError("the dealer's decision (advise --dealer ...) needs --dealer-sees 2 or 3")
    if sees not in (2, 3):
        raise RulesError(f"--dealer-sees must be 2 or 3, not {sees}")
    rs = load_rules(rules)
    game = dealer_game(rs)
    cards = parse_hand(hand, size=2)
    i = game.index(cards)
    if opts.mode == "best-response":
        sigma = _player(rs, game, opts)
        br = best_response(game, sigma, opts.must_draw_at_most)
        tau = br.tau2 if sees == 2 else br.tau3
    else:
        eq = solve_equilibrium(rs, opts.must_draw_at_most)
        br = best_response(game, eq.sigma, opts.must_draw_at_most)
        tau = eq.tau2 if sees == 2 else eq.tau3
    p = tau.fraction(i)
    es = br.ev_stand2[i] if sees == 2 else br.ev_stand3[i]
    ed = br.ev_draw2[i] if sees == 2 else br.ev_draw3[i]
    act = "pok" if game.pok[i] else "draw" if p == 1 else "stand" if p == 0 else "mix"
    return {
        "hand": card_names(game.two[i].tolist()),
        "points": int(game.points[i]),
        "dealer_sees": sees,
        "dealer_mode": opts.mode,
        "player_strategy": opts.player if opts.mode == "best-response" else None,
        "must_draw_at_most": opts.must_draw_at_most,
        "forced": br.forced[i],
        "action": act,
        **_twin("draw_probability", p),
        **_twin("ev_stand", es),
        **_twin("ev_draw", ed),
        "rules": rs.name,
    }


def cli_dealer_advise_text(rec: dict[str, Any]) -> str:
    against = (
        f"best response to the player strategy {rec['player_strategy']}"
        if rec["dealer_mode"] == "best-response"
        else "equilibrium"
    )
    head = (
        f"dealer {' '.join(rec['hand'])} (total {rec['points']}), player shows "
        f"{rec['dealer_sees']} cards — {against}: "
    )
    if rec["action"] == "pok":
        return head + "Pok, no choice"
    act = str(rec["action"])
    if act == "mix":
        act = f"mix, draw with probability {rec['draw_probability_fraction']}"
    if rec["forced"]:
        act += " (forced by the house)"
    es, ed = rec["ev_stand"], rec["ev_draw"]
    if es is None:
        return head + act + "; the player never shows this count here"
    return head + f"{act}; dealer's EV per stake stand {es:+.5f}, draw {ed:+.5f}"


# ---------------------------------------------------------------- report rows


@dataclass(frozen=True)
class DealerReportRow:
    """One line of the report's comparison: the player's exact EV per stake."""

    case: str
    must_draw_at_most: int | None
    player_ev: Fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "must_draw_at_most": self.must_draw_at_most,
            **_twin("ev_player", self.player_ev),
        }


def dealer_report_rows(rules: PokDengRules | str | None = None) -> list[DealerReportRow]:
    """The player's EV: dealer fixed on 4 or less (player optimal against it); the dealer's
    best response to that optimum (free choice, and must draw on 0-3); the equilibrium
    (free choice, must draw on 0-3, must draw on 0-4)."""
    rs = rules if isinstance(rules, PokDengRules) else load_rules(rules)
    from solver.games.pokdeng.strategy import overall_ev, solve

    fixed = Fraction(overall_ev(solve(rs, 4))["ev_optimal_fraction"])
    game = dealer_game(rs)
    opt = optimal_strategy(rs, 4)
    rows = [DealerReportRow("dealer fixed: draws on 4 or less; player optimal", 4, fixed)]
    for k, what in ((-1, "free choice"), (3, "must draw on 0-3")):
        br = best_response(game, opt, k)
        rows.append(
            DealerReportRow(f"dealer best response to that player ({what})", k, br.player_ev)
        )
    for k, what in ((-1, "free choice"), (3, "must draw on 0-3"), (4, "must draw on 0-4")):
        eq = solve_equilibrium(rs, k)
        if not eq.exact:  # pragma: no cover - the certificate failed
            raise RulesError(f"equilibrium ({what}) not certified exactly")
        rows.append(DealerReportRow(f"equilibrium ({what})", k, eq.value))
    return rows
