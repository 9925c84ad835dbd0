"""Checking Niu Niu claims for ``bull verify``.

Hand rows: ``has_bull``, ``points``, ``category`` and ``bull`` (three cards that make a
multiple of 10 and reach the claimed points; any valid bull is right, RULES §8) are
compared with the table (presets) or the evaluator (rule files). Showdown rows:
``winner`` and ``net``, with the row's ``bet`` and ``commission`` if stated. Each
disagreement gets the correct answer and a reason naming the rule (``claimed no_bull;
A+2+7 = 10 is a bull, 4+9 = 13, points 3``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import BullError
from solver.games.niuniu.verify_keys import KeyAnswers, Shapes, special_ish
from solver.games.niuniu.verify_reasons import WINNERS, hand_record, showdown_record
from solver.games.niuniu.verify_table import Ranks, bull_masks, packed_answers
from solver.kit.check import (
    Checked,
    Gathered,
    Keys,
    Mask,
    claim_parts,
    claim_rows,
    empty_messages,
    equal_fields,
    merge_bad,
    one_deck,
    parsed,
    read_claims,
    read_showdowns,
    showdown_agree,
    variant_agreement,
)
from solver.kit.parse import PAD, parse_bool, parse_card_hands, parse_float, parse_int, parse_label
from solver.kit.read import MAX_LISTED

__all__ = ["CHECKER", "NiuNiuChecker"]

_HAND_KEYS = {"has_bull": "has_bull", "points": "points", "category": "category"}
"""Hand claims right when equal to our answer (the bull is checked as a bull)."""


def _hand_shapes(
    sel: npt.NDArray[np.int64],
    lost: bool,
    cards: npt.NDArray[np.uint8],
    ans: Mapping[str, Any],
    cv: Mapping[str, npt.NDArray[Any]],
    stated: Mapping[str, Mask],
    agree: Mapping[str, Mask],
    record: Callable[[int], dict[str, Any]],
    names: Sequence[str] = (),
    weights: npt.NDArray[np.int64] | None = None,
) -> Any:
    """Hand rows ``sel`` counted by their records' atom sets, vectorised (``lost``: rows
    with wrong claims; a bull claimed for a hand without one: from its record);
    ``weights``: agreeing rows, row ``sel[i]`` counted ``weights[i]`` times."""
    from solver.games.niuniu.rules import LABELS
    from solver.kit.learn import Extra, atoms, card_atom_counts, claim_codes

    labels = np.array(names or LABELS)
    cat = np.asarray(ans["category"])[sel].astype(np.int64)
    wrong = {f: stated[f][sel] & ~agree[f][sel] for f in stated} if lost else {}
    cat_wrong = wrong.get("category", np.zeros(len(sel), dtype=bool))
    extras: list[Extra] = [
        (np.where(cat_wrong, 0, cat + 1), [None, *map("category {}".format, labels)])
    ]
    keep, out = np.ones(len(sel), dtype=bool), Counter[frozenset[str]]()
    if lost:
        for f, kind in (("has_bull", bool), ("points", np.int64)):
            if f in wrong:
                got, want = cv[f][sel].astype(kind), np.asarray(ans[f])[sel].astype(kind)
                extras.append(claim_codes(f, wrong[f], got, want))
        if "category" in wrong:
            got = labels[np.clip(cv["category"][sel], 0, len(labels) - 1)]
            extras.append(claim_codes("category", cat_wrong, got, labels[cat]))
        if "bull" in wrong:
            keep = ~(wrong["bull"] & ~np.asarray(ans["has_bull"], dtype=bool)[sel])
            extras.append((wrong["bull"].astype(np.int64), [None, "bull wrong"]))
            out = Counter(atoms(record(int(i))) for i in sel[~keep].tolist())
    if weights is not None and not lost:
        return card_atom_counts(cards[sel], extras=extras, weights=weights)
    return card_atom_counts(cards[sel[keep]], extras=[(c[keep], n) for c, n in extras]) + out


class _Records:
    """A row's verify record (``records(i)``), and ``atom_counts(rows)``: rows counted
    by the atom set of their records, vectorised, for the pattern learner (exact over
    every agreeing row without a record per row; see :mod:`solver.kit.learn`)."""

    def __init__(
        self,
        record: Callable[[int], dict[str, Any]],
        atom_counts: Callable[..., Any],
    ) -> None:
        self.record = record
        self.atom_counts = atom_counts

    def __call__(self, i: int) -> dict[str, Any]:
        return self.record(i)

    def lost_counts(self, rows: npt.NDArray[np.int64]) -> Any:
        """Disagreeing rows counted by atom set, their wrong claims included."""
        return self.atom_counts(rows, True)

    def weighted_atom_counts(
        self, rows: npt.NDArray[np.int64], weight: npt.NDArray[np.int64]
    ) -> Any:
        """Agreeing rows counted by atom set, row ``rows[i]`` counted ``weight[i]`` times."""
        return self.atom_counts(rows, False, weight)


_FIRST_AT = np.array([[p, *(q for q in range(5) if q != p)] for p in range(5)])
"""Per place ``p`` among the sorted cards: the order written that puts card ``p`` first,
the others sorted."""


def _first_at(srt: npt.NDArray[np.uint8], first: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """Sorted hands (n, 5) written with card ``first[i]`` first, the others sorted:
    ``srt`` in the order :data:`_FIRST_AT` gives, a column at a time.

    >>> _first_at(np.array([[1, 2, 3, 4, 5]] * 3, dtype=np.uint8), np.array([0, 2, 4])).tolist()
    [[1, 2, 3, 4, 5], [3, 1, 2, 4, 5], [5, 1, 2, 3, 4]]
    """
    out = np.empty_like(srt)
    out[:, 0] = srt[np.arange(len(srt)), first]
    for j in range(1, srt.shape[1]):  # before the first card's place: one column on
        out[:, j] = np.where(first >= j, srt[:, j - 1], srt[:, j])
    return out


def _nn_labels() -> dict[str, int]:
    from solver.games.niuniu.rules import Category

    labels = {c.label: int(c) for c in Category}
    labels |= {
        "niu_0": 0,
        "no_niu": 0,
        "nobull": 0,
        "none": 0,
        "niu_10": 10,
        "niuniu": 10,
        "bull_bull": 10,
    }
    labels |= {f"niu{k}": k for k in range(1, 10)} | {f"bull_{k}": k for k in range(1, 10)}
    return labels


class NiuNiuChecker:
    """Checks Niu Niu claims: table lookups for presets, the evaluator for rule files."""

    game = "niuniu"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("has_bull", "points", "category", "bull"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from solver.games.niuniu.diagnose import niuniu_catalogue
        from solver.games.niuniu.rules import load_rules

        self.rules = load_rules(rules)
        self.options = dict(options)
        self.bet = self.rules.bet(self.options.get("bet"))
        comm = self.options.get("commission")
        if comm is not None and not 0 <= comm < 1:
            raise BullError(f"commission {comm!r} must be a fraction in [0, 1), e.g. 0.05")
        self.commission = self.rules.commission if comm is None else float(comm)
        self.tables = tables
        self._cols: dict[str, npt.NDArray[Any]] | None = None
        self._loaded: Any = None  # the rule set's table, once opened
        self._masks: npt.NDArray[Any] | None = None
        self._key_answers: KeyAnswers | None = None
        self._by_shape: Shapes | None = None
        self.labels = _nn_labels()
        for code, name in enumerate(self.rules.labels):  # a rule file's own categories
            if name:
                self.labels[name] = code
        self.variants = niuniu_catalogue(self.rules, "all", bet=self.bet)

    def prepare(self) -> None:
        """Load what the worker threads share (the table columns) before they start."""
        self._table()

    # -- answers
    def _table(self) -> dict[str, npt.NDArray[Any]]:
        if self._cols is None:
            from solver.games.niuniu.source import rules_table

            t = rules_table(self.rules, self.tables)
            self._loaded = t
            self._cols = {"packed": packed_answers(t, f"{self.rules.name}_category")}
        return self._cols

    def _bull_masks(self) -> npt.NDArray[Any]:
        """The table's ``bull_mask`` column, read when a record first needs it."""
        self._table()
        if self._masks is None:
            self._masks = bull_masks(self._loaded)
        return self._masks

    def answers(
        self,
        cards: npt.NDArray[np.uint8],
        srt: npt.NDArray[np.uint8] | None = None,
        ranks: npt.NDArray[np.integer] | None = None,
    ) -> dict[str, npt.NDArray[Any]]:
        """Our ``has_bull``, ``points`` and ``category`` for hands (n, 5) in input order,
        with the ``sorted`` cards, their ``rank`` in the table and the ``bull_mask``
        (read on demand); ``ranks``: the ranks, if known. A preset's answers are read
        by the hands' ``shape`` (given too), and a rank worked out when it is read."""
        from solver.core.indexing import batch_lookup, sort_columns

        if srt is None:
            srt = np.stack(sort_columns([cards[:, i] for i in range(5)]), axis=1)
        cols = self._table()
        by = self._shapes() if ranks is None and not self.rules.categories else None
        shape = None
        rank: npt.NDArray[np.integer] | Sequence[int] | None = ranks
        if by is not None:  # a preset's answers are its hand's shape's (verify_keys)
            shape = by.shape_of(None, srt)
            packed = by.table()["packed"][shape]
            rank = Ranks(srt, bool(self.rules.shoe))
        elif ranks is not None:
            packed = cols["packed"][ranks]
        elif self.rules.shoe:  # a hand may repeat a card: the dense multiset rank
            from solver.core.indexing import multiset_rank_array

            ranks = multiset_rank_array(srt, presorted=True)
            packed = cols["packed"][ranks]
        else:
            packed, ranks = batch_lookup(
                srt, [cols["packed"]], check=False, with_rank=True, presorted=True
            )
        if rank is None:
            rank = ranks
        assert rank is not None
        out: dict[str, Any] = {
            "has_bull": (packed & 1).astype(bool),
            "points": (packed >> 1) & 15,
            "category": packed >> 5,
        }
        out["bull_mask"] = Gathered(self._bull_masks, rank)
        out["sorted"] = srt
        out["rank"] = rank
        if shape is not None:
            out["shape"] = shape
        return out

    def _deck(self, hands: Any, kind: str) -> tuple[Mask, dict[int, str]]:
        """Rows holding a card the rule set's deck lacks (a J/Q/K under no_faces)."""
        from solver.games.niuniu.source import deck_problems

        if self.rules.deck_size >= 52:  # every card is in the deck
            return np.zeros(len(hands.ids), dtype=bool), {}
        ok = hands.stated & ~hands.bad
        bad, messages = deck_problems(self.rules, np.where(ok[:, None], hands.ids, 0))
        return bad & ok, {i: f"{kind}: {m}" for i, m in messages.items()}

    def _bull_claims(
        self, cards: npt.NDArray[np.uint8], bull: npt.NDArray[np.uint8]
    ) -> tuple[Mask, npt.NDArray[np.int64]]:
        """Whether each claimed bull (three cards) is a bull under the rule set, and the
        points it leaves (the other two cards' last digit, 0 as 10)."""
        b = bull.astype(np.int64)
        vals = np.minimum((b >> 2) + 1, 10).sum(axis=1)
        valid = vals % 10 == 0
        if self.rules.bull_from_three_of_a_kind:
            r = b >> 2
            valid |= (r[:, 0] == r[:, 1]) & (r[:, 1] == r[:, 2])
        total = np.minimum((cards.astype(np.int64) >> 2) + 1, 10).sum(axis=1)
        return valid, (total - vals - 1) % 10 + 1

    # -- hand rows
    @property
    def ahead(self) -> dict[str, Callable[[pa.Array], Any]]:
        """The parses of a hand row's columns (:meth:`check_hands`), by field."""
        decks = self.rules.decks
        return {
            "hand": lambda a: parse_card_hands(a, (5,), copies=decks),
            "has_bull": lambda a: parse_bool(a, "has_bull"),
            "points": lambda a: parse_int(a, "points", none_value=0),
            "category": lambda a: parse_label(a, "category", self.labels),
            "bull": lambda a: parse_card_hands(a, (3,), "bull", allow_none=True, copies=decks),
        }

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        ahead = self.ahead
        hands = parsed(cols, "hand", ahead["hand"])
        claims = read_claims(cols, {f: ahead[f] for f in ("has_bull", "points", "category")})
        parts = [
            (hands.bad | ~hands.stated, empty_messages(hands, "hand")),
            self._deck(hands, "hand"),
            *claim_parts(claims),
        ]
        bull = None
        if "bull" in cols:
            bull = parsed(cols, "bull", ahead["bull"])
            parts.append((bull.bad, bull.messages))
        bad, messages = merge_bad(len(cols["hand"]), parts)
        rows = np.flatnonzero(~bad)
        every = len(rows) == len(bad)  # no row malformed: the arrays as they are
        cards = hands.ids if every else hands.ids[rows]
        stated, cv = claim_rows(claims, rows)
        claimed_bull = None
        if bull is not None:
            stated["bull"] = bull.stated[rows]
            claimed_bull = (bull.ids[rows], bull.none[rows])
        srt = hands.sorted if every or hands.sorted is None else hands.sorted[rows]
        return self._hands(rows, bad, messages, cards, srt, stated, cv, claimed_bull)

    def _key_rows(
        self,
        keys: npt.NDArray[np.int64],
        fields: Sequence[str],
        claims: Mapping[str, npt.NDArray[Any]] | None = None,
    ) -> Checked:
        """One hand row per key (a hand of its shape, written with a card at its place
        first: see :class:`~solver.games.niuniu.verify_keys.Shapes`), claiming on
        ``fields`` the values ``claims`` (default: our answers)."""
        by = self._shapes()
        shape, first = keys // 5, keys % 5
        rank, srt = by.rank_of(shape), by.sorted()[shape]
        n = len(keys)
        at = np.arange(n)
        cards = _first_at(srt, first)
        ans = self.answers(cards, srt, rank)
        types = {"has_bull": bool, "points": np.int64, "category": np.int64}
        said = ans if claims is None else claims
        cv = {f: np.asarray(said[f]).astype(types[f]) for f in fields}
        stated = {f: np.ones(n, dtype=bool) for f in fields}
        no = np.zeros(n, dtype=bool)
        return self._hands(at, no, {}, cards, srt, stated, cv, None, ans, virtual=True)

    def _key_atoms(
        self, keys: npt.NDArray[np.int64], fields: Sequence[str], weight: npt.NDArray[np.int64]
    ) -> Any:
        """The atom counts of :meth:`_key_rows` of ``keys`` (agreeing rows: the hand's
        shape and our category, whatever the fields and the order written), row ``i``
        counted ``weight[i]`` times, without the group."""
        from solver.games.niuniu.rules import LABELS
        from solver.kit.learn import card_atom_counts

        by = self._shapes()
        shape = keys // 5
        cat = (by.table()["packed"][shape] >> 5).astype(np.int64)
        names = [None, *map("category {}".format, np.array(self.rules.labels or LABELS))]
        srt = by.sorted()[shape]
        return card_atom_counts(srt, extras=[(cat + 1, names)], weights=weight)

    def _hands(
        self,
        rows: npt.NDArray[np.int64],
        bad: Mask,
        messages: dict[int, str],
        cards: npt.NDArray[np.uint8],
        srt: npt.NDArray[np.uint8] | None,
        stated: dict[str, Mask],
        cv: dict[str, npt.NDArray[Any]],
        claimed_bull: tuple[npt.NDArray[np.uint8], Mask] | None,
        ans: dict[str, Any] | None = None,
        virtual: bool = False,
    ) -> Checked:
        """The group of well-formed hand rows ``rows`` (``cards`` in the order written),
        checked: their claims ``cv`` where ``stated`` (a claimed bull: its cards, and
        which rows claim none)."""
        from solver.games.niuniu.variant_answers import niuniu_hand_answers

        if ans is None:
            ans = self.answers(cards, srt)
        bull_ids = bull_valid = other_valid = bull_none = None
        bull_reach = np.zeros(len(rows), dtype=np.int64)
        if claimed_bull is not None:
            bull_ids, bull_none = claimed_bull
            # every bull card in the hand, as often as the bull holds it (a shoe repeats)
            in_bull = (bull_ids[:, :, None] == bull_ids[:, None, :]).sum(axis=2)
            held = (bull_ids[:, :, None] == cards[:, None, :]).sum(axis=2)
            in_hand = (in_bull <= held).all(axis=1)
            bull_valid, bull_reach = self._bull_claims(cards, bull_ids)
            bull_valid &= in_hand & ~bull_none
            # the claimed bull under the other bull rule (a variant's): with or without
            # three of a kind
            r = bull_ids.astype(np.int64) >> 2
            trips = (r[:, 0] == r[:, 1]) & (r[:, 1] == r[:, 2])
            by_sum = np.minimum(r + 1, 10).sum(axis=1) % 10 == 0
            other_valid = by_sum if self.rules.bull_from_three_of_a_kind else by_sum | trips
            other_valid &= in_hand & ~bull_none

        def agree(a: Mapping[str, Any], sel: Any = slice(None)) -> dict[str, Mask]:
            out = equal_fields(cv, a, sel, _HAND_KEYS)
            if (
                bull_ids is not None
                and bull_valid is not None
                and other_valid is not None
                and bull_none is not None
            ):
                forb = a.get("forbidden")
                # the bull must reach the answer's points (Niu Niu as 10 or as 0)
                pts = np.asarray(a["points"])
                rule = a.get("bull_from_three_of_a_kind", self.rules.bull_from_three_of_a_kind)
                valid = bull_valid if rule == self.rules.bull_from_three_of_a_kind else other_valid
                ok = valid[sel] & (bull_reach[sel] % 10 == pts % 10)
                ok &= np.asarray(a["has_bull"], bool)
                if forb is not None:
                    ok &= ~(bull_ids[sel] == np.asarray(forb)[:, None]).any(axis=1)
                if "points" in cv:  # a valid bull reaching the claimed score (RULES §8)
                    ok &= ~stated["points"][sel] | (cv["points"][sel] == a["points"])
                out["bull"] = np.where(bull_none[sel], ~np.asarray(a["has_bull"], bool), ok)
            return out

        base_agree = agree(ans)

        srt = ans["sorted"]

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            every = len(sel) == len(cards) and bool((sel == np.arange(len(sel))).all())
            known = None
            if variant.rules is None:  # our rules: our answers, from the table
                names = ("has_bull", "points", "category", "sorted")
                known = {k: ans[k] if every else ans[k][sel] for k in names}
            return niuniu_hand_answers(cards if every else cards[sel], self.rules, variant, known)

        by = None if virtual else self._shapes()
        shape = None if by is None else ans.get("shape")
        if by is not None and shape is None:
            shape = by.shape_of(np.asarray(ans["rank"]), srt)
        if by is not None and shape is not None and by.shaped:
            interesting = by.special[shape]
        else:
            interesting = special_ish(srt)

        def record(i: int) -> dict[str, Any]:
            return hand_record(self.rules, i, ans, cv, stated, base_agree, bull_ids)

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False, weights: Any = None) -> Any:
            return _hand_shapes(
                sel, lost, cards, ans, cv, stated, base_agree, record, self.rules.labels, weights
            )

        # a row's key: its hand's shape and the place of the first card written (what
        # the one mistake that reads the written order, the bull search that skips the
        # first card, depends on); a claimed bull is the row's own
        keys = None
        if by is not None and shape is not None:
            key = by.key(shape, srt, cards[:, 0])
            if bull_ids is not None:
                key[stated["bull"]] = -1
            said = self._key_answers
            if said is None:
                said = self._key_answers = KeyAnswers(self.rules, by.sorted, by.table)
            keys = Keys(key, by.space, self._key_rows, 5, said, self._key_atoms)
        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agreement(answers, agree, stated),
            _Records(record, atom_counts),
            interesting,
            keys,
            cv,
        )

    def _shapes(self) -> Shapes:
        """The keys' shapes (:class:`~solver.games.niuniu.verify_keys.Shapes`): a
        preset's hands by shape; for the rule language (a category may read any card)
        each hand its own."""
        if self._by_shape is None:
            shaped = not self.rules.categories
            packed = self._table()["packed"]
            r = self.rules
            self._by_shape = Shapes(bool(r.shoe), packed, shaped, r.deck_size, r.decks)
        return self._by_shape

    # -- showdown rows
    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from solver.games.niuniu.showdown_group import ShowdownGroup

        n = len(cols["player"])
        copies = self.rules.decks
        sd = read_showdowns(cols, lambda a, z, k: parse_card_hands(a, z, k, copies=copies), (5,))
        parts = sd.parts
        bet = np.full(n, self.rules.bets.index(self.bet), dtype=np.int64)
        comm = np.full(n, self.commission, dtype=np.float64)
        if "bet" in cols:
            pb = parse_label(cols["bet"], "bet", {b: i for i, b in enumerate(self.rules.bets)})
            parts.append((pb.bad, pb.messages))
            bet = np.where(pb.stated, pb.value, bet)
        if "commission" in cols:
            pcm = parse_float(cols["commission"], "commission")
            out_of_range = pcm.stated & ((pcm.value < 0) | (pcm.value >= 1))
            parts.append(
                (
                    pcm.bad | out_of_range,
                    {
                        i: f"commission {pcm.value[i]:g}: expected a fraction in [0, 1)"
                        for i in np.flatnonzero(out_of_range)[:MAX_LISTED].tolist()
                    }
                    | pcm.messages,
                )
            )
            comm = np.where(pcm.stated & ~out_of_range, pcm.value, comm)
        parts.append(one_deck(sd.player, sd.banker, PAD, copies))
        parts.append(self._deck(sd.player, "player"))
        parts.append(self._deck(sd.banker, "banker"))
        bad, messages = merge_bad(n, parts)
        for i in np.flatnonzero(bad & ~sd.player.stated)[:MAX_LISTED].tolist():
            messages[i] = "player: empty"
        both = bad & sd.player.stated & ~sd.banker.stated
        for i in np.flatnonzero(both)[:MAX_LISTED].tolist():
            messages[i] = "banker: empty"
        rows = np.flatnonzero(~bad)
        pl, bk = sd.player.ids[rows], sd.banker.ids[rows]
        bet, comm = bet[rows], comm[rows]
        group = ShowdownGroup(pl, bk, bet, comm, self.rules)
        ans = group(None)
        stated, cv = claim_rows(sd.claims, rows)
        agree = showdown_agree(cv)
        base_agree = agree(ans)

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            return group(variant, sel)

        interesting = ans["player_category"] == ans["banker_category"]
        interesting |= (ans["player_category"] > 10) | (ans["banker_category"] > 10)

        def record(i: int) -> dict[str, Any]:
            return showdown_record(self.rules, i, pl, bk, bet, comm, ans, cv, stated, base_agree)

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False) -> Any:
            from solver.kit.learn import card_atom_counts, showdown_claim_codes

            extras = showdown_claim_codes(sel, stated, base_agree, cv, ans, WINNERS) if lost else []
            return card_atom_counts(pl[sel], showdown=True, extras=extras)

        return Checked(
            "showdown",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agreement(answers, agree, stated),
            _Records(record, atom_counts),
            interesting,
        )


CHECKER = NiuNiuChecker
"""The checker the registry hands to ``bull verify``."""
