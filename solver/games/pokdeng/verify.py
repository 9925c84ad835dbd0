"""Checking Pok Deng claims for ``bull verify``.

Hand rows (two or three cards): ``points``, ``category`` (the hand type: Pok, Tong,
Sam Lueang, straights when the rules count them, Normal) and ``deng``. Showdown rows
(``player`` against ``dealer``, also accepted as ``banker``): ``winner`` and ``net``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from solver.core.errors import BullError
from solver.kit.check import (
    Checked,
    Keys,
    LostAtoms,
    Mask,
    claim_parts,
    claim_rows,
    differing,
    empty_messages,
    equal_fields,
    merge_bad,
    one_deck,
    parsed,
    read_claims,
    read_showdowns,
    showdown_agree,
    showdown_claims,
    variant_agreement,
)
from solver.kit.parse import PAD, parse_card_hands, parse_int, parse_label

__all__ = ["CHECKER", "PokDengChecker"]

_HAND_KEYS = {"points": "points", "category": "type", "deng": "deng"}
"""Hand claims (all right when equal to our answer) → the key of our answer."""


def _pd_labels() -> dict[str, int]:
    from solver.games.pokdeng.rules import HandType

    labels = {t.label: int(t) for t in HandType}
    labels |= {
        "riang": int(HandType.STRAIGHT),
        "straightflush": int(HandType.STRAIGHT_FLUSH),
        "samlueang": int(HandType.SAM_LUEANG),
        "sam_leung": int(HandType.SAM_LUEANG),
        "three_of_a_kind": int(HandType.TONG),
        "pok_8": int(HandType.POK),
        "pok_9": int(HandType.POK),
        "pok8": int(HandType.POK),
        "pok9": int(HandType.POK),
    }
    return labels


_PD_WINNERS = ("player", "dealer", "push")


class PokDengChecker:
    """Checks Pok Deng claims: points, type, deng of 2- and 3-card hands; settlements."""

    game = "pokdeng"
    fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "hand": ("points", "category", "deng"),
        "showdown": ("winner", "net"),
    }

    def __init__(self, rules: Any, options: Mapping[str, Any], tables: str | None) -> None:
        from solver.games.pokdeng.diagnose import pokdeng_catalogue
        from solver.games.pokdeng.rules import load_rules

        for key in ("bet", "commission", "banker_reveals"):
            if options.get(key) is not None:
                raise BullError(f"--{key.replace('_', '-')} does not apply to pokdeng")
        self.rules = load_rules(rules)
        self.tables = tables
        self.labels = _pd_labels()
        self.variants = pokdeng_catalogue(self.rules, "all")
        self._by_key: dict[str, npt.NDArray[Any]] | None = None

    def prepare(self) -> None:
        """Nothing to preload: hands are classified directly."""

    @property
    def ahead(self) -> dict[str, Callable[[pa.Array], Any]]:
        """The parses of a hand row's columns (:meth:`check_hands`), by field."""
        decks = self.rules.decks
        return {
            "hand": lambda a: parse_card_hands(a, (2, 3), copies=decks),
            "points": lambda a: parse_int(a, "points"),
            "category": lambda a: parse_label(a, "type", self.labels),
            "deng": lambda a: parse_int(a, "deng"),
        }

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked:
        ahead = self.ahead
        hands = parsed(cols, "hand", ahead["hand"])
        claims = read_claims(cols, {f: ahead[f] for f in ("points", "category", "deng")})
        parts = [(hands.bad | ~hands.stated, empty_messages(hands, "hand")), *claim_parts(claims)]
        bad, messages = merge_bad(len(cols["hand"]), parts)
        rows = np.flatnonzero(~bad)
        stated, cv = claim_rows(claims, rows)
        srt = hands.sorted
        if len(rows) == len(bad):  # no row malformed: the arrays as they are
            return self._hands(rows, bad, messages, hands.ids, hands.size, stated, cv, srt=srt)
        some = None if srt is None else srt[rows]
        return self._hands(
            rows, bad, messages, hands.ids[rows], hands.size[rows], stated, cv, srt=some
        )

    def _key_rows(
        self,
        keys: npt.NDArray[np.int64],
        fields: Sequence[str],
        claims: Mapping[str, npt.NDArray[Any]] | None = None,
    ) -> Checked:
        """One hand row per key (a hand's cards sorted, :data:`PAD` as 52, in base 53),
        claiming on ``fields`` the values ``claims`` (default: our answers)."""
        from solver.games.pokdeng.diagnose import pokdeng_hand_answers

        digits = np.stack([keys // 53**2, keys // 53 % 53, keys % 53], axis=1)
        cards = np.where(digits == 52, PAD, digits).astype(np.uint8)
        size = np.where(digits[:, 2] == 52, 2, 3).astype(np.int8)
        n = len(keys)
        ans = pokdeng_hand_answers(cards, size, self.rules)
        stated = {f: np.ones(n, dtype=bool) for f in fields}
        if claims is None:
            cv = {f: np.asarray(ans[_HAND_KEYS[f]]).astype(np.int64) for f in fields}
        else:
            cv = {f: np.asarray(claims[f]).astype(np.int64) for f in fields}
        no = np.zeros(n, dtype=bool)
        return self._hands(np.arange(n), no, {}, cards, size, stated, cv, ans, virtual=True)

    def _answers(self) -> dict[str, npt.NDArray[Any]]:
        """Our answers for every hand, by its key (its cards sorted, :data:`PAD` as 52,
        in base 53): made once, for the two- and three-card hands of the deck or shoe."""
        if self._by_key is None:
            from solver.core.indexing import all_multisets, all_subsets
            from solver.games.pokdeng.diagnose import pokdeng_hand_answers

            every = all_multisets if self.rules.decks > 1 else all_subsets
            two, three = every(52, 2), every(52, 3)
            hands = np.full((len(two) + len(three), 3), PAD, dtype=np.uint8)
            hands[: len(two), :2], hands[len(two) :] = two, three
            size = np.array([2] * len(two) + [3] * len(three), dtype=np.int8)
            ans = pokdeng_hand_answers(hands, size, self.rules)
            c = np.minimum(hands, 52).astype(np.int64)
            at = (c[:, 0] * 53 + c[:, 1]) * 53 + c[:, 2]
            by_key = {}
            for k, v in ans.items():  # small numbers: a byte each (a take reads less)
                if not (np.iinfo(np.int8).min <= np.min(v) and np.max(v) <= np.iinfo(np.int8).max):
                    raise AssertionError(f"pokdeng answer {k} out of a byte's range")
                col = np.zeros(53**3, dtype=np.int8)
                col[at] = v
                by_key[k] = col
            self._by_key = by_key  # whole: the checker's thread and the scorer's share it
        return self._by_key

    def _hands(
        self,
        rows: npt.NDArray[np.int64],
        bad: Mask,
        messages: dict[int, str],
        cards: npt.NDArray[np.uint8],
        size: npt.NDArray[np.int8],
        stated: dict[str, Mask],
        cv: dict[str, npt.NDArray[Any]],
        ans: Mapping[str, npt.NDArray[Any]] | None = None,
        virtual: bool = False,
        srt: npt.NDArray[np.uint8] | None = None,
    ) -> Checked:
        """The group of well-formed hand rows ``rows`` (``cards`` as written, ``size``
        of each; ``srt``: each row's cards sorted, if the parse made them), checked: their
        claims ``cv`` where ``stated``."""
        from solver.games.pokdeng.diagnose import pokdeng_hand_answers
        from solver.games.pokdeng.rules import Kind

        key = None
        if ans is None:  # by the hand's key (its cards sorted), from a table made once
            from solver.core.indexing import sort_columns

            ordered = sort_columns(list(cards.T)) if srt is None else list(srt.T)
            c0, c1, c2 = (np.minimum(c, 52).astype(np.int64) for c in ordered)
            key = (c0 * 53 + c1) * 53 + c2
            ans = {k: np.take(v, key, axis=0) for k, v in self._answers().items()}

        def agree(a: Mapping[str, Any], sel: Any = slice(None)) -> dict[str, Mask]:
            return equal_fields(cv, a, sel, _HAND_KEYS)

        base_agree = agree(ans)

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            return pokdeng_hand_answers(cards[sel], size[sel], self.rules, variant)

        # the hand variants' scope: a shape of the hand, whatever the rules (three cards,
        # two of one suit or rank, a Pok); every other hand is Normal, deng 1 under all
        interesting = (size == 3) | (ans["kind"] != Kind.PLAIN) | (ans["type"] > 0)

        def record(i: int) -> dict[str, Any]:
            from solver.core.cards import hand_names
            from solver.games.pokdeng.hands import HandClass
            from solver.games.pokdeng.rules import HandType

            hc = HandClass(
                HandType(int(ans["type"][i])), int(ans["points"][i]), int(ans["deng"][i])
            )
            claimed: dict[str, Any] = {}
            for f in stated:
                if stated[f][i]:
                    v = int(cv[f][i])
                    claimed[f] = HandType(v).label if f == "category" else v
            fields = differing(stated, base_agree, i)
            said = ", ".join(f"{'type' if f == 'category' else f} {claimed[f]}" for f in fields)
            names = [c for c in cards[i].tolist() if c != PAD]
            return {
                "hand": hand_names(names),
                "fields": fields,
                "claimed": claimed,
                "correct": {"points": hc.points, "category": hc.type.label, "deng": hc.deng},
                "reason": f"claimed {said}; {' '.join(hand_names(names))} is {hc} "
                f"under {self.rules.name}",
            }

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False) -> Any:
            """Rows counted by the atom set of their records, vectorised (``lost``: rows
            with wrong claims, the claims' atoms included)."""
            from solver.games.pokdeng.rules import HandType
            from solver.kit.learn import Extra, card_atom_counts, claim_codes

            labels = np.array([HandType(t).label for t in range(len(HandType))])
            kind = np.asarray(ans["type"], dtype=np.int64)[sel]
            wrong = {f: stated[f][sel] & ~base_agree[f][sel] for f in stated} if lost else {}
            type_wrong = wrong.get("category", np.zeros(len(sel), dtype=bool))
            names = [None, *(f"category {label}" for label in labels)]
            extras: list[Extra] = [(np.where(type_wrong, 0, kind + 1), names)]
            for f in ("points", "category", "deng"):
                if f in wrong:
                    got, want = cv[f][sel].astype(np.int64), np.asarray(ans[_HAND_KEYS[f]])[sel]
                    if f == "category":
                        got, want = labels[np.clip(got, 0, len(labels) - 1)], labels[kind]
                    extras.append(claim_codes(f, wrong[f], got, want.astype(got.dtype)))
            return card_atom_counts(cards[sel], extras=extras)

        keys = None
        if key is not None and not virtual:  # a row's key: its cards sorted, PAD as 52
            keys = Keys(key, 53**3, self._key_rows)
        return Checked(
            "hand",
            rows,
            np.flatnonzero(bad),
            messages,
            stated,
            base_agree,
            {},
            variant_agreement(answers, agree, stated),
            LostAtoms(record, atom_counts),
            interesting,
            keys,
            cv,
        )

    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked:
        from solver.games.pokdeng.diagnose import pokdeng_showdown_answers

        n = self.rules.decks  # a shoe: up to n copies of a card in the two hands
        parse = functools.partial(parse_card_hands, copies=n)
        sd = read_showdowns(cols, parse, (2, 3), "dealer")
        bad, messages = merge_bad(
            len(cols["player"]), [*sd.parts, one_deck(sd.player, sd.banker, PAD, n)]
        )
        rows = np.flatnonzero(~bad)
        player, dealer = sd.player, sd.banker
        pl, ps = player.ids[rows], player.size[rows]
        dl, ds = dealer.ids[rows], dealer.size[rows]
        ans = pokdeng_showdown_answers(pl, ps, dl, ds, self.rules)
        stated, cv = claim_rows(sd.claims, rows)
        agree = showdown_agree(cv)
        base_agree = agree(ans)

        def answers(variant: Any, sel: npt.NDArray[np.int64]) -> Mapping[str, Any]:
            return pokdeng_showdown_answers(pl[sel], ps[sel], dl[sel], ds[sel], self.rules, variant)

        # every showdown row: each variant changes some equal-type or special settlement
        interesting = np.ones(len(rows), dtype=bool)

        def atom_counts(sel: npt.NDArray[np.int64], lost: bool = False) -> Any:
            """Rows counted by the atom set of their records (the player's hand's shape;
            ``lost``: the wrong claims too), vectorised."""
            from solver.kit.learn import card_atom_counts, showdown_claim_codes

            extras = (
                showdown_claim_codes(sel, stated, base_agree, cv, ans, _PD_WINNERS, True)
                if lost
                else []
            )
            return card_atom_counts(pl[sel], showdown=True, extras=extras)

        def record(i: int) -> dict[str, Any]:
            from solver.core.cards import hand_names
            from solver.games.pokdeng.hands import classify_hand, settle_classes

            p = [c for c in pl[i].tolist() if c != PAD]
            d = [c for c in dl[i].tolist() if c != PAD]
            st = settle_classes(
                classify_hand(p, self.rules), classify_hand(d, self.rules), self.rules
            )
            claimed, fields, said = showdown_claims(i, stated, cv, base_agree, _PD_WINNERS)
            return {
                "player": hand_names(p),
                "dealer": hand_names(d),
                "fields": fields,
                "claimed": claimed,
                "correct": {"winner": st.winner, "net": st.net},
                "reason": f"claimed {said}; {st.reason}; player net {st.net:+d}",
            }

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


CHECKER = PokDengChecker
"""The checker the registry hands to ``bull verify``."""
