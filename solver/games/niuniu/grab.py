"""Grab the banker (看牌抢庄): the ``niuniu_grab`` table over all C(52, 4) = 270,725
four-card hands and ``bull grab`` (issue 14).

Each player sees four of his five cards and bids 1x-4x to be the banker. For a visible
four-card hand the table holds, exactly, over the 48 possible fifth cards and one
opponent's five cards from the 47 left (card removal on both sides):

* ``cat_<category>``: how many of the 48 fifth cards give each final category
  (classic ranking);
* ``win``: P(win) against one opponent, a numerator over ``48 * C(47, 5)``;
* ``ev``: the EV per unit of stake against one opponent, a numerator over
  ``20 * 48 * C(47, 5)``, for the stated multiplier table (:data:`MULTIPLIERS`: the
  loser pays the winner's multiplier, 5% commission taken from whoever wins). Under
  these rules a hand's EV is the same as banker and as player (the payments are
  symmetric and one deck deals no ties), so ``ev_banker`` and ``ev_player`` agree;
* ``ev_at_most``: how many four-card hands have an EV no higher (the percentile);
* ``bid``: the bid that maximises EV as banker. The EV is linear in the bid, so the
  largest allowed bid (4) when it is positive, no bid (0) otherwise; against N players
  the banker's EV is N times the heads-up EV.

``bull grab niuniu "AS 10H 3C 7D"`` answers from the table (:func:`grab_record`).
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from solver.core.cards import hand_names, parse_hand
from solver.core.errors import BullError
from solver.games.niuniu.rules import Category, NiuNiuRules, load_rules

if TYPE_CHECKING:
    from solver.kit.exact import DisjointCounts

__all__ = [
    "BIDS",
    "COMMISSION",
    "MULTIPLIERS",
    "TABLE",
    "build_grab_table",
    "cli_grab",
    "cli_grab_text",
    "ev_by_visible",
    "grab_bet",
    "grab_record",
    "report_section",
]

TABLE = "niuniu_grab"
MULTIPLIERS = {"niu_7": 2, "niu_8": 2, "niu_9": 2, "niu_niu": 3, "five_faces": 5}
"""The winner's multiplier (any other category: 1), the classic double bet."""
COMMISSION = Fraction(1, 20)
"""Taken from whoever wins."""
BIDS = (1, 2, 3, 4)
_OPP = 1_533_939  # C(47, 5)
_CATS = tuple(Category)[:12]


def _mult_row() -> npt.NDArray[np.int64]:
    return np.array([MULTIPLIERS.get(c.label, 1) for c in _CATS], dtype=np.int64)


def grab_bet(rules: NiuNiuRules) -> str | None:
    """The bet of ``rules`` whose multipliers are the grab's (:data:`MULTIPLIERS`), if
    any: its per-hand counts are the ones the grab table sums (classic: ``double``)."""
    want = tuple(_mult_row().tolist())
    return next((b for b in rules.bets if rules.multiplier_row(b)[: len(want)] == want), None)


def build_grab_table(
    strength: npt.ArrayLike, category: npt.ArrayLike, counts: DisjointCounts | None = None
) -> Any:
    """Every four-card hand's row (colex order of the four sorted card ids), from the
    classic ``strength`` and ``category`` of every five-card hand (colex order: the
    ``niuniu`` table's ``classic_*`` columns). ``counts``: those hands'
    :func:`~solver.kit.exact.disjoint_counts` with the grab's multipliers as weights,
    when already counted.

    A four-card hand's sums run over the 48 five-card hands holding it: each five-card
    hand adds its figures to the five four-card hands it holds (drop one card), so one
    bincount over the 5 x 2,598,960 (four-card hand, five-card hand) pairs does it."""
    from solver.core.indexing import BINOM, all_subsets
    from solver.kit.exact import disjoint_counts
    from solver.store.tables import make_table

    rules = load_rules("classic")
    five = all_subsets(52, 5)
    cat5 = np.asarray(category, dtype=np.int64)
    m = _mult_row()[cat5]
    c = disjoint_counts(five, strength, 52, m) if counts is None else counts
    below = np.asarray(c.below, dtype=np.int64)
    q, p = COMMISSION.denominator, COMMISSION.numerator
    num5 = (q - p) * m * below - q * np.asarray(c.weight_above, dtype=np.int64)
    four = all_subsets(52, 4).astype(np.int64)
    n4 = len(four)
    cols5 = [five[:, i].astype(np.intp) for i in range(5)]
    # colex rank of each five-card hand less its card at position j: the cards before j
    # keep their place (C(c, i + 1)), those after move down one (C(c, i))
    same = [BINOM[:, i + 1][c] for i, c in enumerate(cols5)]
    down = [BINOM[:, i][c] for i, c in enumerate(cols5)]
    win_f = np.zeros(n4)
    ev_f = np.zeros(n4)
    per_cat = np.zeros(n4 * len(_CATS), dtype=np.int64)
    b5, e5 = below.astype(np.float64), num5.astype(np.float64)
    for j in range(5):
        sub = np.zeros(len(five), dtype=np.int64)
        for i in range(5):
            if i != j:
                sub += same[i] if i < j else down[i]
        # exact: sums of 48 integers of magnitude < 2**28, far inside float64's 2**53
        win_f += np.bincount(sub, weights=b5, minlength=n4)
        ev_f += np.bincount(sub, weights=e5, minlength=n4)
        per_cat += np.bincount(sub * len(_CATS) + cat5, minlength=n4 * len(_CATS))
    win = np.rint(win_f).astype(np.int64)
    ev = np.rint(ev_f).astype(np.int64)
    cats = per_cat.reshape(n4, len(_CATS))
    order = np.sort(ev)
    at_most = np.searchsorted(order, ev, side="right")
    cols: dict[str, npt.NDArray[Any]] = {f"c{i}": four[:, i].astype(np.uint8) for i in range(4)}
    cols |= {f"cat_{c.label}": cats[:, i].astype(np.uint8) for i, c in enumerate(_CATS)}
    cols |= {
        "win": win,
        "ev": ev,
        "ev_at_most": at_most.astype(np.int32),
        "bid": np.where(ev > 0, max(BIDS), 0).astype(np.uint8),
    }
    notes = {
        "order": "row i is the four-card hand whose sorted card ids have colex rank i",
        "multipliers": MULTIPLIERS | {"other": 1},
        "commission": f"{COMMISSION} of the winner's winnings, banker or player",
        "win_denominator": 48 * _OPP,
        "ev_denominator": q * 48 * _OPP,
        "ev_at_most": "four-card hands (of 270,725) whose EV is at most this one's",
        "bid": "4 when the EV is positive, else 0 (no bid); EV is linear in the bid",
    }
    return make_table(TABLE, cols, {"classic": rules.to_data()}, notes)


def _table(tables: str | os.PathLike[str] | None) -> Any:
    from solver.store.tables import open_table

    return open_table(TABLE, tables)


def grab_record(
    hand: str, tables: str | os.PathLike[str] | None = None, players: int = 1
) -> dict[str, Any]:
    """The grab-the-banker facts of four visible cards (one table row)."""
    from solver.core.indexing import colex_rank_array
    from solver.kit.exact import fraction_text

    cards = parse_hand(hand, size=4)
    t = _table(tables)
    row = int(colex_rank_array(np.array([cards]), presorted=True)[0])
    names = [f"cat_{c.label}" for c in _CATS] + ["win", "ev", "ev_at_most", "bid"]
    got = {k: v[0].item() for k, v in t.rows([row], names).items()}
    extra = t.meta.get("extra", {})
    ev = Fraction(got["ev"], extra["ev_denominator"])
    p_win = Fraction(got["win"], extra["win_denominator"])
    bid = got["bid"]
    return {
        "hand": hand_names(cards),
        "category_counts": {c.label: got[f"cat_{c.label}"] for c in _CATS},
        "p_win": float(p_win),
        "p_win_fraction": fraction_text(p_win),
        "ev_banker": float(ev),
        "ev_banker_fraction": fraction_text(ev),
        "ev_player": float(ev),
        "ev_player_fraction": fraction_text(ev),
        "percentile": 100 * got["ev_at_most"] / t.num_rows,
        "bid": bid,
        "n_players": players,
        "ev_banker_at_bid": float(ev * bid * players),
        "ev_banker_at_bid_fraction": fraction_text(ev * bid * players),
        "multipliers": MULTIPLIERS | {"other": 1},
        "commission": float(COMMISSION),
        "commission_fraction": fraction_text(COMMISSION),
    }


def cli_grab(
    hand: str, rules: str | None, options: dict[str, Any], tables: str | None
) -> dict[str, Any]:
    if rules not in (None, "classic"):
        raise BullError("bull grab answers the classic ranking only (its own multiplier table)")
    for key, value in options.items():
        if value is not None and key != "players":
            raise BullError(f"option --{key.replace('_', '-')} does not apply to bull grab")
    return grab_record(hand, tables, int(options.get("players") or 1))


def cli_grab_text(rec: dict[str, Any]) -> str:
    cats = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in rec["category_counts"].items() if v)
    bid = f"bid {rec['bid']}x" if rec["bid"] else "do not bid"
    return (
        f"{' '.join(rec['hand'])} + one of 48: {cats}\n"
        f"vs one player: P(win) {rec['p_win']:.4%}, EV as banker {rec['ev_banker']:+.4f} "
        f"(exact {rec['ev_banker_fraction']}), as player {rec['ev_player']:+.4f}; "
        f"percentile {rec['percentile']:.1f}\n"
        f"{bid} (EV is linear in the bid; against {rec['n_players']} player(s): "
        f"{rec['ev_banker_at_bid']:+.4f})"
    )


def ev_by_visible(tables: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """The grab table's mean EV as banker (heads-up, per unit bid) by the four visible
    cards' point total (card values mod 10) and face count (J, Q, K), exactly: one
    record per group with ``hands``, ``ev`` and ``ev_fraction`` and the share that bids."""
    from solver.kit.exact import fraction_text

    t = _table(tables)
    cards = np.stack([t.column(f"c{i}") for i in range(4)], axis=1).astype(np.int64)
    ranks = cards // 4
    total = np.minimum(ranks + 1, 10).sum(axis=1) % 10
    faces = (ranks >= 10).sum(axis=1)
    ev = t.column("ev").astype(np.int64)
    bid = t.column("bid") > 0
    den = t.meta.get("extra", {})["ev_denominator"]
    out = []
    for p in range(10):
        for f in range(5):
            m = (total == p) & (faces == f)
            n = int(m.sum())
            if not n:
                continue
            mean = Fraction(int(ev[m].sum()), den * n)
            out.append(
                {
                    "points": p,
                    "faces": f,
                    "hands": n,
                    "ev": float(mean),
                    "ev_fraction": fraction_text(mean),
                    "bid_share": float(bid[m].mean()),
                }
            )
    return out


def report_section(ctx: Any) -> None:
    """The report's grab-the-banker part (a :class:`solver.kit.markdown.ReportContext`):
    the table of :func:`ev_by_visible` and, with plots, a chart of it."""
    from solver.kit.markdown import figure, md_table

    rows = ev_by_visible(ctx.tables)
    ctx.md += [
        "### Grab the banker (看牌抢庄)",
        "",
        "Mean exact EV as banker against one player, per unit bid, over the four-card "
        "hands with each visible point total and face count (niu 7-9 x2, niu niu x3, five "
        "faces x5, 5% commission from whoever wins; `bull grab niuniu HAND` for one hand).",
        "",
    ]
    ctx.md += md_table(
        ["visible points", "faces", "hands", "mean EV", "share that bids"],
        [
            [r["points"], r["faces"], f"{r['hands']:,}", f"{r['ev']:+.4f}", f"{r['bid_share']:.1%}"]
            for r in rows
        ],
    )
    ctx.md.append("")
    if ctx.plots:
        grid = np.full((5, 10), np.nan)
        for r in rows:
            grid[r["faces"], r["points"]] = r["ev"]
        fig = figure(8, 3.8)
        ax = fig.add_subplot(1, 1, 1)
        im = ax.imshow(grid, cmap="RdYlGn", aspect="auto", origin="lower")
        ax.set_xlabel("visible point total (mod 10)")
        ax.set_ylabel("face cards among the four")
        ax.set_xticks(range(10))
        ax.set_yticks(range(5))
        fig.colorbar(im, ax=ax, label="mean EV as banker per unit bid")
        ax.set_title("Grab the banker: EV by the four visible cards")
        fig.savefig(ctx.image("niuniu_grab.png"))
        ctx.md += ["![Grab the banker EV](niuniu_grab.png)", ""]
