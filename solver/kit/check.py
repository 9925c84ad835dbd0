"""Game-neutral pieces of checking a batch of claims, shared by the three games.

A game's checker (:mod:`solver.games.niuniu.verify`, :mod:`solver.games.taungau.verify`,
:mod:`solver.games.pokdeng.verify`) parses a batch's claim columns, computes our answers and
returns a :class:`Checked`: per claimed field, which rows state it and which agree.
What is the same for every game lives here: reading the claim columns
(:func:`read_claims`), setting malformed rows aside (:func:`merge_bad`), the rule that a
variant explains a row when it agrees with every field the row states
(:func:`variant_agreement`), the fields a row gets wrong (:func:`differing`), and the
whole showdown side but the settlement itself: the two hands, the ``winner``/``net``
claims and how they are compared and described (:func:`read_showdowns`,
:func:`one_deck`, :func:`showdown_agree`, :func:`showdown_claims`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.rules import RuleSet
from solver.kit.columns import arrow_ints
from solver.kit.diagnosis import Variant
from solver.kit.parse import (
    Hands,
    Parsed,
    is_text,
    nonempty,
    nulls,
    parse_float,
    parse_label,
)
from solver.kit.plain import text_bytes
from solver.kit.read import MAX_LISTED

Mask = npt.NDArray[np.bool_]
T = TypeVar("T")
Part = tuple[Mask, Mapping[int, str]]
"""A reason rows are malformed: the rows, and messages for some of them."""
Agree = Callable[..., dict[str, Mask]]
"""``agree(answers, sel=slice(None))``: per claimed field, the rows ``sel`` agreeing."""

WINNER_LABELS = {"player": 0, "banker": 1, "dealer": 1, "push": 2, "tie": 2}
"""Spellings of a showdown's winner: 0 the player, 1 the banker or dealer, 2 a push."""


@dataclass
class Checked:
    """One batch of rows of one kind (``hand`` or ``showdown``), checked.

    ``rows``: positions in the chunk of the well-formed rows; per field, ``stated`` and
    ``agree`` masks over those rows (and optional ``kinds`` of disagreement). The game
    object behind it answers the questions the run asks about variants and reasons.
    """

    mode: str
    rows: npt.NDArray[np.int64]
    bad_rows: npt.NDArray[np.int64]
    messages: dict[int, str]
    stated: dict[str, npt.NDArray[np.bool_]]
    agree: dict[str, npt.NDArray[np.bool_]]
    kinds: dict[str, dict[str, npt.NDArray[np.bool_]]]
    variant_agree: Callable[[Any, npt.NDArray[np.int64]], npt.NDArray[np.bool_]]
    record: Callable[[int], dict[str, Any]]
    interesting: npt.NDArray[np.bool_]
    keys: Keys | None = None
    """What an agreeing row's diagnosis depends on, when the checker can say (``None``:
    every row is scored on its own); see :class:`Keys`."""
    claims: dict[str, npt.NDArray[Any]] | None = None
    """Per stated field, the values claimed (where ``stated``), as the checker reads them."""

    @property
    def disagree(self) -> npt.NDArray[np.bool_]:
        out = np.zeros(len(self.rows), dtype=bool)
        for f, st in self.stated.items():
            out |= st & ~self.agree[f]
        return out


@dataclass(frozen=True)
class Keys:
    """The rows of a group as keys, so that agreeing rows are counted, not scored one
    by one (:mod:`solver.kit.scoring`).

    ``of[i]`` is row ``i``'s key in ``range(space)``, or -1 for a row scored on its own
    (a claim the key does not hold, such as a claimed bull). The promise: a row with
    key ``k`` whose stated fields are ``F`` is agreed with by exactly the variants that
    agree with row 0 of ``rows(np.array([k]), F, claims)`` — a group of one row per
    key, claiming on the fields ``F`` the values ``claims`` (default: our own answers,
    an agreeing row) — and has its ``interesting`` flag, its atoms
    (``record.atom_counts``, ``record.lost_counts``) and whether it disagrees. A key is
    ``shape * order + o``: the variants that do not depend on the order the items were
    written (``Variant.order`` empty), ``interesting`` and the atoms depend on the
    shape alone; with ``order == 1`` the key knows nothing of the written order, and
    variants that depend on it are scored row by row.
    """

    of: npt.NDArray[np.int64]
    space: int
    rows: Callable[..., Checked]
    """``rows(keys, fields, claims=None)``: a group of one row per key (above)."""
    order: int = 1
    agree: Callable[..., tuple[Mask, Mask] | None] | None = None
    """``agree(variant, keys, fields)``, when the checker can say it from the keys alone
    (without making the group of :attr:`rows`): per key, whether ``variant`` agrees with
    that group's row (our answers claimed on ``fields``), and the row's ``interesting``
    flag; ``None`` for a variant it cannot (the group's rows are scored instead)."""
    atoms: Callable[..., Any] | None = None
    """``atoms(keys, fields, weight)``, when the checker can say it from the keys alone:
    the atom counts (:mod:`solver.kit.learn`) of the group of :attr:`rows` of ``keys``
    (agreeing rows stating ``fields``), row ``i`` counted ``weight[i]`` times — what
    :func:`~solver.kit.keycounts.weighted_atoms` makes of that group, without it."""


class Gathered:
    """``column[at[i]]``, read one row at a time (``[i]``) for the few rows whose records
    are written, instead of the whole gather; ``column`` may be a function that gives the
    column, called when a row is first read (a table column read only if needed), and
    ``at`` a sequence that works out each index when it is read.

    >>> g = Gathered(lambda: np.array([10, 20, 30]), np.array([2, 0]))
    >>> g[0], g[1]
    (np.int64(30), np.int64(10))
    """

    def __init__(
        self,
        column: npt.NDArray[Any] | Callable[[], npt.NDArray[Any]],
        at: npt.NDArray[np.integer] | Sequence[int],
    ) -> None:
        self.column = column
        self.at = at

    def __getitem__(self, i: int) -> Any:
        col = self.column() if callable(self.column) else self.column
        return col[self.at[i]]


class AgreeingAtoms:
    """A group's ``record(i)`` that also counts agreeing rows by the atom set of their
    records, vectorised (``atom_counts(rows)``, see :mod:`solver.kit.learn`)."""

    def __init__(
        self,
        record: Callable[[int], dict[str, Any]],
        atom_counts: Callable[[npt.NDArray[np.int64]], Any],
    ) -> None:
        self.record = record
        self.atom_counts = atom_counts

    def __call__(self, i: int) -> dict[str, Any]:
        return self.record(i)


class LostAtoms(AgreeingAtoms):
    """An :class:`AgreeingAtoms` whose ``counts(rows, lost)`` also counts disagreeing
    rows by atom set, their wrong claims included (``lost_counts(rows)``): the counts
    their records give, without a record per row."""

    def __init__(self, record: Callable[[int], dict[str, Any]], counts: Callable[..., Any]) -> None:
        super().__init__(record, counts)
        self._counts = counts

    def lost_counts(self, rows: npt.NDArray[np.int64]) -> Any:
        return self._counts(rows, True)


class Checker(Protocol):
    """What a game's verify checker provides to the game-blind verify engine: the
    fields each row kind can claim, its rule set and diagnosis variants, and the batch
    checks. One per game (``solver.games.<game>.verify``)."""

    game: str
    fields: ClassVar[dict[str, tuple[str, ...]]]
    variants: list[Variant]

    @property
    def rules(self) -> RuleSet: ...

    @property
    def ahead(self) -> Mapping[str, Callable[[pa.Array], Any]]:
        """The parses of a hand row's columns, by field, that :meth:`check_hands` takes
        made ahead when its columns are :class:`Columns`."""
        ...

    def prepare(self) -> None: ...

    def check_hands(self, cols: Mapping[str, pa.Array]) -> Checked: ...

    def check_showdowns(self, cols: Mapping[str, pa.Array]) -> Checked: ...


def empty_messages(hands: Hands, kind: str) -> dict[int, str]:
    """The parse messages, plus "empty" for rows that state no hand at all."""
    out = dict(hands.messages)
    for i in np.flatnonzero(~hands.stated)[:MAX_LISTED].tolist():
        out[i] = f"{kind}: empty"
    return out


def merge_bad(n: int, parts: Sequence[Part]) -> tuple[Mask, dict[int, str]]:
    """Rows malformed for any reason, each with the first reason's message."""
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    for mask, msgs in parts:
        bad |= mask
        for i, m in msgs.items():
            messages.setdefault(i, m)
    for i in np.flatnonzero(bad)[:MAX_LISTED].tolist():
        messages.setdefault(i, "malformed")
    return bad, messages


def blank(columns: Mapping[str, pa.Array], n: int) -> npt.NDArray[np.bool_]:
    """Rows where every mapped column is empty or white space (e.g. a blank CSV line):
    ignored. A value whose first byte cannot be, or begin, white space is not blank (one
    byte read per row, :func:`_solid`); only the rows no column so rules out are trimmed.

    >>> blank({"a": pa.array(["x", "", " ", None]), "b": pa.array(["", "", "\t", None])}, 4)
    array([False,  True,  True,  True])
    """
    empty = np.ones(n, dtype=bool)
    text = []
    for arr in columns.values():
        if not empty.any():
            return empty
        if not is_text(arr.type):
            empty &= nulls(arr)
        else:
            empty &= ~_solid(arr)
            text.append(arr)
    rows = np.flatnonzero(empty)
    if len(rows):
        idx = arrow_ints(rows)
        for arr in text:
            empty[rows] &= ~nonempty(pc.utf8_trim_whitespace(pc.take(arr, idx)))
    return empty


_SPACE_BYTE = np.zeros(256, dtype=bool)
_SPACE_BYTE[[*b" \t\n\r\v\f", *range(0x1C, 0x20), *range(0x80, 0x100)]] = True
"""Bytes that may be, or begin, white space to ``utf8_trim_whitespace``."""


def _solid(arr: pa.Array) -> npt.NDArray[np.bool_]:
    """Rows of a text column whose first byte cannot be, or begin, white space: their
    trimmed value is not empty (a null, an empty value: false).

    >>> _solid(pa.array(["x", " x", "", None, "\u00e9"])).tolist()
    [True, False, False, False, False]
    """
    got = text_bytes(arr)
    if got is None:
        return np.zeros(len(arr), dtype=bool)
    off, data = got
    some = off[1:] > off[:-1]
    first = np.take(data, np.minimum(off[:-1], len(data) - 1))
    return some & ~_SPACE_BYTE[first] & ~nulls(arr)


def take(columns: Mapping[str, pa.Array], rows: npt.NDArray[np.int64]) -> dict[str, pa.Array]:
    """The ``rows`` of every column (the columns themselves when that is all of them)."""
    if all(len(rows) == len(v) for v in columns.values()) and np.array_equal(
        rows, np.arange(len(rows))
    ):
        return dict(columns)
    idx = arrow_ints(rows)
    return {k: pc.take(v, idx) for k, v in columns.items()}


# ---------------------------------------------------------------- claims


def read_claims(
    cols: Mapping[str, pa.Array], parsers: Mapping[str, Callable[[pa.Array], Parsed]]
) -> dict[str, Parsed]:
    """The claim columns present in ``cols``, parsed (in the order of ``parsers``; a
    parse made ahead is taken, :func:`parsed`)."""
    return {f: parsed(cols, f, parse) for f, parse in parsers.items() if f in cols}


class Columns(dict[str, pa.Array]):
    """A group's columns with what was made of them ahead of need: :attr:`made`, field
    → a checker's parse (:attr:`Checker.ahead`) of that very column, made by the reader
    thread while the groups before were checked (:func:`read_ahead`); :attr:`codes`,
    field → the column as places in a dictionary (:attr:`~solver.kit.columns.Chunk.codes`),
    whose parse is the dictionary's (:func:`parse_coded`)."""

    def __init__(
        self,
        columns: Mapping[str, pa.Array],
        made: Mapping[str, Any],
        codes: Mapping[str, tuple[npt.NDArray[np.int64], pa.Array]] | None = None,
    ) -> None:
        super().__init__(columns)
        self.made = made
        self.codes = codes or {}


def parsed(cols: Mapping[str, pa.Array], name: str, parse: Callable[[pa.Array], T]) -> T:
    """``parse(cols[name])``, or the same made ahead, or made of the column's dictionary
    (:class:`Columns`).

    >>> cols = Columns({"points": pa.array(["7"])}, {"points": "made"})
    >>> parsed(cols, "points", len), parsed(dict(cols), "points", len)
    ('made', 1)
    """
    made: Mapping[str, Any] = getattr(cols, "made", {})
    if name in made:
        return made[name]  # type: ignore[no-any-return]
    codes = getattr(cols, "codes", {})
    if name in codes:
        got = parse_coded(parse, *codes[name])
        if got is not None:
            return got
    return parse(cols[name])


def parse_coded(
    parse: Callable[[pa.Array], T], at: npt.NDArray[np.int64], values: pa.Array
) -> T | None:
    """What ``parse`` makes of the column whose row ``i`` is ``values[at[i]]`` (a null
    past the end), made of the dictionary ``values`` alone (and a null) — a claim's
    parse reads each row alone — then each row's taken; ``None`` when the parse is no
    claim's (:class:`~solver.kit.parse.Parsed`) or names fewer bad values than there are.

    >>> from solver.kit.parse import parse_int
    >>> points = lambda a: parse_int(a, "points")
    >>> got = parse_coded(points, np.array([1, 0, 2, 1]), pa.array(["7", "x"]))
    >>> got.value.tolist(), got.stated.tolist(), got.bad.tolist()
    ([0, 7, 0, 0], [False, True, False, False], [True, False, False, True])
    >>> got.messages
    {0: "points 'x': expected an integer", 3: "points 'x': expected an integer"}
    """
    got = parse(pa.concat_arrays([values, pa.nulls(1, values.type)]))
    if not isinstance(got, Parsed) or int(got.bad.sum()) > len(got.messages):
        return None
    bad = np.take(got.bad, at)
    messages = {i: got.messages[int(at[i])] for i in np.flatnonzero(bad)[:MAX_LISTED].tolist()}
    return Parsed(np.take(got.value, at), np.take(got.stated, at), bad, messages)  # type: ignore[return-value]


def read_ahead(
    columns: Mapping[str, pa.Array],
    parsers: Mapping[str, Callable[[pa.Array], Any]],
    codes: Mapping[str, tuple[npt.NDArray[np.int64], pa.Array]] | None = None,
) -> dict[str, Any]:
    """Each column's parse (``parsers``: by field), for :class:`Columns` (of the
    column's dictionary, for a field in ``codes``); a parse that fails is left to be
    made, and to fail, where it is needed."""
    made = {}
    cols = Columns(columns, {}, codes)
    for name, parse in parsers.items():
        if name in columns:
            try:
                made[name] = parsed(cols, name, parse)
            except Exception:  # made again where needed, and raised there
                continue
    return made


def claim_parts(claims: Mapping[str, Parsed]) -> list[Part]:
    """The malformed rows of each claim column."""
    return [(p.bad, p.messages) for p in claims.values()]


def claim_rows(
    claims: Mapping[str, Parsed], rows: npt.NDArray[np.int64]
) -> tuple[dict[str, Mask], dict[str, npt.NDArray[Any]]]:
    """``(stated, value)`` per claimed field, over the well-formed ``rows`` (increasing:
    as many as the column's rows, they are all of them, and the arrays are not copied)."""
    if all(len(rows) == len(p.value) for p in claims.values()):
        return {f: p.stated for f, p in claims.items()}, {f: p.value for f, p in claims.items()}
    return (
        {f: p.stated[rows] for f, p in claims.items()},
        {f: p.value[rows] for f, p in claims.items()},
    )


def equal_fields(
    cv: Mapping[str, npt.NDArray[Any]],
    answers: Mapping[str, Any],
    sel: Any,
    keys: Mapping[str, str],
) -> dict[str, Mask]:
    """Claims right when equal to our answer: field → the answer's key."""
    return {f: cv[f][sel] == answers[k] for f, k in keys.items() if f in cv}


def variant_agreement(
    answers: Callable[[Any, npt.NDArray[np.int64]], Mapping[str, Any]],
    agree: Agree,
    stated: Mapping[str, Mask],
) -> Callable[[Any, npt.NDArray[np.int64]], Mask]:
    """``variant_agree(variant, sel)``: the rows ``sel`` on which every stated claim
    equals the variant's answer (``answers(variant, sel)``)."""

    def variant_agree(variant: Any, sel: npt.NDArray[np.int64]) -> Mask:
        ok = np.ones(len(sel), dtype=bool)
        for f, m in agree(answers(variant, sel), sel).items():
            ok &= ~stated[f][sel] | m
        return ok

    return variant_agree


def differing(stated: Mapping[str, Mask], agree: Mapping[str, Mask], i: int) -> list[str]:
    """The fields row ``i`` states and gets wrong."""
    return [f for f in stated if stated[f][i] and not agree[f][i]]


# ---------------------------------------------------------------- showdowns


@dataclass
class Showdowns:
    """A batch of showdown rows read: both hands, the claims, why rows are malformed."""

    player: Hands
    banker: Hands
    claims: dict[str, Parsed]
    parts: list[Part] = field(default_factory=list)


def read_showdowns(
    cols: Mapping[str, pa.Array],
    parse: Callable[[pa.Array, tuple[int, ...], str], Hands],
    sizes: tuple[int, ...],
    banker: str = "banker",
) -> Showdowns:
    """The ``player`` and ``banker`` hands (the other side named ``banker`` in messages)
    and the ``winner`` and ``net`` claims."""
    p = parse(cols["player"], sizes, "player")
    b = parse(cols["banker"], sizes, banker)
    claims = read_claims(
        cols,
        {
            "winner": lambda a: parse_label(a, "winner", WINNER_LABELS),
            "net": lambda a: parse_float(a, "net"),
        },
    )
    parts: list[Part] = [(p.bad | ~p.stated, p.messages), (b.bad | ~b.stated, b.messages)]
    return Showdowns(p, b, claims, [*parts, *claim_parts(claims)])


def one_deck(player: Hands, banker: Hands, pad: int, copies: int = 1) -> Part:
    """Rows whose two hands share a card (both are dealt from one deck), or, from a shoe
    of ``copies`` decks, hold a card more often than the shoe does."""
    from solver.core.cards import CARD_NAMES
    from solver.core.shoe import multiplicities

    pi, bi = player.ids.astype(np.int64), banker.ids.astype(np.int64)
    if copies > 1:
        both = np.concatenate([pi, bi], axis=1)
        ok = ~player.bad & ~banker.bad & player.stated & banker.stated
        count = multiplicities(both)  # pads count each other, and are masked out
        over = ((count > copies) & (both != pad)).any(axis=1) & ok
        messages = {}
        for i in np.flatnonzero(over)[:MAX_LISTED].tolist():
            j = int(np.flatnonzero((count[i] > copies) & (both[i] != pad))[0])
            messages[i] = (
                f"card {CARD_NAMES[both[i, j]]} appears {int(count[i, j])} times in the two "
                f"hands; a {copies}-deck shoe holds {copies}"
            )
        return over, messages
    overlap = ((pi[:, :, None] == bi[:, None, :]) & (pi[:, :, None] != pad)).any(axis=(1, 2))
    overlap &= ~player.bad & ~banker.bad & player.stated & banker.stated
    messages = {}
    for i in np.flatnonzero(overlap)[:MAX_LISTED].tolist():
        shared = sorted(set(pi[i].tolist()) & set(bi[i].tolist()))
        messages[i] = f"card {CARD_NAMES[shared[0]]} is in both hands (one deck)"
    return overlap, messages


def showdown_agree(cv: Mapping[str, npt.NDArray[Any]]) -> Agree:
    """``winner`` claims right when equal, ``net`` ones within 1e-6 of our answer."""

    def agree(a: Mapping[str, Any], sel: Any = slice(None)) -> dict[str, Mask]:
        out = equal_fields(cv, a, sel, {"winner": "winner"})
        if "net" in cv:
            out["net"] = np.abs(cv["net"][sel] - a["net"]) <= 1e-6
        return out

    return agree


def showdown_claims(
    i: int,
    stated: Mapping[str, Mask],
    cv: Mapping[str, npt.NDArray[Any]],
    agree: Mapping[str, Mask],
    winners: Sequence[str],
) -> tuple[dict[str, Any], list[str], str]:
    """Row ``i``'s claims (``winners`` names the sides), the fields it gets wrong, and
    the wrong claims in words (``"banker, net -1"``)."""
    claimed = {
        f: (winners[int(cv[f][i])] if f == "winner" else float(cv[f][i]))
        for f in stated
        if stated[f][i]
    }
    fields = differing(stated, agree, i)
    said = ", ".join(f"net {claimed[f]:+g}" if f == "net" else str(claimed[f]) for f in fields)
    return claimed, fields, said
