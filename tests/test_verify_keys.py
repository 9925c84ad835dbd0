"""`bull verify` counts agreeing rows by key instead of scoring each (issue 26): the
report is the one scoring every row gives, byte for byte.

* the plainest card spelling is read from the bytes (``plain_cards``) exactly as the
  token table reads it (``card_tokens``), on random and broken text;
* each game's key keeps its promise (:class:`solver.kit.check.Keys`): every cause agrees
  with an agreeing row exactly when it agrees with the row made from the row's key, and
  the row's interesting flag and atoms are the key's;
* a run with keys and a run with the keys taken away (every row scored one by one, the
  engine as it was) give the same report — on files with planted causes, causes that
  depend on the written order, unexplained rows, fields stated on some rows only,
  claimed bulls (rows without a key), repeated hands and many small batches.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from solver.kit.learn import atoms
from solver.kit.notation import Spans, card_tokens, tile_tokens
from solver.kit.plain import PAD, plain_cards, plain_tiles

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
DECK = [r + s for r in RANKS for s in "SHDC"]


# ---------------------------------------------------------------- the plain spelling


def noisy_hands(n: int, seed: int) -> list[str | None]:
    """Hands of 2, 3 or 5 cards in the plain spelling, and as many broken ones: other
    separators, case, ``T`` and suit symbols, stray bytes, a wrong count, empty text."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for _ in range(n):
        cards = rng.sample(DECK, rng.choice([2, 3, 5]))
        if rng.random() < 0.3:
            cards = [c.lower() if rng.random() < 0.5 else c for c in cards]
        text = " ".join(cards)
        r = rng.random()
        if r < 0.5:
            out.append(text)
            continue
        edits = [
            lambda t: t.replace(" ", "  ", 1),
            lambda t: t.replace(" ", ",", 1),
            lambda t: t.replace(" ", "\t"),
            lambda t: " " + t,
            lambda t: t + " ",
            lambda t: t.replace("10", "T", 1),
            lambda t: t.replace("S", "♠", 1),
            lambda t: t.replace("H", "X", 1),
            lambda t: t.replace("K", "1", 1),
            lambda t: t.replace("10", "1O", 1),
            lambda t: t + " 2C",
            lambda t: t[:-1],
            lambda t: t.replace(" ", ""),
            lambda t: "",
            lambda t: t[: rng.randrange(len(t) + 1)],
        ]
        out.append(rng.choice(edits)(text) if r < 0.97 else None)
    return out


@pytest.mark.parametrize("sizes", [(5,), (2, 3), (3,)])
def test_plain_cards_read_as_the_token_table(sizes: tuple[int, ...]) -> None:
    texts = noisy_hands(6_000, len(sizes))
    arr = pa.array(texts, pa.string())
    ids, size, ok = plain_cards(arr, sizes)
    tids, tsize, tok = card_tokens(Spans.of_arrow(arr), sizes)
    assert ok.sum() > 1_000 and (~ok & tok).sum() > 100  # both kinds of row are met
    assert not (ok & ~tok).any()  # never reads a row the token table does not
    assert (ids[ok] == tids[ok]).all() and (size[ok] == tsize[ok]).all()
    assert (ids[~ok] == PAD).all() and (size[~ok] == 0).all()

    def card(c: str) -> bool:  # a rank (or T for 10) and a suit letter, any case
        return c.upper() in DECK or (len(c) == 2 and c[0] in "Tt" and f"10{c[1]}".upper() in DECK)

    plain = np.array(
        [
            t is not None and len(t.split(" ")) in sizes and all(map(card, t.split(" ")))
            for t in texts
        ]
    )
    assert (ok == plain).all()  # every plain row, and only those


def test_plain_cards_on_a_slice_and_between_batches() -> None:
    texts = noisy_hands(40_000, 9)
    arr = pa.array(texts, pa.string()).slice(17, 33_000)  # offsets not from zero
    ids, _, ok = plain_cards(arr, (5,))
    tids, _, tok = card_tokens(Spans.of_arrow(arr), (5,))
    assert ok.any() and not (ok & ~tok).any() and (ids[ok] == tids[ok]).all()
    same = pa.array(["AS 2S 3S 4S 5S"] * 20_000)  # one size only: the space count shortcut
    ids, size, ok = plain_cards(same, (5,))
    assert ok.all() and (ids == [0, 4, 8, 12, 16]).all() and (size == 5).all()


def test_plain_tiles_read_as_the_grammar() -> None:
    from solver.core.tiles import TILE_NAMES

    rng = random.Random(4)
    texts: list[str | None] = []
    for _ in range(6_000):
        names = [rng.choice(TILE_NAMES) for _ in range(rng.choice([3, 5]))]
        if rng.random() < 0.2:  # pips in either order
            names = [f"[{n[3]}:{n[1]}]" for n in names]
        text = rng.choice(["", " "]).join(names)
        r = rng.random()
        if r < 0.4:
            text = rng.choice(
                [
                    text.replace("[", "", 1),
                    text.replace(":", "", 1),
                    text.replace("]", "] ", 1),
                    text.replace("1", "7", 1),
                    text.replace("[", " [", 1),
                    text[:-1],
                    "".join(n[1] + n[3] for n in names),
                    text + "[1:1]",
                ]
            )
        texts.append(text if r < 0.97 else None)
    arr = pa.array(texts, pa.string())
    for sizes in ((5,), (3,), (3, 5)):
        types, size, ok = plain_tiles(arr, sizes)
        ttypes, tsize, tok = tile_tokens(Spans.of_arrow(arr), sizes)
        assert ok.sum() > 1_000 and (~ok & tok).sum() > 50
        assert not (ok & ~tok).any()
        assert (types[ok] == ttypes[ok]).all() and (size[ok] == tsize[ok]).all()


# ---------------------------------------------------------------- files


def _niuniu_rows(n: int, seed: int) -> list[dict[str, Any]]:
    """Niu Niu hand rows (claims from the checker's answers under a few causes, some
    random), some fields left empty, some bulls claimed; hands repeat (a pool)."""
    from solver.core.cards import CARD_NAMES
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.variant_answers import niuniu_hand_answers

    rules = load_rules("casino")
    rng = np.random.default_rng(seed)
    pool = np.argsort(rng.random((n // 3, 52)), axis=1)[:, :5].astype(np.uint8)
    cards = pool[rng.integers(0, len(pool), n)]
    small = np.array([[0, 1, 4, 5, 8], [0, 2, 4, 6, 9], [1, 3, 5, 7, 12]], np.uint8)
    cards[: len(small) * 50] = np.tile(small, (50, 1))  # five small bulls, often
    for i in range(len(cards)):  # each row in its own written order
        rng.shuffle(cards[i])
    by_key = {v.key: v for v in niuniu_catalogue(rules, "hand")}
    truth = niuniu_hand_answers(cards, rules)
    # every row as if five small bulls were no special (a cover without contradiction),
    # some rows with a mistake, and hands of three of a kind with has_bull wrong (a pattern)
    a = niuniu_hand_answers(cards, rules, by_key["specials_without=five_small_bull"])
    got = {k: np.asarray(a[k]).copy() for k in ("has_bull", "points", "category")}
    which = rng.integers(0, 40, n)
    for c, key in enumerate(["mistake=bull_skips_first", "mistake=niu_niu_as_zero"]):
        a = niuniu_hand_answers(cards, rules, by_key[key])
        for k in got:
            got[k] = np.where(which == c, np.asarray(a[k]), got[k])
    r = np.sort(cards >> 2, axis=1)
    trips = (r[:, 0] == r[:, 2]) | (r[:, 1] == r[:, 3]) | (r[:, 2] == r[:, 4])
    got["has_bull"] = np.where(trips, ~got["has_bull"], got["has_bull"])
    from solver.games.niuniu.hands import evaluate_arrays

    srt = np.sort(cards, axis=1)
    masks = evaluate_arrays(srt, rules)["bull_mask"]  # the bull of each sorted hand
    rows = []
    for i in range(n):
        row: dict[str, Any] = {
            "hand": " ".join(CARD_NAMES[c] for c in cards[i]),
            "has_bull": bool(got["has_bull"][i]),
            "points": int(got["points"][i]),
            "category": rules.labels[int(got["category"][i])],
            "bull": "",
        }
        r = rng.random()
        if r < 0.1:
            row["category"] = ""
        elif r < 0.15:
            row["points"] = None
            row["has_bull"] = None
        elif r < 0.2 and truth["has_bull"][i]:
            mask = int(masks[i])
            row["bull"] = " ".join(CARD_NAMES[srt[i, p]] for p in range(5) if mask >> p & 1)
        rows.append(row)
    return rows


def _pokdeng_rows(n: int, seed: int) -> list[dict[str, Any]]:
    from solver.core.cards import CARD_NAMES
    from solver.games.pokdeng.diagnose import pokdeng_catalogue, pokdeng_hand_answers
    from solver.games.pokdeng.rules import HandType, load_rules

    rules = load_rules("standard")
    rng = np.random.default_rng(seed)
    cards = np.argsort(rng.random((n, 52)), axis=1)[:, :3].astype(np.uint8)
    size = np.where(rng.random(n) < 0.5, 2, 3).astype(np.int8)
    cards[size == 2, 2] = PAD
    by_key = {v.key: v for v in pokdeng_catalogue(rules, "hand")}
    truth = pokdeng_hand_answers(cards, size, rules)
    got = {k: np.asarray(truth[k]).copy() for k in ("type", "points", "deng")}
    which = rng.integers(0, 30, n)
    for c, key in enumerate(["mistake=three_card_pok", "straights=true,ace=both"]):
        a = pokdeng_hand_answers(cards, size, rules, by_key[key])
        for k in got:
            got[k] = np.where(which == c, np.asarray(a[k]), got[k])
    got["deng"] = np.where(which == 2, got["deng"] + 1, got["deng"])
    return [
        {
            "hand": " ".join(CARD_NAMES[c] for c in cards[i] if c != PAD),
            "points": int(got["points"][i]),
            "type": HandType(int(got["type"][i])).label if i % 7 else "",
            "deng": int(got["deng"][i]),
        }
        for i in range(n)
    ]


def _taungau_rows(n: int, seed: int) -> list[dict[str, Any]]:
    from solver.core.tiles import TILE_NAMES, TYPE_FIRST_ID, TYPE_OF_TILE
    from solver.games.taungau.diagnose import taungau_catalogue, taungau_hand_answers
    from solver.games.taungau.rules import load_rules
    from solver.games.taungau.verify import written_positions

    rules = load_rules("macau")
    rng = np.random.default_rng(seed)
    tiles = np.argsort(rng.random((n, 32)), axis=1)[:, :5].astype(np.uint8)
    text = ["".join(TILE_NAMES[t] for t in row) for row in tiles]
    types = np.sort(np.array(TYPE_OF_TILE)[tiles], axis=1)
    dup = np.zeros(types.shape, dtype=np.int64)
    dup[:, 1:] = types[:, 1:] == types[:, :-1]
    canon = (np.array(TYPE_FIRST_ID)[types] + dup).astype(np.uint8)
    by_key = {v.key: v for v in taungau_catalogue(rules, "hand")}
    truth = taungau_hand_answers(canon, rules)
    got = {k: np.asarray(truth[k]).copy() for k in ("has_bull", "points")}
    which = rng.integers(0, 20, n)
    order = written_positions(pa.array(text), np.arange(n))
    for c, key in enumerate(
        ["mistake=wild_in_bull", "zero_counts_as=0", "mistake=first_bull_as_written"]
    ):
        a = taungau_hand_answers(canon, rules, by_key[key], {"bull": None, "written": order})
        for k in got:
            got[k] = np.where(which == c, np.asarray(a[k]), got[k])
    return [
        {
            "hand": text[i],
            "has_bull": bool(got["has_bull"][i]) if i % 5 else None,
            "points": int(got["points"][i]),
        }
        for i in range(n)
    ]


ROWS = {"niuniu": _niuniu_rows, "pokdeng": _pokdeng_rows, "taungau": _taungau_rows}
RULES = {"niuniu": "casino", "pokdeng": "standard", "taungau": "macau"}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _tables(game: str, request: pytest.FixtureRequest) -> Path:
    return Path(request.getfixturevalue(f"{game}_tables"))


# ---------------------------------------------------------------- the key's promise


@pytest.mark.parametrize("game", ["niuniu", "pokdeng", "taungau"])
def test_a_key_answers_as_its_rows(
    game: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    import solver.games.niuniu.verify_keys as nv
    import solver.games.taungau.verify_keys as tv
    from solver.kit.scoring import Causes
    from solver.verify import make_checker

    monkeypatch.setattr(nv, "SKIPPED_AFTER", 0)  # the tables of every hand at once
    monkeypatch.setattr(tv, "FIRST_AFTER", 0)
    tables = _tables(game, request)
    checker = make_checker(game, RULES[game], {}, str(tables))
    checker.prepare()
    rows = ROWS[game](3_000, 5)
    cols = {k: pa.array([r[k] for r in rows]) for k in rows[0] if k != "bull"}
    if game == "niuniu":
        cols["bull"] = pa.array([r["bull"] for r in rows])
    cols = {("category" if k == "type" else k): v for k, v in cols.items()}
    res = checker.check_hands(cols)
    assert res.keys is not None
    keys = res.keys
    fields = list(res.stated)
    agreeing = np.flatnonzero(~res.disagree & (keys.of >= 0))
    assert len(agreeing) > 1_000 and (keys.of < 0).any() == (game == "niuniu")
    said = np.array([sum(res.stated[f][i] << j for j, f in enumerate(fields)) for i in agreeing])
    causes = Causes.of(checker.variants, checker.rules.to_data()).all
    hand = [c for c in causes if "hand" in c.modes]
    assert any(c.order for c in hand) == (game != "pokdeng") and len(hand) > 8
    said_by_keys = 0
    for code in np.unique(said).tolist():
        sel = agreeing[said == code]
        stated = tuple(f for j, f in enumerate(fields) if code >> j & 1)
        for fine in (True, False):
            k = keys.of[sel] if fine else keys.of[sel] // keys.order * keys.order
            virtual = keys.rows(k, stated)
            at = np.arange(len(sel))
            assert (virtual.interesting == res.interesting[sel]).all()
            assert not virtual.disagree.any()
            for c in hand:
                if c.order and not (fine and keys.order > 1):
                    continue  # the key does not hold the written order
                want = res.variant_agree(c, sel)
                assert (virtual.variant_agree(c, at) == want).all(), (c.key, stated, fine)
            assert virtual.record.atom_counts(at) == res.record.atom_counts(sel)
            if keys.agree is not None:  # what the checker says from the keys alone
                for c in hand:
                    got = keys.agree(c, k, stated)
                    if got is not None and (fine or not c.order):
                        said_by_keys += 1
                        ok, special = got
                        want = res.variant_agree(c, sel)
                        assert (ok == want).all(), (c.key, stated, fine)
                        assert (special == res.interesting[sel]).all()
            some = sel[:: max(1, len(sel) // 150)]  # the vectorised atoms: the records'
            assert res.record.atom_counts(some) == Counter(atoms(res.record(int(i))) for i in some)
            if keys.atoms is not None:  # from the keys alone, weighted: the records' too
                part = np.arange(0, len(sel), max(1, len(sel) // 150))
                weight = np.arange(1, len(part) + 1, dtype=np.int64) * 3
                want_atoms: Counter[frozenset[str]] = Counter()
                for i, w in zip(sel[part].tolist(), weight.tolist(), strict=True):
                    want_atoms[atoms(res.record(i))] += w
                assert keys.atoms(k[part], stated, weight) == want_atoms
    assert (said_by_keys > 0) == (keys.agree is not None)


@pytest.mark.parametrize("trips", [False, True])
def test_skipped_points_are_the_mistakes_points(trips: bool) -> None:
    """The bull search that skips the first card, read per sorted hand and place from
    ``skipped_points``, finds what the catalogue's mistake finds in the hand written
    with that card first and the others shuffled; and on a few hands worked by hand."""
    from solver.core.cards import parse_cards
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.variant_answers import niuniu_hand_answers
    from solver.games.niuniu.verify_keys import skipped_points

    rules = load_rules("classic")
    if trips:
        rules = type(rules).from_data(
            rules.name, {**rules.to_data(), "bull_from_three_of_a_kind": True}
        )
    skip = next(v for v in niuniu_catalogue(rules, "hand") if v.key == "mistake=bull_skips_first")
    rng = np.random.default_rng(7)
    srt = np.sort(np.argsort(rng.random((6_000, 52)), axis=1)[:, :5], axis=1).astype(np.uint8)
    table = skipped_points(srt, trips)
    for p in range(5):
        rest = np.delete(srt, p, axis=1)
        written = np.concatenate([srt[:, p : p + 1], rng.permuted(rest, axis=1)], axis=1)
        got = np.asarray(niuniu_hand_answers(written, rules, skip)["points"])
        assert (table[:, p] == got).all()
    # by hand, 5 5 5 Q K sorted: without a 5, 5+5+Q = 20 leaves the other face and the
    # skipped 5 (15: points 5); without the Q or the K, 5+5+K (or Q) = 20 leaves 5 and
    # the skipped face (5), and with trips the three 5s leave Q+K = 20 (Niu Niu, 10)
    hand = np.array([sorted(parse_cards("5S 5H 5D QS KS"))], dtype=np.uint8)
    assert skipped_points(hand, trips).tolist() == [[5, 5, 5, *([10, 10] if trips else [5, 5])]]


def test_the_shapes_of_one_deck_are_the_poker_hand_classes() -> None:
    """Niu Niu's shapes (ranks, flush or not) of one deck's 2,598,960 hands: 7,462, the
    known count of distinct five-card poker hands up to suits (1,287 rank sets, each a
    flush or not, and 4,888 rank multisets with a pair or more); each shape's own hand
    is of that shape."""
    from solver.core.indexing import all_subsets
    from solver.games.niuniu.verify_keys import _shape_table, shape_codes

    dense, hands = _shape_table()
    assert (dense[shape_codes(hands)] == np.arange(len(hands))).all()
    every = all_subsets(52, 5)
    shapes = np.unique(dense[shape_codes(every)])
    assert len(shapes) == 7_462 and shapes.min() >= 0


@pytest.mark.parametrize("preset", ["classic", "casino", "no_faces", "shoe6"])
def test_a_hand_shape_answers_alike(preset: str) -> None:
    """Niu Niu's keys count a preset's hands by shape (their ranks, and whether they
    are a flush) and the rank of the card written first: every hand-row cause of its
    catalogue answers alike on a hand and on its twin — the same ranks, other suits
    (a flush stays one, another does not become one), written in another order with
    a card of the same rank first."""
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.rules import load_rules
    from solver.games.niuniu.variant_answers import niuniu_hand_answers

    rules = load_rules(preset)
    deck = rules.deck_size
    rng = np.random.default_rng(11)
    n = 6_000
    if rules.decks == 1:
        cards = np.argsort(rng.random((n, deck)), axis=1)[:, :5].astype(np.uint8)
    else:
        cards = rng.integers(0, deck, (n, 5)).astype(np.uint8)
    cards[: n // 4] = (cards[: n // 4] & 0xFC) | (cards[: n // 4, :1] & 3)  # flushes, often
    if rules.decks == 1:  # one deck: the flushes that repeat a card drawn again
        keep = np.array([len(set(r.tolist())) == 5 for r in cards])
        cards = cards[keep]
    rank, suit = cards >> 2, cards & 3
    flush = (suit == suit[:, :1]).all(axis=1)
    twins = np.empty_like(cards)
    for i in range(len(cards)):
        while True:
            s = np.full(5, rng.integers(0, 4)) if flush[i] else rng.integers(0, 4, 5)
            t = (rank[i] << 2 | s).astype(np.uint8)
            if (s == s[0]).all() != flush[i]:
                continue
            if rules.decks == 1 and len(set(t.tolist())) < 5:
                continue
            break
        order = rng.permutation(5)
        first = rng.choice(np.flatnonzero(rank[i] == rank[i, 0]))  # a card of the rank
        order = np.array([first, *(j for j in order.tolist() if j != first)])
        twins[i] = t[order]
    assert (twins >> 2 != cards >> 2).any() and ((twins & 3) != (cards & 3)).any()
    causes = [v for v in niuniu_catalogue(rules, "hand") if "hand" in v.modes]
    assert len(causes) > 8
    for v in [None, *causes]:
        a = niuniu_hand_answers(cards, rules, v)
        b = niuniu_hand_answers(twins, rules, v)
        for k in ("has_bull", "points", "category"):
            assert (np.asarray(a[k]) == np.asarray(b[k])).all(), (preset, v and v.key, k)


@pytest.mark.parametrize("preset", ["macau", "pagat"])
def test_a_written_order_answers_as_its_class(preset: str) -> None:
    """Tau Ngau's keys tell apart only the written orders that make the search over the
    tiles as written take different bulls (:class:`WrittenOrders`): every cause that
    reads the order written — the first bull met as written, alone and in each pair —
    answers alike on a hand written in any of the 120 orders and on the same hand
    written in the order its key stands for; on shapes holding a [2:1] or a [4:2]
    (their bulls depend on the 3/6 choice a values mistake allows), and others."""
    from solver.games.taungau.diagnose import taungau_hand_answers
    from solver.games.taungau.hands import WILD_TILES
    from solver.games.taungau.verify import _PERMS
    from solver.games.taungau.verify_keys import WrittenOrders
    from solver.games.taungau.verify_shapes import Shapes
    from solver.kit.scoring import Causes
    from solver.verify import make_checker

    checker = make_checker("taungau", preset, {}, None)
    shapes = Shapes.of(checker.rules)
    orders = WrittenOrders.of(shapes, _PERMS)
    assert 10 <= orders.per < 20 and orders.space < 34_000 * 20
    wild = np.isin(shapes.hands, WILD_TILES).any(axis=1)
    rng = np.random.default_rng(4)
    some = np.concatenate(
        [rng.choice(np.flatnonzero(wild), 400), rng.choice(np.flatnonzero(~wild), 100)]
    )
    at = np.repeat(some, len(_PERMS))
    o = np.tile(np.arange(len(_PERMS)), len(some))
    shape, rep = orders.decode(orders.key(at, o))
    assert (shape == at).all() and (rep != o).mean() > 0.8
    tiles = shapes.hands[at]
    causes = [c for c in Causes.of(checker.variants, checker.rules.to_data()).all if c.order]
    assert len(causes) > 5 and any("wild_fixed_3" in c.key for c in causes)
    for c in causes:
        if "hand" not in c.modes:
            continue
        a = taungau_hand_answers(tiles, checker.rules, c, {"bull": None, "written": _PERMS[o]})
        b = taungau_hand_answers(tiles, checker.rules, c, {"bull": None, "written": _PERMS[rep]})
        for k in ("has_bull", "points"):
            assert (np.asarray(a[k]) == np.asarray(b[k])).all(), (c.key, k)


def test_our_answers_from_the_table_are_the_evaluators(niuniu_tables: Path) -> None:
    """A mistake scored with our answers read from the table (``known``) answers as
    when it evaluates the hands itself."""
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.variant_answers import niuniu_hand_answers
    from solver.verify import make_checker

    rng = np.random.default_rng(3)
    for rules in ("classic", "casino", "no_faces", "shoe6"):
        checker = make_checker("niuniu", rules, {}, str(niuniu_tables))
        r = checker.rules
        deck = 40 if rules == "no_faces" else 52  # no J/Q/K: the ids of A..10
        if r.decks == 1:
            cards = np.argsort(rng.random((4_000, deck)), axis=1)[:, :5].astype(np.uint8)
        else:  # a shoe: a card may repeat
            cards = rng.integers(0, deck, (4_000, 5)).astype(np.uint8)
        ans = checker.answers(cards)
        known = {k: ans[k] for k in ("has_bull", "points", "category", "sorted")}
        for v in niuniu_catalogue(r, "hand"):
            if v.rules is not None:
                continue
            a = niuniu_hand_answers(cards, r, v)
            b = niuniu_hand_answers(cards, r, v, known)
            for k in ("has_bull", "points", "category", "forbidden"):
                assert (np.asarray(a[k]) == np.asarray(b[k])).all(), (rules, v.key, k)


def test_a_presets_answers_by_shape_are_its_tables_for_every_hand(niuniu_tables: Path) -> None:
    """A preset's answers are read by the hand's shape (ranks and flush), not from a
    gather of the table's per-hand column: for every hand the table holds, they are
    the table's own ``has_bull``, ``points`` and category, and a row's rank (read only
    for the records written) is its place in the table."""
    from solver.games.niuniu.source import rules_table
    from solver.games.niuniu.verify_keys import every_hand
    from solver.verify import make_checker

    rng = np.random.default_rng(11)
    for rules in ("classic", "casino", "no_faces", "shoe6"):
        checker = make_checker("niuniu", rules, {}, str(niuniu_tables))
        r = checker.rules
        table = rules_table(r, str(niuniu_tables))
        hands = every_hand(bool(r.shoe))[: table.num_rows]  # a smaller deck's come first
        order = rng.permutation(5)  # written in another order
        ans = checker.answers(np.ascontiguousarray(hands[:, order]))
        assert "shape" in ans, rules
        for ours, col in (("has_bull", "has_bull"), ("points", "points")):
            assert (np.asarray(ans[ours]) == table.column(col)).all(), (rules, ours)
        category = table.column(f"{r.name}_category")
        assert (np.asarray(ans["category"]) == category).all(), rules
        some = rng.integers(0, len(hands), 400)  # one at a time, then all at once
        assert [ans["rank"][int(i)] for i in some] == some.tolist(), rules


# ---------------------------------------------------------------- the same report


def _report(
    game: str, path: Path, tables: Path, monkeypatch: pytest.MonkeyPatch, keyed: bool, **kw: Any
) -> dict[str, Any]:
    from solver.verify import make_checker, verify_file

    if not keyed:
        cls = type(make_checker(game, RULES[game], {}, str(tables)))
        real = cls.check_hands

        def unkeyed(self: Any, cols: Any) -> Any:
            return dataclasses.replace(real(self, cols), keys=None)

        monkeypatch.setattr(cls, "check_hands", unkeyed)
    try:
        rep = verify_file(game, str(path), rules=RULES[game], tables=str(tables), **kw)
    finally:
        monkeypatch.undo()
    data: dict[str, Any] = rep.to_json()
    return data


@pytest.mark.parametrize("game", ["niuniu", "pokdeng", "taungau"])
@pytest.mark.parametrize("batch", [262_144, 1_499])
def test_keyed_report_is_the_row_by_row_report(
    game: str, batch: int, tmp_path: Path, request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import solver.games.niuniu.verify_keys as nv
    import solver.games.taungau.verify_keys as tv
    import solver.kit.keycounts as keycounts
    import solver.kit.scoring as scoring

    if batch > 2_000:  # the written-order mistakes read from tables of every hand
        monkeypatch.setattr(nv, "SKIPPED_AFTER", 0)
        monkeypatch.setattr(tv, "FIRST_AFTER", 0)
    tables = _tables(game, request)
    path = _write(tmp_path / "c.parquet", ROWS[game](12_000, 11))
    out_k, out_r = tmp_path / "k.jsonl", tmp_path / "r.jsonl"
    if batch < 2_000:  # disagreeing rows scored a few dozen at a time, across groups
        monkeypatch.setattr(scoring, "DEFER", 37)
        monkeypatch.setattr(keycounts, "GROUP", 97)
    keyed = _report(game, path, tables, monkeypatch, True, batch_size=batch, out=str(out_k))
    rows = _report(game, path, tables, monkeypatch, False, batch_size=batch, out=str(out_r))
    assert keyed["disagree"] > 200 and keyed["diagnosis"]
    kinds = Counter(e["kind"] for e in keyed["diagnosis"])
    assert kinds["pattern"] >= 1 or game == "pokdeng", keyed["diagnosis"]
    assert json.dumps(keyed, sort_keys=True) == json.dumps(rows, sort_keys=True)
    assert out_k.read_bytes() == out_r.read_bytes()


def test_keyed_report_with_many_counts(
    tmp_path: Path, niuniu_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hands repeated so often that their counts are many: the learner's agreeing rows
    are then counted row by row, a slice at a time."""
    import solver.kit.keycounts as keycounts

    rows = _niuniu_rows(3_000, 2)
    rows = [dict(r, bull="") for r in rows for _ in range(1 + len(r["hand"]) % 5)]
    path = _write(tmp_path / "c.parquet", rows)
    monkeypatch.setattr(keycounts, "MAX_WEIGHTS", 2)
    keyed = _report("niuniu", path, niuniu_tables, monkeypatch, True)
    monkeypatch.setattr(keycounts, "MAX_WEIGHTS", 2)
    plain = _report("niuniu", path, niuniu_tables, monkeypatch, False)
    assert keyed["disagree"] > 100 and keyed == plain


def test_blank_rows_as_trimmed() -> None:
    """A blank CSV row (every column empty or white space), found without trimming the
    columns that hold no white space at all, as trimming every column finds it."""
    import pyarrow.compute as pc

    from solver.kit.check import blank
    from solver.kit.parse import nonempty

    rng = random.Random(8)
    pieces = ["", " ", "\t", "x", "AS 2H", "\u00a0", "\u3000", "é", "\r\n", "0"]
    for _ in range(30):
        n = 300
        cols = {
            c: pa.array([rng.choice(pieces) if rng.random() < 0.9 else None for _ in range(n)])
            for c in "abc"
        }
        if rng.random() < 0.5:  # a column with no white space anywhere
            cols["d"] = pa.array([rng.choice(["", "x", "true"]) for _ in range(n)])
        want = np.ones(n, dtype=bool)
        for arr in cols.values():
            want &= ~nonempty(pc.utf8_trim_whitespace(arr))
        assert (blank(cols, n) == want).all()


def test_tiles_written_order_as_written_positions() -> None:
    """The order the tiles were written, read with the hands (``Hands.written``), is
    the order ``written_positions`` reads from the text again."""
    from solver.core.tiles import TILE_NAMES
    from solver.games.taungau.verify import written_positions
    from solver.kit.parse import parse_tile_hands

    rng = random.Random(6)
    texts = []
    for _ in range(3_000):
        names = [TILE_NAMES[i] for i in rng.sample(range(32), 5)]
        text = rng.choice(["", " ", ","]).join(names)
        if rng.random() < 0.2:
            text = "".join(n[1] + n[3] for n in names)  # 65 43 ...: the grammar's
        texts.append(text)
    arr = pa.array(texts)
    hands = parse_tile_hands(arr, (5,))
    rows = np.flatnonzero(~hands.bad & hands.stated)
    assert len(rows) > 2_500 and hands.written is not None
    assert (hands.written[rows] == written_positions(arr, rows)).all()


@pytest.mark.parametrize("game", ["niuniu", "pokdeng"])
def test_labels_kept_as_dictionaries_read_as_decoded(
    game: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Parquet label column read as a dictionary is parsed from its values and never
    decoded (``Chunk.coded_as_is``): the report and the rows written out are those of
    the column decoded to text, with labels right, wrong, spelled otherwise, unknown,
    empty and missing; and hand and showdown rows mixed in one file (rows taken from a
    chunk, the dictionary with them)."""
    import solver.verify as sv
    from solver.verify import verify_file

    tables = _tables(game, request)
    rows = ROWS[game](6_000, 3)
    key = "category" if game == "niuniu" else "type"
    odd = ["Niu 7", "NIU_NIU", "pok", "straight", "bogus", "", None, " niu_3 "]
    rng = random.Random(5)
    for r in rows:
        if rng.random() < 0.15:
            r[key] = rng.choice(odd)
    if game == "niuniu":  # showdown rows among the hands: each kind a part of a chunk
        hands = [r["hand"] for r in rows]
        for i in range(0, len(rows), 7):
            winner = rng.choice(["player", "banker", "Player", "tie?", None])
            banker = hands[i - 1] if i else None
            rows[i] = {"hand": None, "player": hands[i], "banker": banker, "winner": winner}
    path = _write(tmp_path / "c.parquet", rows)
    real = sv.read_chunks
    got = []
    for as_is in (True, False):

        def read(*a: Any, _k: bool = as_is, **_: Any) -> Any:  # verify's choice replaced
            return real(*a[:4], coded_as_is=_k)

        monkeypatch.setattr(sv, "read_chunks", read)
        out = tmp_path / f"out-{as_is}.jsonl"
        rep = verify_file(
            game, str(path), rules=RULES[game], tables=str(tables), batch_size=997, out=str(out)
        )
        got.append((json.dumps(rep.to_json(), sort_keys=True), out.read_bytes()))
    assert got[0] == got[1]
    data = json.loads(got[0][0])
    assert data["malformed"] > 50 and data["disagree"] > 100


def _spoil(path: Path, part: int, bits: int) -> None:
    """Flip ``bits`` of the byte a ``part``-th of the way into a stored file."""
    data = bytearray(path.read_bytes())
    data[len(data) // part] ^= bits
    path.write_bytes(bytes(data))


def test_packed_answers_kept_between_runs(
    tmp_path: Path, niuniu_tables: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Niu Niu's packed answers (and the bull masks) are kept in the user's cache
    between runs, named by the table's content digest: a later run reads them (no
    table column read),
    and a stored file altered, or one of another length, is not believed (made again
    from the table): the report is the same each time."""
    import solver.games.niuniu.verify_table as nv
    from solver.store.tables import LoadedTable
    from solver.verify import verify_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = _write(tmp_path / "c.parquet", ROWS["niuniu"](2_000, 9))
    read: list[str] = []
    real = LoadedTable.column

    def column(self: Any, name: str) -> Any:
        read.append(name)
        return real(self, name)

    monkeypatch.setattr(LoadedTable, "column", column)

    def run() -> str:
        nv._PACKED.clear()  # a new process
        read.clear()
        rep = verify_file("niuniu", str(path), rules="casino", tables=str(niuniu_tables))
        return json.dumps(rep.to_json(), sort_keys=True)

    first = run()
    assert "has_bull" in read and "bull_mask" in read  # the file has disagreements
    stored = list((tmp_path / "cache").rglob("niuniu-verify-packed-*.npz"))
    assert len(stored) == 1
    assert len(list((tmp_path / "cache").rglob("niuniu-verify-bull-mask-*.npz"))) == 1
    assert run() == first and not read  # the answers and the bull masks from the cache
    _spoil(stored[0], 2, 0xFF)  # a byte of the packed answers
    assert run() == first and "has_bull" in read
    assert run() == first and "has_bull" not in read  # written again, whole
    masks = next((tmp_path / "cache").rglob("niuniu-verify-bull-mask-*.npz"))
    _spoil(masks, 2, 0xFF)  # a byte of the bull masks
    assert run() == first and read == ["bull_mask"]  # read from the table again


def test_written_orders_kept_between_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tau Ngau's classes of written orders are kept in the user's cache: read back,
    they are the ones made from every shape's analysis; a stored file altered is not
    believed (made again)."""
    from solver.games.taungau.rules import load_rules
    from solver.games.taungau.verify import _PERMS
    from solver.games.taungau.verify_keys import WrittenOrders
    from solver.games.taungau.verify_shapes import Shapes

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rules = load_rules("macau")
    made = WrittenOrders._make(Shapes._make(rules), _PERMS)
    made_calls: list[int] = []
    real = WrittenOrders._make.__func__  # type: ignore[attr-defined]

    def counted(cls: Any, shapes: Any, perms: Any) -> Any:
        made_calls.append(1)
        return real(cls, shapes, perms)

    monkeypatch.setattr(WrittenOrders, "_make", classmethod(counted))

    def fresh() -> WrittenOrders:
        return WrittenOrders.of(Shapes._make(rules), _PERMS)  # a new process's shapes

    for got in (fresh(), fresh()):
        for a, b in ((got._kind, made._kind), (got._class, made._class), (got._rep, made._rep)):
            assert (a == b).all() and a.shape == b.shape
    assert len(made_calls) == 1  # the second read back
    stored = next((tmp_path / "cache").rglob("taungau-written-orders-*.npz"))
    _spoil(stored, 3, 0x55)
    assert (fresh()._class == made._class).all() and len(made_calls) == 2


def test_tau_ngau_shapes_kept_between_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tau Ngau's shapes and our answers for each are kept in the user's cache, named by
    the rule set's content: read back, they are the made ones; another rule set's are
    its own; a stored file altered is not believed (made again)."""
    import solver.games.taungau.verify_shapes as vs
    from solver.games.taungau.rules import load_rules

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    made_calls: list[str] = []
    real = vs.Shapes._make.__func__  # type: ignore[attr-defined]

    def counted(cls: Any, rules: Any) -> Any:
        made_calls.append(rules.name)
        return real(cls, rules)

    monkeypatch.setattr(vs.Shapes, "_make", classmethod(counted))

    def fresh(name: str) -> Any:
        vs._MADE.clear()  # a new process
        return vs.Shapes.of(load_rules(name))

    def same(a: Any, b: Any) -> bool:
        fields = ("hands", "index", "digit", "exists", "interesting")
        arrays = [(getattr(a, f), getattr(b, f)) for f in fields]
        arrays += [(a.answers[k], b.answers[k]) for k in b.answers]
        return set(a.answers) == set(b.answers) and all(
            x.dtype == y.dtype and x.shape == y.shape and (x == y).all() for x, y in arrays
        )

    first, again = fresh("macau"), fresh("macau")
    assert made_calls == ["macau"] and same(again, first)
    assert same(first, real(vs.Shapes, load_rules("macau")))
    pagat = fresh("pagat")
    assert made_calls == ["macau", "pagat"]
    assert (pagat.answers["points"] != first.answers["points"]).any()  # its own answers
    for stored in (tmp_path / "cache").rglob("taungau-verify-shapes-*.npz"):
        _spoil(stored, 3, 0x55)
    assert same(fresh("macau"), first) and made_calls == ["macau", "pagat", "macau"]
