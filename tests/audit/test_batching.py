"""The audit's result does not depend on how the rows come in: batch sizes, a round
cut across batches, worker threads (when the examples listed are not cut short by
their limit, which keeps the first of the rows). And the Niu Niu exact figures are cached on disk
and read back to the same values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.audit.batch import Auditor
from solver.audit.deal import deal
from solver.audit.partial import Partial
from solver.audit.spec import load_spec


def _log(tmp_path: Path) -> pa.Table:
    path = tmp_path / "log.parquet"
    deal("niuniu", 1500, players=3, seed=5, out=str(path), hand_format="ids")
    t = pq.read_table(path).select(["round", "role", "hand", "result", "net", "table"])
    t = t.rename_columns(["round", "role", "hand", "result", "net", "by:table"])
    rows = t.to_pylist()
    for i in range(0, len(rows), 53):  # malformed and impossible rows, and wrong claims
        r = rows[i]
        k = i % 5
        if k == 0:
            r["role"] = "croupier"
        elif k == 1:
            r["hand"] = r["hand"][:4]
        elif k == 2:
            r["hand"] = [r["hand"][0], *r["hand"][:4]]
        elif k == 3:
            r["net"] = 7.5
        else:
            r["result"] = "perhaps"
    return pa.Table.from_pylist(rows, schema=t.schema)


def _summary(raw: Partial) -> dict[str, Any]:
    p = Partial()
    p.merge(raw)  # as `bull audit` reports it: the examples in order of their key
    groups = {
        k: (g.rows, g.rounds, g.banker.tolist(), g.player.tolist(), g.unit.tolist(),
            g.outcome.tolist(), g.m_sum, g.m_sq)
        for k, g in sorted(p.groups.items())
    }  # fmt: skip
    return {
        "counts": (p.rows, p.rounds, p.malformed, p.impossible, p.settled, p.disagree),
        "fields": p.fields,
        "groups": groups,
        "malformed_rows": p.malformed_rows,
        "impossible_rows": p.impossible_rows,
        "disagree_rows": p.disagree_rows,
    }


def test_batches_and_threads_do_not_change_the_result(tmp_path: Path) -> None:
    t = _log(tmp_path)
    spec = load_spec("niuniu", None, {}, None)
    results = []
    # (blocks: a batch's whole rounds audited in blocks of about this many rows)
    for size, workers, block in [(len(t), 1, len(t)), (29, 1, 1 << 18), (500, 2, 40),
                                 (1001, 3, 100)]:  # fmt: skip
        a = Auditor(spec, ["table"], workers=workers, block_rows=block)
        part = a.run(t.to_batches(max_chunksize=size))
        results.append(_summary(part))
    first = results[0]
    assert first["counts"][0] == len(t) and first["counts"][2] > 0 and first["counts"][3] > 0
    assert first["counts"][5] > 0 and set(first["fields"]) == {"winner", "net"}
    assert all(r == first for r in results[1:])


def test_rounds_going_backwards_across_batches_are_refused(tmp_path: Path) -> None:
    from solver.audit.batch import NotInRoundOrder

    spec = load_spec("niuniu", None, {}, None)
    hand = pa.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], pa.list_(pa.uint8()))
    b1 = pa.table({"round": [2, 2], "role": ["banker", "player"], "hand": hand})
    b2 = pa.table({"round": [1, 1], "role": ["banker", "player"], "hand": hand})
    with pytest.raises(NotInRoundOrder):
        Auditor(spec, []).run([b1, b2])


def test_exact_figures_are_cached_and_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from solver.games.niuniu import audit as nn

    first = load_spec("niuniu", None, {}, None)
    calls = []
    real = nn._compute_figures

    def counting(*args: Any) -> dict[str, Any]:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(nn, "_compute_figures", counting)
    monkeypatch.setattr(nn, "_FIGURES", {})  # a new process: only the file is left
    again = load_spec("niuniu", None, {}, None)
    assert calls == [] and again.expected == first.expected and again.outcome == first.outcome
    assert sum(first.expected) == 1 and first.labels[0] == "no_bull"


@given(
    st.lists(st.integers(0, 255), max_size=41),
    st.integers(0, 300),
    st.sampled_from(["flat", "rows", "cut"]),
)
@settings(max_examples=200, deadline=None)
def test_byte_counts_are_numpys_bincount(values: list[int], minlength: int, shape: str) -> None:
    """The pairwise count of bytes (a quarter of bincount's time on dealt cards) gives
    bincount's counts and length: any length (odd: a byte left over), any minlength,
    a block of rows or a column cut from one (not contiguous)."""
    import numpy as np

    from solver.audit.batch import byte_counts

    x = np.array(values, dtype=np.uint8)
    if shape != "flat" and len(x) >= 4:
        x = x[: len(x) - len(x) % 2].reshape(-1, 2)
        x = x if shape == "rows" else x[:, 0]
    got = byte_counts(x.ravel(), minlength, pairs_from=2)  # (the pairs, however few)
    want = np.bincount(x.ravel(), minlength=minlength)
    assert got.dtype == np.int64 and got.tolist() == want.tolist()
