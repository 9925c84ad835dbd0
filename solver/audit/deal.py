"""``bull deal``: seeded synthetic logs of play, fair or rigged in stated ways.

One row per seat per round (seat 0 the banker, or dealer, then the players) with the
columns ``round``, ``seat``, ``role``, ``table``, ``hand``, ``result`` and ``net`` (the
player's; empty on the banker's row) — the shape ``bull audit`` reads. Each round is a
fresh shuffle of the deck (or tile set; a shoe rule set: of the whole shoe, every card
``decks`` times); Pok Deng seats draw a third card the way the game's audit room plays
(``finish``: ``--player-strategy``, default drawing on 4 or less). Every player row is
settled with the game's own settlement, so a fair log audits clean.

Biases (``--bias NAME=P``, repeatable):

* ``bull_rate=P``: each hand is redealt (from the cards left) until it is a bull with
  probability ``P`` and a non-bull otherwise (Pok Deng: a pok) — the rate becomes P.
* ``banker_edge=P``: with probability ``P`` the banker gets the best hand dealt (the
  strongest hand of the round is swapped into the banker's seat).
* ``skim=F``: table ``t0`` keeps back a fraction ``F`` of every player win (its logged
  net is the win less ``F`` of it; the other tables are honest) — what the hold check
  and the settlement re-check must find.

``errors=F`` plants settlement errors in a fraction ``F`` of the player rows: the claims
are settled under ``error_rules`` / ``error_options`` when given (a rule variant the
diagnosis can name), else the winner is flipped and the net negated.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
>>> s = deal("niuniu", 3, players=2, seed=1, out=path)
>>> s.rows, s.rounds, s.planted
(9, 3, 0)
>>> open(path).readline().strip().replace('"', '')
'round,seat,role,table,hand,result,net'
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.audit.spec import AuditSpec, load_spec
from solver.core.errors import BullError

__all__ = ["BIASES", "DealSummary", "deal", "parse_biases", "seat_hands"]

PAD = 255
BIASES = ("bull_rate", "banker_edge", "skim")
CHUNK_ROUNDS = 200_000


@dataclass(frozen=True)
class DealSummary:
    """What :func:`deal` wrote."""

    game: str
    rules: str
    out: str
    rounds: int
    rows: int
    players: int
    seed: int
    biases: tuple[tuple[str, float], ...]
    planted: int

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules,
            "out": self.out,
            "rounds": self.rounds,
            "rows": self.rows,
            "players": self.players,
            "seed": self.seed,
            "bias": dict(self.biases),
            "planted_errors": self.planted,
        }

    def text(self) -> str:
        bias = ", ".join(f"{k}={v:g}" for k, v in self.biases) or "none (fair)"
        return (
            f"deal {self.game} [{self.rules}]: {self.rounds:,} rounds, {self.players} players, "
            f"{self.rows:,} rows to {self.out}; seed {self.seed}; bias {bias}; "
            f"planted settlement errors {self.planted:,}"
        )


def parse_biases(items: Sequence[str]) -> dict[str, float]:
    """``["bull_rate=0.85"]`` → ``{"bull_rate": 0.85}``; an unknown name or a value
    outside [0, 1] is a one-line error.

    >>> parse_biases(["bull_rate=0.85", "banker_edge = 0.1"])
    {'bull_rate': 0.85, 'banker_edge': 0.1}
    """
    out: dict[str, float] = {}
    for item in items:
        name, sep, value = (s.strip() for s in item.partition("="))
        if not sep or name not in (*BIASES, "errors"):
            raise BullError(
                f"--bias {item!r}: expected NAME=P with NAME one of {', '.join(BIASES)}, errors"
            )
        try:
            p = float(value)
        except ValueError:
            raise BullError(f"--bias {item!r}: {value!r} is not a number") from None
        if not 0 <= p <= 1:
            raise BullError(f"--bias {item!r}: {p:g} is not a probability in [0, 1]")
        out[name] = p
    return out


def _shuffle(
    rng: np.random.Generator, deck: npt.NDArray[np.uint8], n: int
) -> npt.NDArray[np.uint8]:
    order = np.argsort(rng.random((n, len(deck))), axis=1)
    return deck[order]


def seat_hands(
    spec: AuditSpec, rng: np.random.Generator, n: int, players: int
) -> list[npt.NDArray[np.uint8]]:
    """Each seat's final hand (seat 0 the banker) in ``n`` fresh fair rounds of
    ``players`` players: only the items the seats need are drawn (a uniformly random
    ordered sample of the deck or shoe), then Pok Deng's draws.

    >>> s = load_spec("niuniu", None, {}, None)
    >>> [h.shape for h in seat_hands(s, np.random.default_rng(0), 3, 2)]
    [(3, 5), (3, 5), (3, 5)]
    """
    seats = players + 1
    need = seats * spec.hand_size + (seats if spec.hooks.get("finish") is not None else 0)
    keys = rng.random((n, len(spec.deck)))
    if need < len(spec.deck):
        idx = np.argpartition(keys, need - 1, axis=1)[:, :need]
        idx = np.take_along_axis(idx, np.argsort(np.take_along_axis(keys, idx, 1), 1), 1)
    else:
        idx = np.argsort(keys, axis=1)
    return _hands_of(spec, spec.deck[idx], seats)


def _rig_bull_rate(
    spec: AuditSpec, rng: np.random.Generator, cards: npt.NDArray[np.uint8], seats: int, p: float
) -> None:
    """Redeal each seat's hand from the cards left until it is a bull with probability p."""
    k = spec.hand_size
    bull = np.array(spec.bull, dtype=bool)
    for s in range(seats):
        want = rng.random(len(cards)) < p
        pending = np.arange(len(cards))
        for _ in range(10_000):
            got = bull[spec.category(np.ascontiguousarray(cards[pending, s * k : (s + 1) * k]))]
            pending = pending[got != want[pending]]
            if not len(pending):
                break
            tail = cards[pending, s * k :]
            order = np.argsort(rng.random(tail.shape), axis=1)
            cards[pending, s * k :] = np.take_along_axis(tail, order, axis=1)
        else:
            raise BullError(f"bull_rate={p:g}: could not deal such hands")


def _rig_banker_edge(
    spec: AuditSpec, rng: np.random.Generator, cards: npt.NDArray[np.uint8], seats: int, p: float
) -> None:
    """With probability p, swap the round's strongest hand into the banker's seat 0."""
    k = spec.hand_size
    strength = np.stack(
        [spec.strength(np.ascontiguousarray(cards[:, s * k : (s + 1) * k])) for s in range(seats)],
        axis=1,
    )
    best = np.argmax(strength, axis=1)
    rows = np.flatnonzero((rng.random(len(cards)) < p) & (best > 0))
    for s in range(1, seats):
        sel = rows[best[rows] == s]
        a = cards[sel, 0:k].copy()
        cards[sel, 0:k] = cards[sel, s * k : (s + 1) * k]
        cards[sel, s * k : (s + 1) * k] = a


def _hands_of(
    spec: AuditSpec, cards: npt.NDArray[np.uint8], seats: int
) -> list[npt.NDArray[np.uint8]]:
    """Each seat's final hand (n, max size): dealt, then Pok Deng's draws."""
    k = spec.hand_size
    starts = [np.ascontiguousarray(cards[:, s * k : (s + 1) * k]) for s in range(seats)]
    finish = spec.hooks.get("finish")
    if finish is None:
        return starts
    extra = [cards[:, seats * k + s] for s in range(seats)]
    dealer_pok = np.asarray(spec.hooks["pok"](starts[0]), dtype=bool)
    out = [np.asarray(spec.hooks["finish_dealer"](starts[0], extra[0]))]
    out[0][dealer_pok, 2] = PAD
    out += [np.asarray(finish(starts[s], extra[s], dealer_pok)) for s in range(1, seats)]
    return out


def _hand_column(spec: AuditSpec, hands: npt.NDArray[np.uint8], fmt: str) -> pa.Array:
    _n, k = hands.shape
    lengths = (hands != PAD).sum(axis=1)
    if fmt == "ids":
        values = hands[hands != PAD]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.uint8()))
    names = [spec.unit_names[int(spec.unit[i])] for i in range(len(spec.unit))]
    table = pa.array([*names, *[""] * (256 - len(names))], pa.string())
    cols = [pc.take(table, pa.array(hands[:, j].astype(np.int64))) for j in range(k)]
    sep = "" if spec.kind == "tile" else " "
    return pc.utf8_rtrim_whitespace(pc.binary_join_element_wise(*cols, sep))


def _chunks(
    spec: AuditSpec,
    rounds: int,
    players: int,
    seed: int,
    biases: Mapping[str, float],
    plant: AuditSpec | None,
    fmt: str,
    counter: list[int],
) -> Iterator[pa.Table]:
    rng = np.random.default_rng(seed)
    seats = players + 1
    labels = np.array(["win", "loss", "push"])
    errors = biases.get("errors", 0.0)
    skim = biases.get("skim", 0.0)
    chunk = max(1, CHUNK_ROUNDS * 52 // len(spec.deck))  # a shoe: fewer rounds at a time
    for start in range(0, rounds, chunk):
        n = min(chunk, rounds - start)
        cards = _shuffle(rng, spec.deck, n)
        if "bull_rate" in biases:
            _rig_bull_rate(spec, rng, cards, seats, biases["bull_rate"])
        if "banker_edge" in biases:
            _rig_banker_edge(spec, rng, cards, seats, biases["banker_edge"])
        hands = _hands_of(spec, cards, seats)
        width = max(h.shape[1] for h in hands)
        all_hands = np.full((n, seats, width), PAD, dtype=np.uint8)
        for s, h in enumerate(hands):
            all_hands[:, s, : h.shape[1]] = h
        result = np.full((n, seats), "", dtype=object)
        net = np.full((n, seats), np.nan)
        for s in range(1, seats):
            w, v = spec.settle(hands[s], hands[0])
            if errors:
                hit = rng.random(n) < errors
                if plant is not None:
                    w2, v2 = plant.settle(hands[s], hands[0])
                else:
                    w2, v2 = np.where(w == 0, 1, np.where(w == 1, 0, 2)), -v
                changed = hit & ((w2 != w) | (np.abs(v2 - v) > 1e-9))
                counter[0] += int(changed.sum())
                w, v = np.where(hit, w2, w), np.where(hit, v2, v)
            if skim:  # table t0: rounds whose id is a multiple of 4
                kept = ((np.arange(start + 1, start + n + 1) % 4) == 0) & (v > 0)
                counter[0] += int(kept.sum())
                v = np.where(kept, v * (1 - skim), v)
            result[:, s] = labels[w.astype(np.int64)]
            net[:, s] = v
        rid = np.repeat(np.arange(start + 1, start + n + 1, dtype=np.int64), seats)
        seat = np.tile(np.arange(seats, dtype=np.int16), n)
        role = np.where(seat == 0, spec.banker_word, "player")
        res_col = result.reshape(-1)
        net_col = net.reshape(-1)
        yield pa.table(
            {
                "round": rid,
                "seat": seat,
                "role": pa.array(role.tolist(), pa.string()).dictionary_encode(),
                "table": pa.DictionaryArray.from_arrays(
                    pa.array((rid % 4).astype(np.int32)), pa.array(["t0", "t1", "t2", "t3"])
                ),
                "hand": _hand_column(spec, all_hands.reshape(n * seats, width), fmt),
                "result": pa.array(res_col.tolist(), pa.string(), mask=seat == 0),
                "net": pa.array(net_col, pa.float64(), mask=np.isnan(net_col)),
            }
        )


def deal(
    game: str,
    rounds: int,
    *,
    players: int = 4,
    seed: int = 0,
    bias: Mapping[str, float] | None = None,
    out: str,
    rules: str | None = None,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    error_rules: str | None = None,
    error_options: Mapping[str, Any] | None = None,
    hand_format: str = "text",
) -> DealSummary:
    """Write ``rounds`` rounds of ``players`` players and a banker to ``out`` (Parquet,
    CSV or JSON Lines by extension); see the module docstring."""
    biases = dict(bias or {})
    if rounds < 1:
        raise BullError(f"--rounds {rounds}: expected at least 1")
    spec = load_spec(game, rules, options or {}, tables)
    per_seat = spec.hand_size + (1 if spec.hooks.get("finish") is not None else 0)
    most = len(spec.deck) // per_seat - 1
    if not 1 <= players <= most:
        raise BullError(f"--players {players}: {game} deals to 1..{most} players and a banker")
    if hand_format not in ("text", "ids"):
        raise BullError(f"--hand-format {hand_format!r}: expected text or ids")
    plant = None
    if (error_rules is not None or error_options) and not biases.get("errors"):
        raise BullError(
            "--error-rules plants nothing without --bias errors=F "
            "(the share of player rows settled under it)"
        )
    if biases.get("errors") and (error_rules is not None or error_options):
        plant = load_spec(game, error_rules or rules, error_options or options or {}, tables)
        if (plant.decks, len(plant.deck)) != (spec.decks, len(spec.deck)):
            raise BullError(  # its tables cannot settle the hands dealt
                f"--error-rules {error_rules or rules}: settles hands dealt from "
                f"{plant.decks} x {len(plant.deck) // plant.decks} cards, the deal is from "
                f"{spec.decks} x {len(spec.deck) // spec.decks} (give error rules with the "
                "deal's deck and decks)"
            )
    ext = os.path.splitext(out)[1].lower()
    if ext not in (".parquet", ".pq", ".csv", ".jsonl", ".ndjson"):
        raise BullError(f"--out {out}: expected a .parquet, .csv or .jsonl file")
    counter = [0]
    chunks = _chunks(spec, rounds, players, seed, biases, plant, hand_format, counter)
    tmp = out + ".part"
    n_rows = 0
    try:
        n_rows = _write(chunks, tmp, ext)
        os.replace(tmp, out)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # the log as the user named it, not its .part
            why = str(exc.strerror or exc).replace(tmp, out)
            raise BullError(f"--out {out}: cannot write it: {why}") from None
        raise
    order = sorted(biases.items())
    return DealSummary(
        game, spec.rules, out, rounds, n_rows, players, seed, tuple(order), counter[0]
    )


def _write(chunks: Iterator[pa.Table], path: str, ext: str) -> int:
    import json

    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    n = 0
    if ext in (".parquet", ".pq"):
        writer = None
        try:
            for t in chunks:
                if writer is None:
                    writer = pq.ParquetWriter(path, t.schema)
                writer.write_table(t, row_group_size=1 << 20)
                n += t.num_rows
        finally:
            if writer is not None:
                writer.close()
        return n
    with open(path, "wb") as f:
        first = True
        for t in chunks:
            t = t.cast(
                pa.schema(
                    [
                        pa.field(fd.name, pa.string()) if pa.types.is_dictionary(fd.type) else fd
                        for fd in t.schema
                    ]
                )
            )
            if ext == ".csv":
                pacsv.write_csv(t, f, pacsv.WriteOptions(include_header=first))
            else:
                for row in t.to_pylist():
                    f.write((json.dumps(row) + "\n").encode())
            first = False
            n += t.num_rows
    return n
