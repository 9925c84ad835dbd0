"""`bull verify --infer`: implementations written here (independent evaluators of
``test_verify`` and ``test_vectors``) that follow another rule option; the inference
must recover the option, and verify with the inferred rule file must leave zero
disagreements. An implementation with a mistake (no rule option) infers no change."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_vectors import pd_deng
from test_verify import (
    CASINO,
    CLASSIC,
    category,
    hand_claims,
    run,
    sample_hands,
    special_hands,
    write_csv,
)


def infer(path: Path, game: str, tables: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run("verify", game, str(path), "--tables", str(tables), "--json", *extra)
    assert code in (0, 1), err
    return code, json.loads(out)


@pytest.mark.slow
def test_two_niuniu_options_recovered_and_the_rule_file_passes(
    tmp_path: Path, niuniu_tables: Path
) -> None:
    """Casino without five_faces and with Five Small Bull at total < 10."""
    specials = ["four_of_a_kind", "straight_flush", "five_small_bull"]
    hands = special_hands() + sample_hands(1_500, 21)
    rows = [
        {"hand": " ".join(h), "category": category(h, specials, fsb_below_10=True)} for h in hands
    ]
    path = write_csv(tmp_path / "c.csv", rows)
    rule_file = tmp_path / "inferred.toml"
    code, s = infer(
        path, "niuniu", niuniu_tables, "--rules", "casino", "--infer-out", str(rule_file)
    )
    assert code == 1 and s["disagree"] > 0
    inf = s["inferred"]
    # the two options, one at a time or at once (their pair explains every row)
    assert {k for st in inf["steps"] for k in st["id"].split("+")} == {
        "specials_without=five_faces",
        "five_small_bull_total=below_10",
    }
    assert inf["agree_before"] == s["agree"] and inf["disagree_after"] == 0
    data = tomllib.loads(rule_file.read_text())
    assert data["specials"] == specials
    assert data["special_definitions"]["five_small_bull_total"] == "below_10"
    assert rule_file.read_text() == inf["rule_file"]
    code, s2 = infer(path, "niuniu", niuniu_tables, "--rules", str(rule_file))
    assert code == 0 and s2["disagree"] == 0 and s2["checked"] == len(rows)


@pytest.mark.slow
def test_text_output_prints_the_rule_file(tmp_path: Path, niuniu_tables: Path) -> None:
    import random

    rng = random.Random(22)
    faces = [r + s for r in "JQK" for s in "SHDC"]
    # enough four-faces hands for the change to be significant (kit/infer.py), not 3
    four = [[*rng.sample(faces, 4), "10" + rng.choice("SHDC")] for _ in range(12)]
    hands = special_hands() + four + sample_hands(300, 22)
    rows = [{"hand": " ".join(h), "category": category(h, ["five_faces", "four_faces"])}
            for h in hands]  # fmt: skip
    path = write_csv(tmp_path / "c.csv", rows)
    code, out, _ = run("verify", "niuniu", str(path), "--tables", str(niuniu_tables), "--infer")
    assert code == 1
    assert "inferred rule set: 'classic' with four_faces counted as a special" in out
    assert 'name = "inferred"' in out and "left that no catalogued rule set explains" in out
    text = out[out.index("# Niu Niu rule set inferred") :]
    assert "four_faces" in tomllib.loads(text)["specials"]


def test_a_mistake_infers_no_rule_change(tmp_path: Path, niuniu_tables: Path) -> None:
    rows = [hand_claims(c, CLASSIC, skip_first=True) for c in sample_hands(800, 23)]
    path = write_csv(tmp_path / "c.csv", rows)
    code, s = infer(path, "niuniu", niuniu_tables, "--infer")
    assert code == 1 and s["inferred"]["steps"] == []
    assert s["inferred"]["disagree_after"] == s["disagree"] > 0
    assert s["diagnosis"][0]["id"] == "mistake=bull_skips_first"


def test_pokdeng_option_recovered(tmp_path: Path, pokdeng_tables: Path) -> None:
    """A paired Pok paying deng 1 (RULES §5 says 2)."""
    import random

    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for r in ranks for s in "SHDC"]
    rng = random.Random(24)
    hands = [rng.sample(deck, rng.choice([2, 3])) for _ in range(3_000)]
    hands += [["4S", "4D"], ["9S", "9D"], ["8H", "8C"]]
    rows = [{"hand": " ".join(h), "deng": pd_deng(h, pok_pair=1)} for h in hands]
    path = write_csv(tmp_path / "p.csv", rows)
    rule_file = tmp_path / "p.toml"
    code, s = infer(path, "pokdeng", pokdeng_tables, "--infer-out", str(rule_file))
    assert code == 1 and [st["id"] for st in s["inferred"]["steps"]] == ["deng.pok_pair=1"]
    assert s["inferred"]["disagree_after"] == 0
    code, s2 = infer(path, "pokdeng", pokdeng_tables, "--rules", str(rule_file))
    assert code == 0 and s2["disagree"] == 0


def test_casino_itself_needs_no_change(tmp_path: Path, niuniu_tables: Path) -> None:
    rows = [hand_claims(c, CASINO) for c in special_hands() + sample_hands(200, 25)]
    path = write_csv(tmp_path / "c.csv", rows)
    code, s = infer(path, "niuniu", niuniu_tables, "--rules", "casino", "--infer")
    assert code == 0 and s["inferred"]["steps"] == [] and s["inferred"]["disagree_after"] == 0
