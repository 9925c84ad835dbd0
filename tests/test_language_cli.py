"""``bull verify --infer`` end to end on the issue's own house rules (``_houses``,
implemented in the test): the catalogue stage, then the language stage, then an exact
table built for the inferred file; the file it writes names each learned category with
its support and re-verifies the claims to 0 disagreements, and it agrees with the house
on every hand and a fresh showdown sample (``test_language_infer``'s check). Each run
builds a 2,598,960-hand table: slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _houses import HOUSES, House, claims_file
from test_language_infer import agrees_everywhere, run

from solver.games.niuniu.rules import load_rules

ISSUE = [
    h
    for h in HOUSES
    if h.name in ("hk_bull_pair", "all_small", "pair_chain", "table_no_commission")
]
"""The behaviours the issue names (the other nine houses: the language stage's tests)."""


@pytest.mark.slow
@pytest.mark.parametrize("house", ISSUE, ids=[h.name for h in ISSUE])
def test_infer_writes_a_file_that_reverifies_clean(
    house: House, tmp_path: Path, niuniu_tables: Path
) -> None:
    path = claims_file(house, tmp_path / f"{house.name}.csv", seed=7)
    out = tmp_path / "inferred.toml"
    code, text, err = run(
        "verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--json",
        "--infer-out", str(out),
    )  # fmt: skip
    assert code in (0, 1), err
    inferred = json.loads(text)["inferred"]
    assert inferred["disagree_after"] == 0, inferred
    ids = [s["id"] for s in inferred["adopted"]]
    for key in house.learned:
        if key.startswith("category:"):  # the catalogue stage may say the rest its way
            assert key in ids, ids
    written = out.read_text(encoding="utf-8")
    for step in inferred["adopted"]:  # the file's description names every learned item
        assert step["description"] in written and f"support {step['support']:,} rows" in written
    for key in ids:
        if key.startswith("category:"):
            assert f'name = "{key.split(":", 1)[1]}"' in written and "support = " in written
    code, text, err = run(
        "verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--json",
        "--rules", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(text)["disagree"] == 0
    agrees_everywhere(house, load_rules(str(out)), seed=77)
