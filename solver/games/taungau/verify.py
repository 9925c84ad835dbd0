"""Checking Tau Ngau claims for ``bull verify``.

Hand rows: a claimed score is **legal** if some 3/6 choice with a bull reaches it and
right only if it is the **best** (a legal, lower one is ``suboptimal``, an unreachable
one ``illegal``); a claimed ``bull`` must be three of the hand's tiles making a multiple
of 10, under 3/6 ``values`` consistent with the claim, leaving the claimed score.
Showdown rows: ``winner`` and ``net`` under the rule set's settlement and the banker's
reveal order; the two hands share one tile set.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.errors import BullError
from solver.core.indexing import colex_rank_array
from solver.games.taungau.verify_keys import FirstWritten, WrittenOrders
from solver.games.taungau.verify_shapes import (
    Shapes,
    hand_lost_counts,
    tile_atom_counts,
    type_of_tile,
)
from solver.games.taungau.verify_values import parse_values
from solver.kit.check import (
    Checked,
    Gathered,
    Keys,
    LostAtoms,
    Mask,
    claim_parts,
    claim_rows,
    differing,
    empty_messages,
    equal_fields,
    merge_bad,
    parsed,
    read_claims,
    read_showdowns,
    showdown_agree,
    showdown_claims,
    variant_agreement,
)
from solver.kit.learn import atoms, showdown_claim_codes
from solver.kit.parse import (
    PAD,
    TILE_COPIES,
    TILE_FIRST,
    parse_bool,
    parse_int,
    parse_tile_hands,
)
from solver.kit.read import MAX_LISTED

__all__ = ["CHECKER", "TauNgauChecker"]

WINNERS = ("player", "banker", "push")
_HAND_KEYS = {"has_bull": "has_bull", "points": "points"}
"""Hand claims right when equal to our answer (bull and values are checked as such)."""


_TN_LABEL_NONE = -1

_PERMS = np.array(list(itertools.permutations(range(5))), dtype=np.int64)
"""The orders five tiles may be written in: ``[j]`` the sorted place of the j-th written."""
_ORDERS = len(_PERMS)
_BASE5 = 5 ** np.arange(5, dtype=np.int64)
_ORDER_OF = np.full(5**5, -1, dtype=np.int64)
_ORDER_OF[_PERMS @ _BASE5] = np.arange(_ORDERS)
_GATHER = 4096
"""Rows from which a variant's hand analysis is gathered from every shape's."""


def _order_code(order: npt.NDArray[np.integer]) -> npt.NDArray[np.int16]:
    """Orders written (n, 5) in base 5 (``order @ _BASE5``, below 5 ** 5: 16 bits), a
    column at a time.

    >>> _order_code(np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]], dtype=np.int8)).tolist()
    [2930, 194]
    """
    code = np.zeros(len(order), dtype=np.int16)
    for j in range(order.shape[1] - 1, -1, -1):
        code *= 5
        code += order[:, j]
    return code


class TauNgauChecker:
    """Checks Tau Ngau claims: legal and optimal scores, real bulls with their 3/6
    values, and settlements."""

    game = "taungau"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("has_bull", "points", "bull", "values"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from solver.games.taungau.diagnose import taungau_catalogue
        from solver.games.taungau.rules import load_rules

        for key in ("bet", "commission", "dealer_draws_at_most"):
            if options.get(key) is not None:
                raise BullError(f"--{key.replace('_', '-')} does not apply to taungau")
        self.rules = load_rules(rules)
        self.tables = tables
        self.reveals = options.get("banker_reveals") or self.rules.banker_reveals
        self.variants = taungau_catalogue(self.rules, "all", self.reveals)
        self._decisions: dict[Any, npt.NDArray[np.uint8]] = {}
        self._every: Shapes | None = None
        self._first: FirstWritten | None = None
        self._scores: dict[int, list[int]] = {}

    def prepare(self) -> None:
        """Nothing to preload: hands are analysed directly, their shapes made when the
        first hand rows come (a file of showdowns needs none; the table serves them)."""

    def _scale_digit(
        self, points: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """Last digit of claimed scores, and which claims are bull scores at all."""
        if self.rules.zero_counts_as == 10:
            return points % 10, (points >= 1) & (points <= 10)
        return points, (points >= 0) & (points <= 9)

    @property
    def ahead(self) -> dict[str, Callable[[pa.Array], Any]]:
        """The parses of a hand row's columns (:meth:`check_hands`), by field."""
        return {
            "hand": lambda a: parse_tile_hands(a, (5,)),
            "has_bull": lambda a: parse_bool(a, "has_bull"),
            "points": lambda a: parse_int(a, "points", none_value=_TN_LABEL_NONE),
            "bull": lambda a: parse_tile_hands(a, (3,), "bull", allow_none=True),
            "values": parse_values,
        }

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        ahead = self.ahead
        hands = parsed(cols, "hand", ahead["hand"])
        claims = read_claims(cols, {f: ahead[f] for f in ("has_bull", "points")})
        parts = [(hands.bad | ~hands.stated, empty_messages(hands, "hand")), *claim_parts(claims)]
        bull = None
        if "bull" in cols:
            bull = parsed(cols, "bull", ahead["bull"])
            parts.append((bull.bad, bull.messages))
        vals = None
        if "values" in cols:
            vals = parsed(cols, "values", ahead["values"])
            parts.append((vals[3], vals[4]))
        bad, messages = merge_bad(len(cols["hand"]), parts)
        rows = np.flatnonzero(~bad)
        every = len(rows) == len(bad)  # no row malformed: the arrays as they are
        stated, cv = claim_rows(claims, rows)
        order = hands.written if every or hands.written is None else hands.written[rows]

        def written() -> npt.NDArray[np.int64]:
            return written_positions(cols["hand"], rows) if order is None else order.astype(int)

        tiles = hands.ids if every else hands.ids[rows]
        at = self._shapes().index[colex_rank_array(tiles, presorted=True)]
        key = None if order is None else self._orders().key(at, _ORDER_OF[_order_code(order)])
        return self._hands(rows, bad, messages, tiles, stated, cv, bull, vals, written, at, key)

    def _key_rows(
        self,
        keys: npt.NDArray[np.int64],
        fields: Sequence[str],
        claims: Mapping[str, npt.NDArray[Any]] | None = None,
    ) -> Checked:
        """One hand row per key (its hand's shape, written in an order of its class),
        claiming on ``fields`` the values ``claims`` (default: our answers)."""
        shapes = self._shapes()
        at, o = self._orders().decode(keys)
        order = _PERMS[o]
        tiles = shapes.hands[at]
        n = len(keys)
        ans = {k: v[at] for k, v in shapes.answers.items()}
        types = {"has_bull": bool, "points": np.int64}
        said = ans if claims is None else claims
        cv = {f: np.asarray(said[f]).astype(types[f]) for f in fields}
        stated = {f: np.ones(n, dtype=bool) for f in fields}
        no = np.zeros(n, dtype=bool)
        return self._hands(
            np.arange(n), no, {}, tiles, stated, cv, None, None, lambda: order, at, None
        )

    def _orders(self) -> WrittenOrders:
        """The written orders a key tells apart (:class:`WrittenOrders`), once."""
        return WrittenOrders.of(self._shapes(), _PERMS)

    def _shapes(self) -> Shapes:
        """Every hand shape (sorted tile ids, copy 0 of a type first), once."""
        if self._every is None:
            self._every = Shapes.of(self.rules)
        return self._every

    def _hands(
        self,
        rows: npt.NDArray[np.int64],
        bad: Mask,
        messages: dict[int, str],
        tiles: npt.NDArray[np.uint8],
        stated: dict[str, Mask],
        cv: dict[str, npt.NDArray[Any]],
        bull: Any,
        vals: Any,
        read_written: Callable[[], npt.NDArray[np.int64]],
        at: npt.NDArray[np.int64],
        key: npt.NDArray[np.int64] | None,
    ) -> Checked:
        """The group of well-formed hand rows ``rows`` (``tiles``: sorted ids, ``at``:
        their shapes), checked: their claims ``cv`` where ``stated``, a claimed ``bull``
        and ``values`` (parsed, over the chunk), ``read_written()`` the tiles' written
        order (read if a variant asks); ``key``: the rows' keys (``None``: none)."""
        from solver.games.taungau.diagnose import (
            FIRST_WRITTEN,
            claimed_bull_ok,
            remember_analysis,
            taungau_hand_answers,
        )

        shapes = self._shapes()
        # our answers a row's agreement reads, gathered; the rest read row by row
        ans: dict[str, Any] = {k: np.take(shapes.answers[k], at) for k in _HAND_KEYS.values()}
        ans |= {k: Gathered(v, at) for k, v in shapes.answers.items() if k not in ans}
        m = len(rows)
        choices = bull is not None or vals is not None  # claims the 3/6 choices bear on
        # per 3/6 choice (4, m): the digit left, and whether the hand holds a bull
        digit = np.take(shapes.digit, at, axis=0).T if choices else np.zeros((4, m), np.int64)
        exists = None if vals is None else np.take(shapes.exists, at, axis=0).T
        scaled = self._scale_digit(cv["points"]) if "points" in cv and choices else None
        cons = np.ones((4, m), dtype=bool)
        if vals is not None:
            vm, vb = vals[0][rows], vals[1][rows]
            stated["values"] = vals[2][rows]
            for c in range(4):
                cons[c] = (c & vm) == vb
        score_ok = np.ones((4, m), dtype=bool)
        if scaled is not None and choices:
            d, is_score = scaled
            use = stated["points"] & is_score
            score_ok = ~use[None, :] | (digit == d[None, :])
        b_valid = b_none = bull_ids = None
        if bull is not None:
            stated["bull"] = bull.stated[rows]
            bull_ids = bull.ids[rows]
            b_none = bull.none[rows]
            bsum = claimed_bull_ok(tiles, bull_ids)  # (4, m): in the hand, a bull under c
            b_valid = (bsum & cons & score_ok).any(axis=0) & ~b_none

        def agree(a: Mapping[str, Any], sel: Any = slice(None)) -> dict[str, Mask]:
            out = equal_fields(cv, a, sel, _HAND_KEYS)
            if b_valid is not None and b_none is not None:
                out["bull"] = np.where(b_none[sel], ~np.asarray(a["has_bull"], bool), b_valid[sel])
            if exists is not None:  # values stated
                out["values"] = np.asarray((cons & exists & score_ok).any(axis=0))[sel]
            return out

        base_agree = agree(ans)
        kinds: dict[str, dict[str, Mask]] = {}
        if "points" in cv:  # a wrong score: one the hand can reach, or not
            wrong = stated["points"] & ~base_agree["points"]
            w = np.flatnonzero(wrong)
            d, is_score = self._scale_digit(cv["points"][w])
            reach = np.take(shapes.answers["reach"], at[w])
            legal = np.zeros(m, dtype=bool)
            legal[w] = is_score & ((reach >> np.clip(d, 0, 9)) & 1).astype(bool)
            kinds["points"] = {"suboptimal": legal, "illegal": wrong & ~legal}

        written: list[npt.NDArray[np.int64]] = []  # read when a variant asks for it

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            # the claimed bull, for the mistake of a wrong bull scored correctly
            said = (
                None
                if bull_ids is None
                else np.where(stated["bull"][sel, None], bull_ids[sel], PAD)
            )
            claims: dict[str, Any] = {"bull": said}
            if FIRST_WRITTEN in (getattr(variant, "mistake", None) or "").split("+"):
                if not written:
                    written.append(read_written())
                claims["written"] = written[0][sel]
            if len(sel) >= _GATHER:  # the hands' analysis: rows of every shape's
                remember_analysis(tiles[sel], lambda: shapes.analysis(at[sel]))
            return taungau_hand_answers(tiles[sel], self.rules, variant, claims)

        # the variants' scope, a shape of the hand whatever the rules (Shapes.interesting)
        interesting = shapes.interesting[at]

        def record(i: int) -> dict[str, Any]:
            return self._hand_record(i, tiles, at, ans, cv, stated, base_agree, kinds, bull_ids)

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False) -> Any:
            """Rows counted by the atom set of their records (the hand's shape: a [2:1],
            a [4:2], two tiles of a type; and a disagreeing row's wrong claims),
            vectorised but for a wrong bull or values (their records, one by one)."""
            if not lost:
                return tile_atom_counts(tiles[sel])
            wrong = {f: stated[f][sel] & ~base_agree[f][sel] for f in stated}
            said: dict[str, Any] = {f: cv[f][sel] for f in ("has_bull", "points") if f in cv}
            ours = {f: np.asarray(ans[f])[sel] for f in ("has_bull", "points")}
            got, done = hand_lost_counts(tiles[sel], wrong, said, ours, _TN_LABEL_NONE)
            return got + Counter(atoms(record(int(i))) for i in sel[~done].tolist())

        keys = None
        if key is not None:  # a row's key: its shape and written order (a bull, values: none)
            for f in ("bull", "values"):
                if f in stated:
                    key[stated[f]] = -1
            if self._first is None:
                self._first = FirstWritten(self.rules, self._shapes, _PERMS, self._orders)
            orders = self._orders()
            keys = Keys(key, orders.space, self._key_rows, orders.per, self._first)
        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            kinds,
            variant_agreement(answers, agree, stated),
            LostAtoms(record, atom_counts),
            interesting,
            keys,
            cv,
        )

    def _bull_why(self, bull: list[int], hand: list[int], points: int | None) -> str:
        """Why a claimed Tau Ngau bull is wrong: a tile not in the hand, no multiple of 10
        under any 3/6 choice, or a remainder that cannot score the claimed points."""
        from solver.core.tiles import TILE_NAMES, TYPE_OF_TILE
        from solver.games.taungau.hands import tile_value

        left = [TYPE_OF_TILE[t] for t in hand]
        for t in bull:
            if TYPE_OF_TILE[t] not in left:
                return f"{TILE_NAMES[t]} is not in the hand"
            left.remove(TYPE_OF_TILE[t])
        sums = sorted({sum(tile_value(t, c) for t in bull) for c in range(4)})
        if all(x % 10 for x in sums):
            return f"it totals {' or '.join(map(str, sums))}, not a multiple of 10"
        rest = [t for t in hand if TYPE_OF_TILE[t] in left]
        rest_sums = sorted({sum(tile_value(t, c) for t in rest) % 10 for c in range(4)})
        scores = sorted({self.rules.score(d) for d in rest_sums})
        claimed = "" if points is None else f", not the claimed {self._show_points(points)}"
        return f"a bull, but the other two score {' or '.join(map(str, scores))}{claimed}"

    def _show_points(self, p: int) -> str:
        return "no score (no bull)" if p == _TN_LABEL_NONE else str(p)

    def _reachable(self, mask: int) -> list[int]:
        """The scores a mask of reachable last digits stands for, sorted (kept per mask)."""
        got = self._scores.get(mask)
        if got is None:
            got = sorted(self.rules.score(d) for d in range(10) if mask >> d & 1)
            self._scores[mask] = got
        return list(got)

    def _plays(self) -> Any:
        """The best play of every shape (:func:`~solver.games.taungau.hands.best_plays`),
        which a record reads by its shape: made once per rule set's shapes."""
        from solver.games.taungau.hands import best_plays

        shapes = self._shapes()  # (one rule set's: its plays are kept with them)
        if "plays" not in shapes.made:
            every = shapes.analysis(np.arange(len(shapes.hands)))
            shapes.made["plays"] = best_plays(every, self.rules)
        return shapes.made["plays"]

    def _hand_record(
        self,
        i: int,
        tiles: npt.NDArray[np.uint8],
        at: npt.NDArray[np.int64],
        ans: Mapping[str, npt.NDArray[Any]],
        cv: Mapping[str, Any],
        stated: Mapping[str, npt.NDArray[np.bool_]],
        agree: Mapping[str, npt.NDArray[np.bool_]],
        kinds: Mapping[str, Mapping[str, npt.NDArray[np.bool_]]],
        bull_ids: npt.NDArray[np.uint8] | None,
    ) -> dict[str, Any]:
        from solver.core.tiles import TILE_NAMES
        from solver.games.taungau.hands import WILD_TILES

        def hand_names(ids: list[int]) -> list[str]:  # ids read from the tables: valid
            return [TILE_NAMES[t] for t in sorted(ids)]

        play = self._plays()  # the row's shape's: the same sorted tiles
        has = bool(ans["has_bull"][i])
        best = int(ans["points"][i])
        mask = int(play.bull_mask[at[i]])
        tl = [int(t) for t in tiles[i]]
        bull = [tl[p] for p in range(5) if mask >> p & 1]
        rest = [tl[p] for p in range(5) if not mask >> p & 1]
        values = (
            {
                TILE_NAMES[w]: 6 if int(play.values[at[i]]) >> b & 1 else 3
                for b, w in enumerate(WILD_TILES)
                if w in tl
            }
            if has
            else None
        )
        reach = self._reachable(int(ans["reach"][i]))
        correct = {
            "has_bull": has,
            "points": None if best == _TN_LABEL_NONE else best,
            "bull": hand_names(bull) if has else None,
            "values": values,
            "reachable": reach,
        }
        claimed: dict[str, Any] = {}
        for f in stated:
            if not stated[f][i]:
                continue
            if f == "bull" and bull_ids is not None:
                b = [int(t) for t in bull_ids[i] if t != PAD]
                claimed[f] = hand_names(b) if b else None
            elif f == "has_bull":
                claimed[f] = bool(cv[f][i])
            elif f == "points":
                p = int(cv[f][i])
                claimed[f] = None if p == _TN_LABEL_NONE else p
            else:
                claimed[f] = "stated"
        fields = differing(stated, agree, i)
        how = (
            (
                f"best {best}: bull {''.join(hand_names(bull))} + {''.join(hand_names(rest))}"
                + "".join(f" {k}={v}" for k, v in (values or {}).items())
                + f" (reachable: {', '.join(map(str, reach))})"
            )
            if has
            else "no three tiles make a multiple of 10 under any 3/6 choice"
        )
        said = []
        kind = None
        for f in fields:
            if f == "has_bull":
                said.append("no bull" if not claimed[f] else "a bull")
            elif f == "points":
                kind = next((k for k, mk in kinds["points"].items() if mk[i]), None)
                said.append(f"points {self._show_points(int(cv[f][i]))} ({kind})")
            elif f == "bull":
                b = [int(t) for t in bull_ids[i] if t != PAD] if bull_ids is not None else []
                pts = int(cv["points"][i]) if "points" in cv and stated["points"][i] else None
                said.append(
                    f"bull {''.join(claimed[f])} ({self._bull_why(b, tl, pts)})"
                    if claimed[f]
                    else "bull none"
                )
            elif f == "values":
                said.append("values (no bull reaches the claimed score with them)")
        rec = {
            "hand": hand_names(tl),
            "fields": fields,
            "claimed": claimed,
            "correct": correct,
            "reason": f"claimed {', '.join(said)}; {how}",
        }
        if kind:
            rec["kind"] = kind
        return rec

    # -- showdowns
    def _decision_last(self, rules: Any, tiles: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        from solver.games.taungau.diagnose import decision_spec
        from solver.games.taungau.play import evaluate_batch

        out = evaluate_batch(tiles, decision_spec(rules, self.rules), tables=self.tables)
        return np.asarray(out.get("decision_last", np.zeros(len(tiles), np.uint8)))

    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from solver.core.tiles import TYPE_NAMES
        from solver.games.taungau.diagnose import FIRST_WRITTEN, taungau_showdown_answers
        from solver.games.taungau.play import settle_batch

        sd = read_showdowns(cols, parse_tile_hands, (5,))
        player, banker = sd.player, sd.banker
        # the two hands come from one set: give the banker the other copy of a shared type
        tot = type_of_tile()
        pt, bt = tot[player.ids], tot[banker.ids]
        in_p = (bt[:, :, None] == pt[:, None, :]).sum(axis=2)
        own = np.zeros(bt.shape, dtype=np.int64)
        own[:, 1:] = bt[:, 1:] == bt[:, :-1]
        copy = in_p + own
        over = (copy >= TILE_COPIES[np.minimum(bt, 20)]).any(axis=1)
        over &= ~player.bad & ~banker.bad & player.stated & banker.stated
        ov_msgs = {}
        for i in np.flatnonzero(over)[:MAX_LISTED].tolist():
            j = int(np.flatnonzero(copy[i] >= TILE_COPIES[bt[i]])[0])
            t = int(bt[i, j])
            held = int((pt[i] == t).sum() + (bt[i] == t).sum())
            ov_msgs[i] = (
                f"tile {TYPE_NAMES[t]} is held {held} times in the two hands; "
                f"the set has {TILE_COPIES[t]}"
            )
        bad, messages = merge_bad(len(cols["player"]), [*sd.parts, (over, ov_msgs)])
        rows = np.flatnonzero(~bad)
        pl = player.ids[rows]
        bk = (TILE_FIRST[bt[rows]] + copy[rows]).astype(np.uint8)
        bk = np.sort(bk, axis=1)
        res = settle_batch(pl, bk, self.rules, banker_reveals=self.reveals, tables=self.tables)
        ans = {
            "winner": np.where(res["winner"] > 0, 0, np.where(res["winner"] < 0, 1, 2)),
            "net": np.asarray(res["net"], dtype=np.float64),
            "declines": res["declines"],
        }
        stated, cv = claim_rows(sd.claims, rows)
        agree = showdown_agree(cv)
        base_agree = agree(ans)

        written: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            orders = None
            if FIRST_WRITTEN in (getattr(variant, "mistake", None) or "").split("+"):
                if not written:  # the banker's tiles keep the places of its sorted ids
                    pw = written_positions(cols["player"], rows)
                    written.append((pw, written_positions(cols["banker"], rows)))
                orders = (written[0][0][sel], written[0][1][sel])
            return taungau_showdown_answers(
                pl[sel], bk[sel], self.rules, self.reveals, self._decision_last, variant, orders
            )

        def record(i: int) -> dict[str, Any]:
            from solver.core.tiles import hand_names

            w = int(ans["winner"][i])
            claimed, fields, said = showdown_claims(i, stated, cv, base_agree, WINNERS)
            hp = taungau_answers_one(pl[i], self.rules)
            hb = taungau_answers_one(bk[i], self.rules)
            dec = " and declines his bull" if ans["declines"][i] else ""
            net = ans["net"][i]
            reason = (
                f"claimed {said}; player "
                f"{hp}{dec}, banker {hb} ({self.rules.settlement}, banker reveals "
                f"{self.reveals}): {WINNERS[w]}{' wins' if w != 2 else ''}, player "
                f"net {net:+g}"
            )
            return {
                "player": hand_names(pl[i].tolist()),
                "banker": hand_names(bk[i].tolist()),
                "fields": fields,
                "claimed": claimed,
                "correct": {"winner": WINNERS[w], "net": net, "declines": bool(ans["declines"][i])},
                "reason": reason,
            }

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False) -> Any:
            """Rows counted by the atom set of their records (the player's hand's shape;
            ``lost``: the wrong claims too), vectorised."""
            extras = showdown_claim_codes(sel, stated, base_agree, cv, ans, WINNERS) if lost else []
            return tile_atom_counts(pl[sel], showdown=True, extras=extras)

        interesting = np.ones(len(rows), dtype=bool)
        return Checked(
            "showdown",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agreement(answers, agree, stated),
            LostAtoms(record, atom_counts),
            interesting,
        )


def written_positions(col: pa.Array, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each of ``rows`` (five-tile hands), the sorted position of each tile in the
    order written: ``out[i, j]`` is where the ``j``-th tile written stands among the
    hand's tiles sorted (the checker's ids). A hand not in the tile notation (a list of
    ids, an unusual spelling) counts as written sorted.

    >>> # sorted: [1:1] [2:2] [3:1] [4:2] [6:6]
    >>> written_positions(pa.array(["[6:6][1:1][2:2][4:2][3:1]"]), np.array([0])).tolist()
    [[4, 0, 1, 3, 2]]
    """
    from solver.kit.notation import Spans, tile_tokens
    from solver.kit.parse import joined_text

    out = np.tile(np.arange(5, dtype=np.int64), (len(rows), 1))
    text = joined_text(col)
    if text is None or not len(rows):
        return out
    types, size, ok = tile_tokens(Spans.of_arrow(pc.take(text, pa.array(rows))), (5,))
    good = np.flatnonzero(ok & (size == 5))
    t = types[good].astype(np.int64)
    out[good] = np.argsort(np.argsort(t, axis=1, kind="stable"), axis=1, kind="stable")
    return out


def taungau_answers_one(tiles: npt.NDArray[np.uint8], rules: Any) -> str:
    """``'scores 7'`` or ``'has no bull'`` for one sorted hand."""
    from solver.games.taungau.diagnose import taungau_hand_answers

    a = taungau_hand_answers(tiles[None, :], rules)
    return "has no bull" if not a["has_bull"][0] else f"scores {int(a['points'][0])}"


CHECKER = TauNgauChecker
"""The checker the registry hands to ``bull verify``."""
