"""Benchmark the exact diagnosis of ``bull verify`` against verify without it (issue 13).

Writes every one of the 2,598,960 Niu Niu hands once (each in a random written order)
as a Parquet claims file whose ``has_bull``/``points``/``category`` come from an
implementation whose bull search skips the first card written (about 770 k rows
disagree), then, each in its own process so that peak memory is measured separately:

* **verify, no diagnosis** — ``verify_file(..., diagnose=False)``: reading, checking;
* **verify** — ``verify_file(...)``: the same plus every catalogue variant scored on
  every row, exactly.

Prints both times, the ratio (target <= 3x), peak RSS (target < 1 GB) and the headline.
Then, on a second file of every hand claimed under another rule set (classic plus four
of a kind and Five Small Bull at total < 10), ``--infer`` from classic (target <= 60 s).

    .venv/bin/python scripts/bench_diagnosis.py [--file PATH] [--keep]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_verify import run  # noqa: E402

NO_DIAGNOSIS = """
from solver.verify import verify_file
r = verify_file("niuniu", ARGS[0], diagnose=False)
print(r.disagree)
"""

DIAGNOSIS = """
import json
from solver.verify import verify_file
r = verify_file("niuniu", ARGS[0])
print(json.dumps(r.to_json()))
"""


def generate(path: Path, seed: int = 1) -> None:
    from solver.core.cards import CARD_NAMES
    from solver.core.indexing import all_subsets
    from solver.games.niuniu.diagnose import niuniu_catalogue
    from solver.games.niuniu.rules import Category, load_rules
    from solver.games.niuniu.variant_answers import niuniu_hand_answers

    rules = load_rules("classic")
    skip = next(v for v in niuniu_catalogue(rules, "hand") if v.key == "mistake=bull_skips_first")
    rng = np.random.default_rng(seed)
    hands = all_subsets(52, 5)
    order = np.argsort(rng.random(hands.shape), axis=1)
    written = np.take_along_axis(hands, order, axis=1)
    a = niuniu_hand_answers(written, rules, skip)
    names = pa.array(CARD_NAMES)
    labels = pa.array([c.label for c in Category])
    hand = pc.binary_join_element_wise(
        *[pc.take(names, pa.array(written[:, i])) for i in range(5)], " "
    )
    table = pa.table(
        {
            "hand": hand,
            "has_bull": pa.array(np.asarray(a["has_bull"], bool)),
            "points": pa.array(np.asarray(a["points"]).astype(np.int8)),
            "category": pc.take(labels, pa.array(np.asarray(a["category"], np.int64))),
        }
    )
    pq.write_table(table, path, row_group_size=262_144, compression="zstd")


INFER = """
import json
from solver.verify import infer_file
inf, rep = infer_file("niuniu", ARGS[0])
print(json.dumps(inf.to_json()))
"""


def generate_rules(path: Path, seed: int = 2) -> None:
    """Every hand once, claims of an implementation following another rule set:
    classic with four of a kind and Five Small Bull (total < 10) counted."""
    from solver.core.cards import CARD_NAMES
    from solver.core.indexing import all_subsets
    from solver.games.niuniu.hands import evaluate_arrays
    from solver.games.niuniu.rules import Category, load_rules

    data = load_rules("classic").to_data()
    data["specials"] = ["five_faces", "four_of_a_kind", "five_small_bull"]
    data["special_definitions"]["five_small_bull_total"] = "below_10"
    data["name"] = "bench-other"
    rules = load_rules(data)
    rng = np.random.default_rng(seed)
    hands = all_subsets(52, 5)
    written = np.take_along_axis(hands, np.argsort(rng.random(hands.shape), axis=1), axis=1)
    ev = evaluate_arrays(hands, rules)
    names = pa.array(CARD_NAMES)
    labels = pa.array([c.label for c in Category])
    hand = pc.binary_join_element_wise(
        *[pc.take(names, pa.array(written[:, i])) for i in range(5)], " "
    )
    table = pa.table(
        {
            "hand": hand,
            "has_bull": pa.array(np.asarray(ev["has_bull"], bool)),
            "points": pa.array(np.asarray(ev["points"]).astype(np.int8)),
            "category": pc.take(labels, pa.array(np.asarray(ev["category"], np.int64))),
        }
    )
    pq.write_table(table, path, row_group_size=262_144, compression="zstd")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", help="Parquet file to (re)use")
    ap.add_argument("--keep", action="store_true", help="keep the generated file")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    path = Path(args.file) if args.file else Path(tmp.name) / "claims.parquet"
    if not path.exists():
        t = time.perf_counter()
        generate(path)
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    rows = pq.ParquetFile(path).metadata.num_rows
    n_proc, n_in, _, n_peak, n_out = run(NO_DIAGNOSIS, path, "niuniu")
    d_proc, d_in, _, d_peak, d_out = run(DIAGNOSIS, path, "niuniu")
    s = json.loads(d_out)
    print(f"rows {rows:,}, disagreements {s['disagree']:,} (no-diagnosis run: {n_out.strip()})")
    print(f"verify, no diagnosis : {n_in:6.2f} s  peak {n_peak:5.0f} MB (process {n_proc:.2f} s)")
    print(f"verify, exact diag.  : {d_in:6.2f} s  peak {d_peak:5.0f} MB (process {d_proc:.2f} s)")
    ratio = d_in / n_in
    print(f"ratio                : x{ratio:.2f} (target <= 3), peak target < 1024 MB")
    print(f"headline: {s['headline']}")
    for e in s["diagnosis"][:3]:
        print(f"  {e['id']}: explains {e['explains']:,}, contradicts {e['contradicts']:,}")
    other = path.with_name(path.stem + "-rules.parquet")
    if not other.exists():
        generate_rules(other)
    i_proc, i_in, _, i_peak, i_out = run(INFER, other, "niuniu")
    inf = json.loads(i_out)
    print(
        f"verify --infer        : {i_in:6.2f} s  peak {i_peak:5.0f} MB (process {i_proc:.2f} s; "
        f"target <= 60 s): steps {[st['id'] for st in inf['steps']]}, "
        f"disagreements {inf['checked'] - inf['agree_before']:,} -> {inf['disagree_after']:,}"
    )
    ok = ratio <= 3 and d_peak < 1024 and i_in <= 60 and i_peak < 1024
    print("targets:", "met" if ok else "NOT met")
    if args.keep and not args.file:
        keep = REPO / "bench_diagnosis.parquet"
        path.replace(keep)
        print(f"kept {keep}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
