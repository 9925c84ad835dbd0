"""``bull probe`` against implementations written in the tests (:mod:`_peers`), run as
real child processes: the report names the cause, the faults of a broken peer are
reported in a line and never break the probe."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from _peers import peer

from solver.cli import main


def probe(tmp: Path, *args: str, cmd: list[str]) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", *args, "--json", "--", *cmd], out=out, err=err)
    text = out.getvalue()
    assert "Traceback" not in text + err.getvalue()
    return code, (json.loads(text) if text.strip() else {}), err.getvalue()


def test_faithful_peer_agrees(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "300", cmd=peer(tmp_path))
    assert code == 0, rep
    assert rep["disagree"] == 0 and rep["checked"] == rep["answered"] > 7_000
    assert rep["fields"]["points"]["agree"] > 7_000
    assert set(rep["phases"]) >= {"cover", "discriminate", "substantiate", "confirm"}
    assert rep["queries"] == sum(p["questions"] for p in rep["phases"].values())
    assert rep["crashes"] == rep["timeouts"] == 0
    assert rep["coverage"]["exhaustive"] is False and rep["coverage"]["hands"] == 300


def test_planted_mistake_is_named_first(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "200", cmd=peer(tmp_path, skip_first=True))
    assert code == 1
    first = rep["diagnosis"][0]
    assert first["id"] == "mistake=bull_skips_first"
    assert first["contradicts"] == 0 and first["explains"] == rep["disagree"] > 0


def test_uncatalogued_fault_gets_the_pattern(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "niuniu", "--budget", "100", cmd=peer(tmp_path, face_11=True))
    assert code == 1
    assert rep["disagree"] > 0
    assert not any(
        d["explains"] == rep["disagree"] and d["contradicts"] == 0
        for d in rep["diagnosis"]
        if d["kind"] != "pattern"
    )


def test_plain_lines_protocol(tmp_path: Path) -> None:
    code, rep, _ = probe(
        tmp_path,
        "niuniu",
        "--protocol",
        "lines",
        "--fields",
        "has_bull,points",
        "--budget",
        "100",
        cmd=peer(tmp_path, lines=True),
    )
    assert code == 0, rep
    assert rep["disagree"] == 0 and rep["fields"]["has_bull"]["agree"] == rep["checked"] > 7_000


def test_faithful_pokdeng_exhaustive(tmp_path: Path) -> None:
    code, rep, _ = probe(tmp_path, "pokdeng", cmd=peer(tmp_path, "pokdeng"))
    assert code == 0, rep
    assert rep["coverage"]["exhaustive"] is True and rep["coverage"]["of"] == 1_326 + 22_100
    assert rep["fields"]["net"]["agree"] > 5_000 and rep["disagree"] == 0


@pytest.mark.parametrize(
    ("cfg", "first"),
    [
        ({"straights": "low"}, "straights=true,ace=low"),
        ({"three_card_pok": True}, "mistake=three_card_pok"),
        ({"equal_push": True}, "equal_points=push"),
    ],
)
def test_pokdeng_cause_named_and_inferred(tmp_path: Path, cfg: dict[str, Any], first: str) -> None:
    rules = tmp_path / "inferred.toml"
    code, rep, _ = probe(
        tmp_path,
        "pokdeng",
        "--budget",
        "200",
        "--infer-out",
        str(rules),
        cmd=peer(tmp_path, "pokdeng", **cfg),
    )
    assert code == 1
    top = rep["diagnosis"][0]
    assert top["id"] == first and top["contradicts"] == 0, rep["diagnosis"][:3]
    asked = ("cover", "discriminate", "substantiate")
    assert sum(rep["phases"][p]["questions"] for p in asked) < 20_000
    if top["kind"] == "rule":  # a house rule: the rule file makes every answer agree
        assert rep["confirm"]["disagree"] == 0
        code, again, _ = probe(
            tmp_path,
            "pokdeng",
            "--budget",
            "200",
            "--rules",
            str(rules),
            cmd=peer(tmp_path, "pokdeng", **cfg),
        )
        assert code == 0 and again["disagree"] == 0


def test_two_house_rules_at_once(tmp_path: Path) -> None:
    rules = tmp_path / "inferred.toml"
    cmd = peer(tmp_path, "pokdeng", straights="both", tong_deng=3)
    code, rep, _ = probe(tmp_path, "pokdeng", "--budget", "200", "--infer-out", str(rules), cmd=cmd)
    assert code == 1
    assert rep["diagnosis"][0]["id"] == "straights=true,ace=both+deng.tong=3"
    assert rep["diagnosis"][0]["contradicts"] == 0
    steps = {k for s in rep["inferred"]["steps"] for k in s["id"].split("+")}
    assert steps == {"straights=true,ace=both", "deng.tong=3"}, rep["inferred"]["steps"]
    assert rep["confirm"]["disagree"] == 0
    code, again, _ = probe(tmp_path, "pokdeng", "--budget", "200", "--rules", str(rules), cmd=cmd)
    assert code == 0 and again["disagree"] == 0


def _faulty(
    tmp: Path, *extra: str, timeout_ms: int = 5000, **cfg: Any
) -> tuple[int, dict[str, Any], str]:
    """A probe of a faulty Pok Deng peer; only the hang test shortens the timeout (on a
    loaded machine 400 ms can pass before an honest answer comes, and a timeout restarts
    the peer)."""
    cmd = peer(tmp, "pokdeng", **cfg)
    timeout = ("--timeout-ms", str(timeout_ms))
    return probe(tmp, "pokdeng", "--budget", "50", *timeout, *extra, cmd=cmd)


def test_crash_on_one_hand_is_named(tmp_path: Path) -> None:
    code, rep, _ = _faulty(tmp_path, crash_on="6C 4C 5C")
    assert code == 1
    assert [c["question"] for c in rep["faults"]["crashes"]] == ["6C 4C 5C"]
    assert rep["crashes"] == 1 and rep["faults"]["restarts"] == 2
    assert rep["disagree"] == 0 and rep["answered"] == rep["queries"] - 1


def test_hang_on_one_hand_is_a_timeout(tmp_path: Path) -> None:
    code, rep, _ = _faulty(tmp_path, hang_on="KH 2S AC", timeout_ms=400)
    assert code == 1
    assert [t["question"] for t in rep["faults"]["timeouts"]] == ["KH 2S AC"]
    assert rep["timeouts"] == 1 and rep["answered"] == rep["queries"] - 1


def test_garbage_line_is_reported(tmp_path: Path) -> None:
    code, rep, _ = _faulty(tmp_path, garbage_at=3, timeout_ms=400)
    assert code == 1
    assert rep["faults"]["garbage"] == 1 and rep["faults"]["restarts"] == 0
    assert rep["faults"]["garbage_lines"] == ["oops, not an answer (not JSON)"]
    # the third question's answer was the garbage line: it is named, the rest answered
    assert [u["question"] for u in rep["faults"]["unreadable"]] == ["AC 4C 4D"]
    assert rep["answered"] == rep["queries"] - 1 and rep["disagree"] == 0


def test_garbage_answer_to_a_question_asked_alone_after_a_restart(tmp_path: Path) -> None:
    """A peer that hangs on one hand (a timeout: restarted, the questions in flight asked
    again one at a time) and whose third answer of each life is a garbage line: the
    garbage answer of a question asked alone is named and the run goes on (it used to
    spin forever with nothing in flight). In a child process, so that a regression fails
    here instead of hanging the suite."""
    import subprocess
    import sys

    cmd = peer(tmp_path, "pokdeng", hang_on="KH 2S AC", garbage_at=3)
    argv = [sys.executable, "-m", "solver", "probe", "pokdeng", "--budget", "50"]
    argv += ["--timeout-ms", "400", "--json", "--", *cmd]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-500:]
    rep = json.loads(done.stdout)
    faults = rep["faults"]
    assert faults["fatal"] is None and faults["restarts"] >= 2
    assert "KH 2S AC" in [t["question"] for t in faults["timeouts"]]
    unreadable = [u["question"] for u in faults["unreadable"]]
    assert unreadable[0] == "AC 4C 4D" and faults["garbage"] == len(unreadable) >= 2
    lost = len(faults["timeouts"]) + len(unreadable)
    assert rep["answered"] == rep["queries"] - lost and rep["disagree"] == 0


def test_out_of_order_answers_are_matched_by_id(tmp_path: Path) -> None:
    code, rep, _ = _faulty(tmp_path, reverse=True)
    assert code == 0, rep["faults"]
    assert rep["disagree"] == 0 and rep["answered"] == rep["queries"]


@pytest.mark.parametrize("compact", [False, True])
def test_duplicate_and_unknown_ids_are_ignored(tmp_path: Path, compact: bool) -> None:
    """Also written compactly, id first (``{"id":N,...``: the batch path reads them)."""
    code, rep, _ = _faulty(tmp_path, duplicate=True, unknown_id=5, compact=compact)
    assert rep["faults"]["duplicates"] == rep["queries"] and rep["faults"]["unknown_ids"] == 1
    assert rep["disagree"] == 0 and rep["answered"] == rep["queries"]
    assert code == 0


def test_stderr_flood_does_not_block(tmp_path: Path) -> None:
    code, rep, _ = _faulty(tmp_path, stderr_flood=True)
    assert code == 0 and rep["answered"] == rep["queries"]


def test_exit_at_start_is_one_line(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    cmd = peer(tmp_path, "pokdeng", exit_start=True)
    code = main(["probe", "pokdeng", "--", *cmd], out=out, err=err)
    assert code == 1
    text = out.getvalue()
    assert "Traceback" not in text + err.getvalue()
    line = next(x for x in text.splitlines() if x.startswith("peer failed"))
    assert "exited before answering anything" in line and "cannot load its tables" in line


def test_command_not_found(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["probe", "pokdeng", "--", str(tmp_path / "no-such-engine")], out=out, err=err)
    assert code == 1
    assert "cannot start" in out.getvalue() and "Traceback" not in out.getvalue()


@pytest.mark.parametrize("game", ["niuniu", "taungau", "pokdeng"])
def test_block_requests_are_the_json_of_each_hand(game: str) -> None:
    """The confirm's requests, built a block at a time in numpy, are each hand's JSON
    object as ``json.dumps`` writes it (compact), with the shown text and fields."""
    import numpy as np

    from solver.probe.plan import space
    from solver.probe.wire import Encoder

    sp = space(game, None)
    rng = np.random.default_rng(5)
    for k in sp.sizes:
        hands = rng.integers(0, len(sp.names), (40, k))
        ids = rng.integers(1, 10**7, 40)
        ids[:3] = [1, 9, 10]
        enc = Encoder(sp.names, "hand")
        assert enc.ok
        names = [[sp.names[u] for u in h] for h in hands.tolist()]
        want = [
            json.dumps({"id": i, "hand": n}, separators=(",", ":"))
            for i, n in zip(ids.tolist(), names, strict=True)
        ]
        assert [w.decode() for w in enc.requests(ids, hands)] == want
        assert enc.shown(hands) == [" ".join(n) for n in names]
        fields = [json.dumps({"hand": n}, separators=(",", ":"))[1:-1] for n in names]
        assert enc.fields(hands) == fields


def test_block_encoder_declines_names_needing_escapes() -> None:
    from solver.probe.wire import Encoder

    assert not Encoder(["A S", "KS"], "hand").ok
    assert not Encoder(['K"S', "KS"], "hand").ok
    assert Encoder(["[4:2]", "10S"], "hand").ok


def test_cover_classes_are_made_once_per_space_and_seed() -> None:
    """The cover's hands (one per class) are made once per question space and seed in a
    process: the same hands again, each caller its own lists; another seed, others."""
    from solver.probe import plan

    sp = plan.space("niuniu", "classic")
    plan._classes.cache_clear()
    a, b = plan.classes(sp, 3), plan.classes(sp, 3)
    assert a == b and a[0] is not b[0] and plan._classes.cache_info().hits == 1
    a[0].append(99)
    assert plan.classes(sp, 3)[0] == b[0] and plan.classes(sp, 4) != b
    # one hand per class: 6,175 rank multisets of 5 with at most 4 of a rank, each
    # mixed, and in one suit or with two suits when the ranks allow
    assert len({tuple(sorted(h)) for h in b}) == len(b) > 6_175


def test_vector_rows_are_kept_per_rule_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe's conformance vectors are made once per rule content, options, tables
    and sample in a process; each caller gets its own copy of the rows."""
    from solver.probe import plan

    made: list[str] = []
    real = plan._vector_rows

    def counted(game: str, *args: Any) -> list[dict[str, Any]]:
        made.append(game)
        return real(game, *args)

    monkeypatch.setattr(plan, "_vector_rows", counted)
    monkeypatch.setattr(plan, "_VECTOR_ROWS", {})
    a = plan.vector_rows("pokdeng", "standard", {}, None)
    b = plan.vector_rows("pokdeng", "standard", {}, None)
    assert made == ["pokdeng"] and a == b and a and a[0] is not b[0]
    a[0]["hand"] = ["spoiled"]
    assert plan.vector_rows("pokdeng", "standard", {}, None)[0] == b[0]
    house = tmp_path / "house.toml"  # other content: its own vectors
    house.write_text('game = "pokdeng"\nbase = "standard"\nname = "house"\nequal_points = "push"\n')
    plan.vector_rows("pokdeng", str(house), {}, None)
    plan.vector_rows("pokdeng", "standard", {"bet": "x"}, None)
    assert made == ["pokdeng"] * 3
