"""The ``values`` claims of Tau Ngau hand rows for ``bull verify``: what a [2:1] or
[4:2] is worth, written as JSON (``{"[4:2]": 6}``) or as pairs (``[4:2]=6 [2:1]=3``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver.core.errors import BullError
from solver.kit.parse import NONE_WORDS, is_text, show
from solver.kit.read import MAX_LISTED

__all__ = ["parse_values"]


def parse_values(
    arr: pa.Array,
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    dict[int, str],
]:
    """The ``values`` claims ({"[4:2]": 6}, ``[4:2]=6 [2:1]=3``): per row a mask of the
    wild tiles whose value is stated, their bits (6 = 1; bit 0 [2:1], bit 1 [4:2]),
    stated and bad rows."""
    n = len(arr)
    mask = np.zeros(n, dtype=np.int64)
    bits = np.zeros(n, dtype=np.int64)
    stated = np.zeros(n, dtype=bool)
    bad = np.zeros(n, dtype=bool)
    messages: dict[int, str] = {}
    cache: dict[str, tuple[int, int] | str] = {}
    text = (
        arr
        if is_text(arr.type)
        else pc.cast(arr, pa.string())
        if not (pa.types.is_struct(arr.type) or pa.types.is_map(arr.type))
        else None
    )
    for i in range(n):
        raw = arr[i].as_py() if text is None else text[i].as_py()
        if raw is None:
            continue
        key = json.dumps(raw, sort_keys=True) if not isinstance(raw, str) else raw
        if not key.strip() or key.strip().lower() in (*NONE_WORDS, "{}"):
            continue
        got = cache.get(key)
        if got is None:
            got = _values_of(raw)
            cache[key] = got
        stated[i] = True
        if isinstance(got, str):
            bad[i] = True
            if len(messages) < MAX_LISTED:
                messages[i] = f"values {show(raw)}: {got}"
            continue
        mask[i], bits[i] = got
    return mask, bits, stated, bad, messages


def _values_of(raw: Any) -> tuple[int, int] | str:
    from solver.core.tiles import parse_tile
    from solver.games.taungau.hands import WILD_TILES

    items: list[tuple[str, Any]]
    if isinstance(raw, str):
        s = raw.strip()
        if s.startswith("{"):
            try:
                obj = json.loads(s)
            except ValueError:
                return "not valid JSON"
            if not isinstance(obj, dict):
                return 'expected an object like {"[4:2]": 6}'
            items = list(obj.items())
        else:
            items = []
            for part in re.split(r"[\s,;]+", s):
                if not part:
                    continue
                if "=" not in part:
                    return "expected TILE=3|6 pairs, e.g. [4:2]=6"
                k, v = part.split("=", 1)
                items.append((k, v))
    elif isinstance(raw, dict):
        items = list(raw.items())
    else:
        return 'expected an object like {"[4:2]": 6} or [4:2]=6'
    mask = bits = 0
    for k, v in items:
        if v is None:
            continue
        try:
            tile = parse_tile(str(k))
        except BullError as exc:
            return str(exc)
        if tile not in WILD_TILES:
            return f"{k} is not [2:1] or [4:2]: only those take a 3/6 value"
        b = WILD_TILES.index(tile)
        if str(v).strip() not in ("3", "6"):
            return f"the value of {k} must be 3 or 6, not {v!r}"
        mask |= 1 << b
        bits |= (str(v).strip() == "6") << b
    return mask, bits
