"""A block of rounds all alike is audited as a grid (solver/audit/uniform.py): the same
partial as the general path's, which works from row indices, on the same rows; and
blocks that are not alike (or hold a bad row, an impossible deal) go the general way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.audit import uniform
from solver.audit.batch import Auditor
from solver.audit.deal import deal
from solver.audit.partial import Partial
from solver.audit.spec import load_spec


def _log(tmp_path: Path, seed: int, players: int, bias: dict[str, float]) -> pa.Table:
    path = tmp_path / f"log{seed}.parquet"
    deal("niuniu", 400, players=players, seed=seed, out=str(path), hand_format="ids", bias=bias)
    t = pq.read_table(path).select(["round", "role", "hand", "result", "net"])
    return t.set_column(1, "role", t.column("role").cast(pa.string()))


def _banker_at(t: pa.Table, j: int, m: int) -> pa.Table:
    """The rows of each round (``m`` of them, banker first) with the banker moved to
    row ``j`` of the round."""
    order = np.arange(t.num_rows).reshape(-1, m)
    seats = [*range(1, j + 1), 0, *range(j + 1, m)]
    return t.take(pa.array(order[:, seats].reshape(-1)))


def _everything(p: Partial) -> dict[str, Any]:
    g = {
        k: (c.rows, c.rounds, c.banker.tolist(), c.player.tolist(), c.unit.tolist(),
            c.outcome.tolist(), c.m_sum, c.m_sq, c.net, c.held_rows, c.held_pairs, c.held_micro)
        for k, c in p.groups.items()
    }  # fmt: skip
    agree = pa.concat_tables(p.agree_rows).to_pylist() if p.agree_rows else []
    return {
        "counts": (p.rows, p.rounds, p.malformed, p.impossible, p.settled, p.disagree),
        "fields": p.fields,
        "groups": g,
        "rows": (p.malformed_rows, p.impossible_rows, p.disagree_rows, agree, p.most_copies),
    }


def _both(t: pa.Table, batch: int, spy: list[int], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    spec = load_spec("niuniu", None, {}, None)
    real = uniform.audit_uniform

    def counted(*args: Any) -> Partial | None:
        out = real(*args)
        spy.append(out is not None)
        return out

    monkeypatch.setattr("solver.audit.batch.audit_uniform", counted)
    out, tried = [], 0
    for fast, bits in ((True, 1), (True, 1 << 30), (False, 1)):  # cards counted by their
        monkeypatch.setattr(uniform, "BITS_FROM", bits)  # bits, and one by one
        out.append(_everything(Auditor(spec, [], fast=fast).run(t.to_batches(max_chunksize=batch))))
        tried = tried or len(spy)
    del spy[tried:]  # (the blocks of one run)
    assert out[0] == out[1]
    return out[1:]


@pytest.mark.parametrize(("players", "banker_row"), [(4, 0), (2, 2), (1, 1), (3, 1)])
def test_a_grid_of_rounds_gives_the_general_paths_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int, banker_row: int
) -> None:
    bias = {"errors": 0.05, "skim": 0.1}  # claims that disagree: wrong winners and nets
    t = _banker_at(_log(tmp_path, players, players, bias), banker_row, players + 1)
    # a null net and a result the SQL would not code (parsed): still a grid
    net = t.column("net").to_pylist()
    res = t.column("result").to_pylist()
    p = next(i for i in range(t.num_rows) if res[i] is not None)
    net[p] = None
    res[p + (players + 1)] = " Won"
    t = t.set_column(4, "net", pa.array(net, pa.float64()))
    t = t.set_column(3, "result", pa.array(res, pa.string()))
    spy: list[int] = []
    fast, general = _both(t, 137 * (players + 1), spy, monkeypatch)
    assert spy and all(spy)  # every block went the grid's way
    assert fast == general
    counts = fast["counts"]
    assert counts[0] == t.num_rows and counts[1] == 400 and counts[5] > 0
    assert fast["groups"][""][9] == 400 * players  # every player row's net held


@pytest.mark.parametrize(("players", "banker_row"), [(4, 0), (3, 2)])
def test_claims_that_all_agree_are_counted_from_the_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, players: int, banker_row: int
) -> None:
    """Past the agreeing rows kept for the diagnosis, a grid whose every claim is stated
    and agrees is counted from the settlement's cells (no row looked at): the general
    path's partial; a null net or a wrong result in a block sends that block to the
    row by row re-check (the same partial still)."""
    monkeypatch.setattr("solver.audit.batch.MAX_AGREE_ROWS", 0)
    agreed: list[bool] = []
    real = uniform._claims_agree

    def spy(*args: Any) -> bool:
        agreed.append(real(*args))
        return agreed[-1]

    monkeypatch.setattr(uniform, "_claims_agree", spy)

    def coded(t: pa.Table) -> pa.Table:  # the result's codes, as the Parquet read gives them
        from solver.audit.duckdb_engine import CODE_VALUES, CODED
        from solver.audit.ranges import code_labels

        codes = code_labels(t.column("result").combine_chunks(), CODED["result"],
                            CODE_VALUES["result"])  # fmt: skip
        return t.add_column(3, "result#", codes)

    t = _banker_at(_log(tmp_path, 11, players, {}), banker_row, players + 1)
    batch = 50 * (players + 1)
    fast, general = _both(coded(t), batch, [], monkeypatch)
    assert fast == general and agreed and all(agreed)
    assert fast["counts"][4] == 400 * players and fast["counts"][5] == 0  # settled, disagree
    net, res = t.column("net").to_pylist(), t.column("result").to_pylist()
    p = next(i for i in range(t.num_rows) if res[i] is not None)  # a player row
    net[p], res[p + 3 * batch] = None, ("loss" if res[p + 3 * batch] == "win" else "win")
    t = t.set_column(4, "net", pa.array(net, pa.float64()))
    t = t.set_column(3, "result", pa.array(res, pa.string()))
    del agreed[:]
    fast, general = _both(coded(t), batch, [], monkeypatch)
    assert fast == general and fast["counts"][5] == 1
    assert agreed.count(False) == 2 * 2 and agreed.count(True)  # (two runs of the grid)


def test_blocks_not_alike_go_the_general_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = _log(tmp_path, 9, 3, {})
    more = _log(tmp_path, 3, 2, {}).slice(0, 30)  # rounds of 3 rows after rounds of 4
    more = more.set_column(0, "round", pc.add(more.column("round"), 10_000))
    rows = t.to_pylist()
    rows[41]["hand"] = list(rows[40]["hand"])  # an item twice in a round
    twice = pa.Table.from_pylist(rows, schema=t.schema)
    rows[41]["hand"] = t.column("hand")[41].as_py()
    rows[403]["role"] = "croupier"  # a malformed row
    bad = pa.Table.from_pylist(rows, schema=t.schema)
    for log, tried, found in [
        (twice, [False], (0, 1)),  # tried, given up at the impossible deal
        (bad, [], (1, 0)),  # (one batch: one block, the last round held back in it)
        (pa.concat_tables([t, more]).combine_chunks(), [], (0, 0)),
    ]:
        spy: list[int] = []
        fast, general = _both(log, log.num_rows, spy, monkeypatch)
        assert fast == general and fast["counts"][2:4] == found and spy == tried


def test_layout() -> None:
    start = np.array([1, 0, 1, 0, 1, 0], dtype=bool)
    assert uniform.layout(start, np.array([0, 1, 0, 1, 0, 1])) == (2, 1)
    assert uniform.layout(start, np.array([0, 1, 1, 0, 0, 1])) is None  # banker moves
    assert uniform.layout(start, np.array([1, 1, 0, 1, 0, 1])) is None  # two bankers
    assert uniform.layout(np.array([1, 0, 0, 1, 0, 1], bool), np.zeros(6)) is None
    assert uniform.layout(np.ones(3, bool), np.ones(3)) is None  # no player


@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.integers(1, 64))
@settings(max_examples=60, deadline=None)
def test_bit_counts_count_each_bit(words: list[int], size: int) -> None:
    w = np.array(words, dtype=np.uint64)
    want = [sum((x >> b) & 1 for x in words) for b in range(size)]  # bit by bit
    assert uniform.bit_counts(w, size).tolist() == want


@given(
    st.lists(st.sampled_from([-2.0, -1.0, -0.0, 0.0, 0.95, 1.9, 1e-9, 3.0]), max_size=400),
    st.lists(st.floats(-10, 10), max_size=30),
)
@settings(max_examples=60, deadline=None)
def test_net_counts_of_one_group_are_those_of_the_groups_way(
    common: list[float], rare: list[float]
) -> None:
    """The one group's amounts counted by hashing (partial._amount_counts) as the
    per-group search counts them, and as a plain count by amount."""
    from collections import Counter

    from solver.audit.partial import net_counts

    x = np.array(common + rare, dtype=np.float64)
    one = net_counts(x, None, 1)
    assert one == net_counts(x, np.zeros(len(x), dtype=np.int64), 1)
    assert list(one[0]) == sorted(one[0])
    if not (np.signbit(x) & (x == 0)).any():
        assert one[0] == dict(Counter(x.tolist()))
