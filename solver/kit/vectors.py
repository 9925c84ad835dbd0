"""What the games' conformance vectors share: the seeded pool the situations and catches
are searched in, the catch search itself (:func:`find_catches`: for every variant the
diagnosis knows, a vector on which it answers differently) and the summary of what the
vectors cover (:func:`finish`). The games' vectors are in :mod:`solver.games.niuniu.vectors`,
:mod:`solver.games.taungau.vectors` and :mod:`solver.games.pokdeng.vectors`; :mod:`solver.vectors`
is the command.

>>> rng = np.random.default_rng(1)
>>> d = deal(rng, 3, 5)
>>> d.shape, bool((np.sort(d, axis=1)[:, 1:] != np.sort(d, axis=1)[:, :-1]).all())
((3, 5), True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "POOL",
    "POOL_SEED",
    "Differs",
    "Tag",
    "deal",
    "differ",
    "differs_from",
    "find_catches",
    "finish",
    "mark_differs",
    "names",
    "parse",
    "tag_in",
    "tag_pool",
]

POOL = 20_000
"""Random hands (and deals) searched, with a fixed seed, for situations and catches."""
POOL_SEED = 20_260_601


def names(cards: Sequence[int] | npt.NDArray[Any]) -> list[str]:
    """The names of cards (our encoding)."""
    from solver.core.cards import CARD_NAMES

    return [CARD_NAMES[int(c)] for c in cards]


def parse(text: str) -> list[int]:
    """The cards written in ``text``."""
    from solver.core.cards import parse_cards

    return parse_cards(text)


def deal(rng: np.random.Generator, n: int, k: int, deck: int = 52) -> npt.NDArray[np.uint8]:
    """``n`` rows of ``k`` distinct cards (or tiles, of a ``deck`` of 32), in random order."""
    return np.argsort(rng.random((n, deck)), axis=1)[:, :k].astype(np.uint8)


Differs = Callable[[Any], npt.NDArray[np.bool_]]
"""``differs(variant)``: the rows of a set of vectors on which the variant's answer
differs from ours."""
Tag = Callable[[int, str], None]
"""``tag(row, tag)``: mark a row of a set of vectors (adding it to the set written)."""


def find_catches(
    variants: Sequence[Any],
    mode: str,
    catches: dict[str, str],
    tiers: Sequence[tuple[Differs, Tag]],
) -> None:
    """For every variant of ``mode`` not caught yet, a vector that catches it: the first
    row on which it differs, in the first of the ``tiers`` (hand-picked vectors, then a
    pool) that has one, is tagged ``catches:KEY``; ``catches`` records it."""
    for v in variants:
        if mode not in v.modes or v.key in catches:
            continue
        for differs, tag in tiers:
            hit = np.flatnonzero(differs(v))
            if len(hit):
                tag(int(hit[0]), f"catches:{v.key}")
                catches[v.key] = mode
                break


def differ(
    a: Mapping[str, Any], base: Mapping[str, Any], exact: Sequence[str], close: Sequence[str] = ()
) -> npt.NDArray[np.bool_]:
    """Rows where the answers ``a`` differ from ``base``: in a key of ``exact``, or by more
    than 1e-9 in a key of ``close``."""
    out = np.zeros(len(base[(*exact, *close)[0]]), dtype=bool)
    for k in exact:
        out |= np.asarray(a[k] != base[k], dtype=bool)
    for k in close:
        out |= np.asarray(np.abs(a[k] - base[k]) > 1e-9, dtype=bool)
    return out


def differs_from(
    answers: Callable[..., Mapping[str, Any]],
    args: Sequence[Any],
    base: Mapping[str, Any],
    exact: Sequence[str],
    close: Sequence[str] = (),
) -> Differs:
    """The ``differs`` of a set of vectors: ``answers(*args, variant)`` (a diagnosis
    evaluator) against our answers ``base``, compared as in :func:`differ`."""
    return lambda v: differ(answers(*args, v), base, exact, close)


def mark_differs(
    records: list[dict[str, Any]],
    positions: Sequence[int],
    variants: Sequence[Any],
    mode: str,
    differs: Differs,
) -> None:
    """Every house-rule variant (not a mistake) of ``mode`` under which a row answers
    differently: its key is added to ``differs_under`` of the record at
    ``positions[row]`` (the flags of a vectors document)."""
    for v in variants:
        if v.mistake is not None or mode not in v.modes:
            continue
        for j in np.flatnonzero(differs(v)).tolist():
            records[positions[j]].setdefault("differs_under", []).append(v.key)


def tag_in(tags: list[list[str]]) -> Tag:
    """Tag rows that are all written already (hand-picked vectors)."""
    return lambda j, t: tags[j].append(t)


def tag_pool(chosen: dict[int, list[str]]) -> Tag:
    """Tag rows of a pool, choosing them for writing."""
    return lambda j, t: chosen.setdefault(j, []).append(t)


def finish(
    records: list[dict[str, Any]],
    game: str,
    rules: str,
    seed: int,
    sample: int,
    variants: Sequence[Any],
    catches: dict[str, str],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The vectors numbered (``id`` ``GAME-0001``...) and their coverage summary (with
    ``catalogue``: every variant's key to its kind, ``rule`` or ``mistake``, and its
    description; the command keeps it out of the printed summary)."""
    for i, rec in enumerate(records):
        rec["id"] = f"{game}-{i + 1:04d}"
    uncaught = [v.key for v in variants if v.key not in catches]
    tags: Counter[str] = Counter(t for rec in records for t in rec["tags"])
    kinds = Counter(rec["kind"] for rec in records)
    return records, {
        "game": game,
        "rules": rules,
        "vectors": len(records),
        "hand_vectors": kinds["hand"],
        "showdown_vectors": kinds["showdown"],
        "seed": seed,
        "sample": sample,
        "tags": dict(sorted(tags.items())),
        "variants_caught": sorted(catches),
        "uncaught_variants": uncaught,
        "catalogue": {
            v.key: ["mistake" if v.mistake is not None else "rule", v.description] for v in variants
        },
    }
