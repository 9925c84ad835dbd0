"""Every kind of bad input, for every game, through the CLI and the API: a one-line
error naming the problem, exit code 2, no traceback and no partial output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import games
from solver.cli import main
from solver.core.errors import BullError, RulesError

GAMES = {name: games.get(name) for name in games.names()}
GOOD = {"niuniu": "KS 9H 8C 3D 7S", "taungau": "[6:5][4:1][3:3][5:5][2:2]", "pokdeng": "9S 9D"}


@pytest.fixture(scope="module")
def tables(niuniu_tables: Path, taungau_tables: Path, pokdeng_tables: Path) -> dict[str, str]:
    return {
        "niuniu": str(niuniu_tables),
        "taungau": str(taungau_tables),
        "pokdeng": str(pokdeng_tables),
    }


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def assert_clean_error(code: int, out: str, err: str, needle: str) -> None:
    assert code == 2, (out, err)
    assert out == "", "no partial output on error"
    assert err.startswith("bull: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    assert needle.lower() in err.lower(), err


CASES: list[tuple[str, list[str], str]] = [
    ("niuniu", ["KS 9H 8C 3D 1S"], "unknown card '1S'"),
    ("niuniu", ["KS 9H 8C 3D 9h"], "duplicate card 9H"),
    ("niuniu", ["KS 9H 8C"], "expected 5"),
    ("niuniu", [GOOD["niuniu"], "KS 9H 8C 3D"], "expected 5"),
    ("taungau", ["[6:5][4:1][3:3][5:5][7:2]"], "[7:2]"),
    ("taungau", ["[6:6][6:6][6:6][4:3][4:2]"], "too many copies of [6:6]"),
    ("taungau", ["[4:2][2:4][6:6][1:1][3:3]"], "[4:2]"),
    ("taungau", ["[6:5][4:1][3:3][5:5]"], "5"),
    ("pokdeng", ["9S 9D 9C 9H"], "4 cards"),
    ("pokdeng", ["9S"], "1 card"),
    ("pokdeng", ["9S 9S"], "duplicate card 9S"),
    ("pokdeng", ["9S XX"], "unknown card 'XX'"),
]


@pytest.mark.parametrize(("game", "hands", "needle"), CASES)
def test_bad_hands(tables: dict[str, str], game: str, hands: list[str], needle: str) -> None:
    assert_clean_error(*run(["eval", game, *hands, "--tables", tables[game]]), needle)
    assert_clean_error(*run(["eval", game, *hands, "--json", "--tables", tables[game]]), needle)


@pytest.mark.parametrize("game", GAMES)
def test_unknown_preset_and_empty_input(tables: dict[str, str], game: str, tmp_path: Path) -> None:
    assert_clean_error(
        *run(["eval", game, GOOD[game], "--rules", "nosuch", "--tables", tables[game]]),
        "unknown rule set 'nosuch'",
    )
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert_clean_error(
        *run(["eval", game, "--input", str(empty), "--tables", tables[game]]), "no hand given"
    )
    binary = tmp_path / "binary.txt"
    binary.write_bytes(GOOD[game].encode() + b"\n\x80\x81\n")
    code, out, err = run(["eval", game, "--input", str(binary), "--tables", tables[game]])
    assert code == 1 and out.count("\n") == 1 and "line 2: not UTF-8" in err
    huge = tmp_path / "huge.txt"
    huge.write_text("x" * 1_000_000 + "\n")
    code, out, err = run(["eval", game, "--input", str(huge), "--tables", tables[game]])
    assert code == 1 and out == "" and "line 1: line too long" in err and "Traceback" not in err
    assert_clean_error(*run(["eval", game, "y" * 20_000, "--tables", tables[game]]), "too long")


@pytest.mark.parametrize("game", GAMES)
def test_compare_with_shared_items(tables: dict[str, str], game: str) -> None:
    other = {
        "niuniu": "KS 2H 3C 4D 5S",
        "taungau": "[6:5][6:5][6:5][1:1][2:1]",
        "pokdeng": "9S 2C",
    }[game]
    code, out, err = run(["compare", game, GOOD[game], other, "--tables", tables[game]])
    assert_clean_error(code, out, err, "")
    assert any(w in err for w in ("both", "copies", "shared", "share"))


def test_unknown_game_and_command() -> None:
    assert_clean_error(*run(["eval", "poker", "AS"]), "invalid choice: 'poker'")
    assert_clean_error(*run(["solve", "niuniu"]), "invalid choice: 'solve'")
    assert_clean_error(*run([]), "required")


def _rule_file(tmp_path: Path, name: str, content: str | bytes) -> str:
    f = tmp_path / name
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content)
    return str(f)


@pytest.mark.parametrize("game", GAMES)
def test_malformed_and_contradictory_rule_files(
    tables: dict[str, str], game: str, tmp_path: Path
) -> None:
    preset = GAMES[game].load_rules(None).to_data()
    cases: list[tuple[str, str | bytes, str]] = [
        ("syntax.toml", "x = [1,", "not valid TOML"),
        ("syntax.json", '{"x": ', "not valid JSON"),
        ("array.json", "[1, 2]", "top level"),
        ("binary.toml", b"\xff\xfe\x00", "not UTF-8"),
        ("other.json", json.dumps({**preset, "game": "mahjong"}), "mahjong"),
        ("typo.json", json.dumps({**preset, "comission": 0.05}), "comission"),
        ("missing.toml", "/nonexistent/rules.toml", "cannot read"),
    ]
    for key, value in preset.items():
        if key in ("game", "name", "description"):
            continue
        # a field of the wrong type: never a traceback, never silently accepted
        wrong: Any = {"x": 1} if not isinstance(value, dict) else "text"
        cases.append((f"wrongtype_{key}.json", json.dumps({**preset, key: wrong}), key))
    for name, content, needle in cases:
        path = content if name == "missing.toml" else _rule_file(tmp_path, name, content)
        assert isinstance(path, str)
        code, out, err = run(["eval", game, GOOD[game], "--rules", path, "--tables", tables[game]])
        assert_clean_error(code, out, err, needle)


def test_contradictory_niuniu_rules(tmp_path: Path) -> None:
    base = GAMES["niuniu"].load_rules("classic").to_data()
    contradictions = [
        {**base, "default_bet": "standard"},  # default not among bets
        {**base, "specials": ["five_faces", "five_faces"]},  # listed twice
        {**base, "suit_order": ["S", "H", "D"]},  # a suit missing
        {**base, "bets": ["equal"]},  # a multiplier table unused
        {**base, "commission": 1.5},
    ]
    for data in contradictions:
        with pytest.raises(RulesError):
            GAMES["niuniu"].load_rules(data)


# ---------------------------------------------------------------- fuzzing

JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 100)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rule_loader_fuzz(game: str, data: st.DataObject) -> None:
    """Mutate a preset's fields at random: the loader accepts or raises RulesError."""
    module = GAMES[game]
    preset = module.load_rules(None).to_data()
    keys = sorted(preset)
    mutated = dict(preset)
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from([*keys, "extra_field"]))
        mutated[key] = data.draw(JSONISH)
    try:
        rules = module.load_rules(mutated)
    except RulesError as exc:
        assert "\n" not in str(exc)
    else:
        # whatever loads round-trips
        again = module.load_rules(rules.to_data())
        assert again.to_data() == rules.to_data()


@given(st.binary(max_size=200))
@settings(max_examples=200, deadline=None)
def test_rule_file_bytes_fuzz(raw: bytes) -> None:
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".toml") as f:
        f.write(raw)
        f.flush()
        for module in GAMES.values():
            try:
                module.load_rules(f.name)
            except BullError as exc:
                assert "\n" not in str(exc)


BATCHES = {
    "niuniu": ([[0, 5, 10, 15, 20], [1, 6, 11, 16, 21]], 52),
    "taungau": ([[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]], 32),
    "pokdeng": ([[0, 5], [1, 6]], 52),
}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(
    "bad,needle",
    [(0.5, "row 1, column 2: 0.5 is not a"), (float("nan"), "nan is not a"), (1j, "is not a")],
)
def test_batch_ids_must_be_exact(
    tables: dict[str, str], game: str, bad: object, needle: str
) -> None:
    """A batch of ids holding a fraction, a NaN or a complex number is an error naming
    the row and column — never truncated into some other hand."""
    import importlib

    import numpy as np

    play = importlib.import_module(f"solver.games.{game}.play")
    good, _ = BATCHES[game]
    exact = play.evaluate_batch(np.array(good, dtype=np.float64), tables=tables[game])
    assert exact  # integral floats are exact ids
    rows = [list(r) for r in good]
    rows[1][min(2, len(rows[1]) - 1)] = bad
    with pytest.raises(BullError) as e:
        play.evaluate_batch(np.array(rows), tables=tables[game])
    assert needle.replace("column 2", f"column {min(2, len(rows[1]) - 1)}") in str(e.value)


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["eval", "niuniu", "--input", "/dev/zero"], "NUL bytes"),
        (["verify", "niuniu", "/dev/zero", "--format", "csv"], "character device, not a regular"),
        (["verify", "niuniu", "/dev/zero", "--format", "jsonl"], "character device, not a"),
        (["verify", "niuniu", "/dev/zero", "--format", "parquet"], "character device, not a"),
        (["rules", "niuniu", "--rules", "/dev/zero"], "/dev/zero: it is a character device"),
    ],
)
def test_endless_input_ends_in_one_line(argv: list[str], needle: str) -> None:
    """/dev/zero as input (hands, claims, a rule file) is refused at once, not read
    forever."""
    assert_clean_error(*run(argv), needle)


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_deeply_nested_rule_files_are_one_line(tmp_path: Path, suffix: str) -> None:
    depth = 50_000
    body = "[" * depth + "]" * depth
    path = tmp_path / f"deep{suffix}"
    path.write_text(
        f'{{"game": "niuniu", "x": {body}}}'
        if suffix == ".json"
        else f'game = "niuniu"\nx = {body}\n'
    )
    assert_clean_error(*run(["rules", "niuniu", "--rules", str(path)]), "nested too deeply")


def test_file_names_that_are_not_utf8(tmp_path: Path, tables: dict[str, str]) -> None:
    """A file name in another encoding (surrogate escapes in Python) is read and named,
    never a traceback."""
    import os

    folder = os.fsencode(tmp_path)
    hands = os.fsdecode(folder + b"/\xff-hands.txt")
    claims = os.fsdecode(folder + b"/\xfe-claims.csv")
    with open(hands, "w") as f:
        f.write(GOOD["niuniu"] + "\n")
    with open(claims, "w") as f:
        f.write(f"hand,points\n{GOOD['niuniu']},7\n")
    code, out, err = run(["eval", "niuniu", "--input", hands, "--tables", tables["niuniu"]])
    assert code == 0 and out.count("\n") == 1, err
    code, out, err = run(["verify", "niuniu", claims, "--tables", tables["niuniu"]])
    assert code == 0 and "all claims agree" in out, err
    missing = os.fsdecode(folder + b"/\xfd-missing.txt")
    code, out, err = run(["eval", "niuniu", "--input", missing, "--tables", tables["niuniu"]])
    assert code == 2 and err.count("\n") == 1 and "cannot read input file" in err


# ---------------------------------------------------------------- drill (issue 24, i28c)


def _drill(monkeypatch: pytest.MonkeyPatch, stdin: Any, argv: list[str]) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", stdin)
    return run(["drill", *argv, "--seed", "3"])


def _ends_with_summary(code: int, out: str, err: str, reason: str = "end of input") -> str:
    assert code == 0 and err == "" and "Traceback" not in out, (out[-300:], err)
    assert out.splitlines()[-1].startswith(f"drill over ({reason}): "), out[-300:]
    return out


@pytest.mark.parametrize("game", GAMES)
def test_drill_with_stdin_closed_ends_with_its_summary(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """``bull drill GAME <&-``: Python's sys.stdin is None (a TypeError before)."""
    _ends_with_summary(*_drill(monkeypatch, None, [game]))


@pytest.mark.parametrize("game", GAMES)
def test_drill_unreadable_answers_are_asked_again(
    monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """``²`` (isdigit but no int), a 10 MB line of digits, NUL bytes and bytes that are
    not UTF-8 are each asked again, not scored, and the drill goes on."""
    raw = "²\n".encode() + b"9" * 10_000_000 + b"\n\x00\x00\n\xff\xfe\n"
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out = _ends_with_summary(*_drill(monkeypatch, stdin, [game]))
    assert out.count("not an answer: ") == 4 and "0 of 0 right" in out


def test_drill_endless_stdin_ends_with_its_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """``< /dev/zero``: one endless line (a MemoryError before) ends the drill."""
    with open("/dev/zero", "rb") as zero:
        stdin = io.TextIOWrapper(zero, encoding="utf-8")
        _ends_with_summary(*_drill(monkeypatch, stdin, ["niuniu"]))


def test_drill_quit_ends_with_its_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    _ends_with_summary(*_drill(monkeypatch, io.StringIO("quit\n"), ["pokdeng"]), "quit")


@pytest.mark.parametrize("limit", ["-1", "-inf", "nan", "inf", "soon"])
def test_drill_time_limit_must_be_finite_seconds(limit: str) -> None:
    assert_clean_error(*run(["drill", "niuniu", f"--time-limit={limit}"]), "--time-limit")


# ---------------------------------------------------------------- issue 24 (hardening 3)


def _claims(tmp_path: Path) -> Path:
    claims = tmp_path / "claims.csv"
    claims.write_text(f"hand,points\n{GOOD['niuniu']},7\n")
    return claims


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "niuniu", "{claims}", "--infer-out", "{claims}"],
        ["verify", "niuniu", "{claims}", "--infer-out", "{link}"],
        ["verify", "niuniu", "{claims}", "--infer-out", "{hard}"],
        ["verify", "niuniu", "{claims}", "--out", "{claims}"],
        ["verify", "niuniu", "{claims}", "--out", "{dir}/../{dir_name}/claims.csv"],
        ["verify", "niuniu", "{claims}", "--out", "{dir}/w.jsonl", "--infer-out", "{dir}/w.jsonl"],
        ["verify", "niuniu", "{claims}", "--rules", "{rules}", "--infer-out", "{rules}"],
        ["strategy", "pokdeng", "--rules", "{rules}", "--png", "{link_rules}"],
        ["deal", "niuniu", "--rounds", "3", "--error-rules", "{rules}", "--out", "{rules}"],
        ["deal", "niuniu", "--rounds", "3", "--rules", "{rules}", "--out", "{link_rules}"],
        ["audit", "niuniu", "{claims}", "--out", "{claims}"],
        ["audit", "niuniu", "{dir}/audit.json", "--out", "{dir}"],
        ["audit", "niuniu", "{dir}/*.json", "--out", "{dir}"],
        ["report", "--rules", "{dir}/report.md", "--out", "{dir}"],
        ["vectors", "niuniu", "--rules", "{rules}", "--out", "{hard_rules}"],
        ["probe", "niuniu", "--out", "{claims}", "--", "python3", "{claims}"],
        ["probe", "niuniu", "--infer-out", "{link}", "--", "python3", "{claims}"],
        ["probe", "niuniu", "--rules", "{rules}", "--infer-out", "{hard_rules}", "--", "true"],
        ["probe", "niuniu", "--out", "{dir}/p.csv", "--infer-out", "{dir}/p.csv", "--", "true"],
        ["strategy", "pokdeng", "--player", "{player}", "--png", "{player}"],
        ["audit", "niuniu", "{dir}/log.parquet", "--out", "{dir}"],
        ["report", "--rules", "{dir}/chart.png", "--out", "{dir}"],
        ["verify", "niuniu", "{claims}", "--tables", "{tables}", "--out", "{table_file}"],
        ["verify", "niuniu", "{claims}", "--tables", "{tables}", "--out", "{tables}/sets/x"],
        ["audit", "niuniu", "{claims}", "--tables", "{tables}", "--out", "{tables}"],
    ],
)
def test_an_output_that_is_an_input_is_refused(
    tmp_path: Path, tables: dict[str, str], argv: list[str]
) -> None:
    """Any output that is one of the inputs (the same file after resolving links, or the
    same file on disk), another output, or a table, is one line before anything is
    written (issue 24: `verify claims.csv --infer-out claims.csv` replaced the claims)."""
    import os
    import shutil

    claims = _claims(tmp_path)
    rules = tmp_path / "house.toml"
    rules.write_text('game = "niuniu"\n')
    (tmp_path / "link.csv").symlink_to(claims)
    (tmp_path / "link.toml").symlink_to(rules)
    os.link(claims, tmp_path / "hard.csv")
    os.link(rules, tmp_path / "hard.toml")
    (tmp_path / "audit.json").write_text("{}\n")
    (tmp_path / "report.md").write_text('game = "niuniu"\n')
    (tmp_path / "chart.png").write_text('game = "niuniu"\n')
    (tmp_path / "log.parquet").write_bytes(b"PAR1")
    (tmp_path / "player.csv").write_text("hand,action\n7H 5D,draw\n")
    own = tmp_path / "tables"
    shutil.copytree(tables["niuniu"], own, symlinks=True, ignore=shutil.ignore_patterns("rules"))
    before = {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    words = {
        "claims": str(claims),
        "link": str(tmp_path / "link.csv"),
        "hard": str(tmp_path / "hard.csv"),
        "rules": str(rules),
        "link_rules": str(tmp_path / "link.toml"),
        "hard_rules": str(tmp_path / "hard.toml"),
        "dir": str(tmp_path),
        "dir_name": tmp_path.name,
        "tables": str(own),
        "table_file": str(own / "niuniu.parquet"),
        "player": str(tmp_path / "player.csv"),
    }
    code, out, err = run([w.format(**words) for w in argv])
    assert_clean_error(code, out, err, "elsewhere" if "same file" not in err else "same file")
    assert {p: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before


# ------------------------------------------ issue 24 (hardening 3): one reader for files

RULES_TEXT = 'game = "niuniu"\n# a café rule set\nbase = "classic"\ncommission = 0.04\n'
PLAYER_TEXT = "hand,action\n# the café's chart\n7H 5D,draw\n9S 9D,pok\n"


def _odd_file(tmp_path: Path, kind: str, text: str) -> str:
    """A file a careless user or an attacker passes: another encoding, an endless device,
    a FIFO nobody writes to, a folder."""
    import os

    path = tmp_path / f"odd-{kind}"
    if kind == "latin1":
        path.write_bytes(text.encode("latin-1"))
    elif kind == "utf16":
        path.write_bytes(text.encode("utf-16"))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        return "/dev/zero"
    return str(path)


ODD = [
    ("latin1", "line 2: not UTF-8 text (Latin-1?)"),
    ("utf16", "line 1: not UTF-8 text (UTF-16?)"),
    ("zero", "/dev/zero: it is a character device, not a regular file"),
    ("fifo", "it is a FIFO (named pipe), not a regular file"),
    ("folder", "it is a folder"),
]


@pytest.mark.parametrize(("kind", "needle"), ODD)
@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["strategy", "pokdeng", "--dealer", "best-response", "--player", "{f}"], PLAYER_TEXT),
        (["eval", "niuniu", GOOD["niuniu"], "--rules", "{f}"], RULES_TEXT),
        (["rules", "niuniu", "--rules", "{f}"], RULES_TEXT),
        (["report", "--rules", "{f}", "--out", "{dir}/report"], RULES_TEXT),
        (["deal", "niuniu", "--rounds", "2", "--bias", "errors=0.5", "--error-rules", "{f}",
          "--out", "{dir}/d.csv"], RULES_TEXT),
    ],
)  # fmt: skip
def test_a_file_read_whole_is_one_regular_utf8_file(
    tmp_path: Path, tables: dict[str, str], argv: list[str], text: str, kind: str, needle: str
) -> None:
    """Every option naming a file read whole (a player strategy, a rule file) reads it
    through the one bounded reader: another encoding is named with its line, /dev/zero
    is not read for a minute into a MemoryError, a FIFO with no writer does not hang."""
    path = _odd_file(tmp_path, kind, text)
    words = [w.format(f=path, dir=tmp_path) for w in argv]
    assert_clean_error(
        *run([*words, "--tables", tables["pokdeng" if "pokdeng" in argv else "niuniu"]]), needle
    )
    assert path in run([*words, "--tables", tables["niuniu"]])[2]  # the file is named


@pytest.mark.parametrize(("kind", "needle"), ODD[2:])
@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_a_claims_file_must_be_a_regular_file(
    tmp_path: Path, tables: dict[str, str], fmt: str, kind: str, needle: str
) -> None:
    """verify reads its file more than once (Parquet seeks): a FIFO, a device or a
    folder is refused at once; '-' reads standard input."""
    path = _odd_file(tmp_path, kind, "")
    argv = ["verify", "niuniu", path, "--format", fmt, "--tables", tables["niuniu"]]
    assert_clean_error(*run(argv), needle)


@pytest.mark.parametrize("command", ["eval", "round"])
def test_a_stream_of_lines_may_be_a_fifo_but_never_hangs(
    tmp_path: Path, tables: dict[str, str], command: str
) -> None:
    """A file of hands or rounds is streamed, so a pipe is fine; a FIFO with no writer
    is an empty input at once (not a wait forever), a folder is refused."""
    fifo = _odd_file(tmp_path, "fifo", "")
    argv = [command, "niuniu", "--input", fifo, "--tables", tables["niuniu"]]
    assert_clean_error(*run(argv), "no hand given" if command == "eval" else "no round given")
    folder = _odd_file(tmp_path, "folder", "")
    argv = [command, "niuniu", "--input", folder, "--tables", tables["niuniu"]]
    assert_clean_error(*run(argv), "it is a folder")


LINE_ENDS = {
    "lf": (b"", b"\n"),
    "bom+cr": (b"\xef\xbb\xbf", b"\r"),
    "bom+crlf": (b"\xef\xbb\xbf", b"\r\n"),
}


def _written(tmp_path: Path, name: str, text: str, style: str) -> str:
    bom, end = LINE_ENDS[style]
    path = tmp_path / style / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(bom + text.replace("\n", "\x00").encode().replace(b"\x00", end))
    return str(path)


NN = GOOD["niuniu"]
READERS: list[tuple[list[str], str, str]] = [
    (["eval", "niuniu", "--input", "{f}"], "hands.txt", f"{NN}\n# a comment\n\nJS QS KD 5H 5D\n"),
    (["round", "niuniu", "--input", "{f}"], "rounds.txt", f"{NN} | JS QS KD 5H 5D\n"),
    (["rules", "niuniu", "--rules", "{f}"], "house.toml", RULES_TEXT),
    (["rules", "niuniu", "--rules", "{f}"], "house.json",
     '{\n"game": "niuniu",\n"base": "classic",\n"commission": 0.04\n}\n'),
    (["strategy", "pokdeng", "--dealer", "best-response", "--player", "{f}"], "p.csv", PLAYER_TEXT),
    (["verify", "niuniu", "{f}"], "c.csv", f'hand,points\n{NN},7\n"{NN}",6\nJS QS KD 5H 5D,5\n'),
    (["verify", "niuniu", "{f}"], "c.jsonl",
     f'{{"hand": "{NN}", "points": 7}}\n\n{{"hand": "{NN}", "points": 6}}\n'),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "name", "text"), READERS, ids=lambda v: str(v)[:20])
def test_a_bom_and_every_line_end_read_as_a_user_expects(
    tmp_path: Path, tables: dict[str, str], argv: list[str], name: str, text: str
) -> None:
    """The same file written with LF, with a BOM and CR only, with a BOM and CRLF: every
    input reader gives the same answer (the same line numbers in its messages)."""
    table = tables["pokdeng" if "pokdeng" in argv else "niuniu"]
    results = {}
    for style in LINE_ENDS:
        path = _written(tmp_path, name, text, style)
        code, out, err = run([w.format(f=path) for w in argv] + ["--tables", table])
        results[style] = (code, out.replace(path, "FILE"), err.replace(path, "FILE"))
    assert results["lf"][0] in (0, 1) and "Traceback" not in results["lf"][2], results["lf"]
    assert results["bom+cr"] == results["lf"] == results["bom+crlf"]


def test_a_vectors_document_with_a_bom_and_cr_line_ends_is_the_same_document(
    tmp_path: Path, tables: dict[str, str]
) -> None:
    """``bull verify`` of a conformance vectors document written with a BOM and CR or
    CRLF line ends reads as the LF document does (its JSON Lines form is read as claims
    are: READERS above)."""
    doc = tmp_path / "v.json"
    argv = ["vectors", "niuniu", "--sample", "0", "--out", str(doc)]
    assert run([*argv, "--tables", tables["niuniu"]])[0] == 0
    text = doc.read_text()
    assert text.count("\n") > 1 and "\r" not in text
    results = {}
    for style in LINE_ENDS:
        path = _written(tmp_path, doc.name, text, style)
        code, out, err = run(["verify", "niuniu", path, "--tables", tables["niuniu"]])
        results[style] = (code, out.replace(path, "FILE"), err.replace(path, "FILE"))
    assert results["lf"][0] == 0 and "all claims agree" in results["lf"][1], results["lf"]
    assert results["bom+cr"] == results["lf"] == results["bom+crlf"]


LOG_ENDS = {**LINE_ENDS, "cr": (b"", b"\r"), "bom": (b"\xef\xbb\xbf", b"\n")}


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_an_audit_log_with_a_bom_and_cr_line_ends_is_the_same_log(
    tmp_path: Path, tables: dict[str, str], fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CSV or JSON Lines log written with CR-only, CRLF or LF line ends, with or
    without a BOM, is audited as the LF log is (the CSV header check read a CR-only log
    as one line: a csv.Error traceback; DuckDB refused a CR-only JSON Lines log: it is
    given an LF copy, in a temporary folder deleted afterwards)."""
    import tempfile

    from solver.audit.deal import deal

    log = tmp_path / "lf" / f"log.{fmt}"
    log.parent.mkdir()
    deal("niuniu", 30, players=4, seed=5, out=str(log))
    text = log.read_bytes().replace(b"\r\n", b"\n").decode()
    assert text.count("\n") == 150 + (fmt == "csv")  # LF only: the written styles differ
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    results = {}
    for style, (bom, end) in LOG_ENDS.items():
        path = tmp_path / style / log.name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(bom + text.replace("\n", "\x00").encode().replace(b"\x00", end))
        code, out, err = run(["audit", "niuniu", str(path), "--json", "--tables", tables["niuniu"]])
        assert code in (0, 1) and err == "", (style, err)
        res = json.loads(out)
        res.pop("seconds")
        results[style] = res
    assert results["lf"]["rows"] == 150 and results["lf"]["rounds"] == 30
    assert all(res == results["lf"] for res in results.values())
    assert list(temp.iterdir()) == []  # the LF copies are gone


def test_a_cr_only_log_names_itself_not_its_copy(tmp_path: Path, tables: dict[str, str]) -> None:
    """A bad row of a CR-only JSON Lines log (read from an LF copy) is named in the log:
    the same message as for the LF log; files read alike, several at once."""
    from solver.audit.deal import deal

    lf, cr = tmp_path / "lf" / "log.jsonl", tmp_path / "cr" / "log.jsonl"
    lf.parent.mkdir()
    cr.parent.mkdir()
    deal("niuniu", 20, players=3, seed=2, out=str(lf))
    rows = lf.read_bytes().split(b"\n")
    rows[2] = rows[2][:-3]  # a row cut short
    lf.write_bytes(b"\n".join(rows))
    cr.write_bytes(b"\r".join(rows))
    errs = [run(["audit", "niuniu", str(p), "--tables", tables["niuniu"]]) for p in (lf, cr)]
    assert_clean_error(*errs[1], f"{cr}")
    assert errs[1][2].replace(str(cr), "LOG") == errs[0][2].replace(str(lf), "LOG")
    first = tmp_path / "first.jsonl"
    deal("niuniu", 20, players=3, seed=1, out=str(first))
    deal("niuniu", 20, players=3, seed=2, out=str(lf))
    cr.write_bytes(lf.read_bytes().replace(b"\n", b"\r"))
    both = [run(["audit", "niuniu", str(first), str(p), "--json", "--tables", tables["niuniu"]])
            for p in (lf, cr)]  # fmt: skip
    assert both[0][0] in (0, 1), both[0]
    res = [json.loads(out) for _, out, _ in both]
    for r in res:
        r.pop("seconds")
    assert res[0]["rounds"] == 40 and res[0] == res[1]  # per file: the same base names


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"round,role,hand\n1,banker,caf\xe9\n", "log {f} line 2: not UTF-8 text (Latin-1?)"),
        ("round,role,hand\n".encode("utf-16"), "log {f} line 1: not UTF-8 text (UTF-16?)"),
        ("round,role,hand\n".encode("utf-16-le"), "log {f} line 1: NUL bytes; not a text file"),
        (b"round,role,hand\r1,banker,\0\r", "log {f} line 2: NUL bytes; not a text file"),
        (b"\xef\xbb\xbf\n\r\n", "{f}: no rows to audit (the file is empty)"),
        (b"round,role,hand,ROLE\r1,banker,x", "the header names the column 'role' twice"),
    ],
)
def test_an_audit_log_that_is_not_utf8_text_is_one_line(
    tmp_path: Path, body: bytes, needle: str, engine: str
) -> None:
    """The logs are checked through the one reader before either engine reads them (no
    JVM is started for these): another encoding, NUL bytes (DuckDB audited a CSV row
    holding one as a malformed round), an empty file (was: 'lacks the columns round,
    role, hand (columns: column0)'); each named with its line."""
    log = tmp_path / "log.csv"
    log.write_bytes(body)
    code, out, err = run(["audit", "niuniu", str(log), "--engine", engine])
    assert_clean_error(code, out, err, needle.format(f=log))


def _long_log(tmp_path: Path, fmt: str) -> list[bytes]:
    """The lines of a good log of 1.3 MB or more (past the head checked before the
    engines read a log): a small dealt log repeated, each copy's rounds renumbered."""
    import re

    from solver.audit.deal import deal

    base = tmp_path / f"base.{fmt}"
    deal("niuniu", 30, players=4, seed=5, out=str(base))
    lines = base.read_bytes().split(b"\n")[:-1]
    head, rows = lines[: fmt == "csv"], lines[fmt == "csv" :]
    start = re.compile(rb"^(\{\"round\": )?(\d+)")
    out, shift = list(head), 0
    while sum(map(len, out)) < 1_300_000:
        out += [start.sub(lambda m, k=shift: (m[1] or b"") + b"%d" % (int(m[2]) + k), r)
                for r in rows]  # fmt: skip
        shift += 30
    return out


@pytest.mark.parametrize(
    ("fmt", "engine", "spoil", "reason", "ends"),
    [
        ("csv", "duckdb", "latin1", "not UTF-8 text (Latin-1?)", b"\n"),
        ("jsonl", "spark", "latin1", "not UTF-8 text (Latin-1?)", b"\r\n"),
        ("jsonl", "duckdb", "latin1", "not UTF-8 text (Latin-1?)", b"\r"),
        ("csv", "spark", "nul", "NUL bytes; not a text file", b"\n"),
        ("csv", "duckdb", "column", "Expected Number of Columns: 7 Found: 8", b"\r\n"),
        ("jsonl", "duckdb", "cut", "not a JSON object", b"\r"),
    ],
)
def test_a_bad_row_past_the_first_megabyte_of_a_log_is_named(
    tmp_path: Path, fmt: str, engine: str, spoil: str, reason: str, ends: bytes
) -> None:
    """A byte that is not UTF-8, a NUL, or a row DuckDB cannot read, far into a CSV or
    JSON Lines log (past the first megabyte, which was all the check read): one line
    naming the log and the line, on both engines. Before, DuckDB's message named
    neither in its first line and reached the user as 'cannot write the output: ...'
    over 25 lines, or DuckDB read on when the byte was in a column it does not read or
    a NUL in a CSV field; Spark read the byte as U+FFFD, or the line as a null row.
    DuckDB's JSON line number is one past the bad line: the line named is the one that
    does not parse. The logs are checked whole before Spark starts: no JVM is started."""
    lines = _long_log(tmp_path, fmt)
    bad = len(lines) - 7  # 1-based: the line spoiled, in the last copy
    assert sum(map(len, lines[: bad - 1])) > 1 << 20
    row = lines[bad - 1]
    lines[bad - 1] = {
        "latin1": row.replace(b'"t1"', b'"t\xe91"'),  # a column the audit does not read
        "nul": row.replace(b'"t1"', b'"t\x001"'),
        "column": row + b",extra",
        "cut": row[:-3],
    }[spoil]
    assert lines[bad - 1] != row
    log = tmp_path / f"log.{fmt}"
    log.write_bytes(ends.join(lines) + ends)
    code, out, err = run(["audit", "niuniu", str(log), "--engine", engine])
    assert_clean_error(code, out, err, f"bull: error: log {log} line {bad}: {reason}")


def test_drill_answers_end_at_cr_lf_or_crlf(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers piped with CR or CRLF line ends (and a BOM) are the same answers."""
    outs = set()
    for bom, end in LINE_ENDS.values():
        stdin = io.TextIOWrapper(io.BytesIO(bom + end.join([b"7", b"3", b"no", b"quit"]) + end))
        outs.add(_ends_with_summary(*_drill(monkeypatch, stdin, ["niuniu"]), "quit"))
    assert len(outs) == 1


# ------------------------------------------ issue 24 (hardening 3): verify's odd claims

IDS = [48, 33, 31, 10, 24]  # KS 9H 8C 3D 7S: rank * 4 + suit (S, H, D, C), niu 7


@pytest.mark.parametrize(
    "hand", ["int8", "uint8", "int16", "uint64", "float64", "large_list", "fixed", "dict_strings"]
)
def test_verify_reads_parquet_hands_of_any_integer_or_text_type(
    tmp_path: Path, tables: dict[str, str], hand: str
) -> None:
    """A Parquet hand column of narrow, unsigned, floating or fixed-size lists of card
    ids, or dictionary-encoded text, is read as the same hands (int8 ids: `ArrowInvalid:
    Value 255 too large` before)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [IDS, IDS]
    arrays = {
        "int8": pa.array(rows, pa.list_(pa.int8())),
        "uint8": pa.array(rows, pa.list_(pa.uint8())),
        "int16": pa.array(rows, pa.list_(pa.int16())),
        "uint64": pa.array(rows, pa.list_(pa.uint64())),
        "float64": pa.array([[float(i) for i in r] for r in rows], pa.list_(pa.float64())),
        "large_list": pa.array(rows, pa.large_list(pa.int32())),
        "fixed": pa.array(rows, pa.list_(pa.int8(), 5)),
        "dict_strings": pa.array([NN, NN]).dictionary_encode(),
    }
    path = tmp_path / "claims.parquet"
    pq.write_table(pa.table({"hand": arrays[hand], "points": pa.array([7, 6], pa.int8())}), path)
    code, out, err = run(["verify", "niuniu", str(path), "--json", "--tables", tables["niuniu"]])
    assert code == 1 and err == "", (out, err)
    summary = json.loads(out)
    assert summary["checked"] == 2 and summary["disagree"] == 1, summary
    assert [e["line"] for e in summary["examples"]] == [2]


def _verify_json(path: Path, tables: dict[str, str]) -> dict[str, Any]:
    code, out, err = run(["verify", "niuniu", str(path), "--json", "--tables", tables["niuniu"]])
    assert code in (0, 1) and err == "", (out, err)
    summary: dict[str, Any] = json.loads(out)
    return summary


def test_verify_a_parquet_column_no_parser_reads_is_malformed_rows(
    tmp_path: Path, tables: dict[str, str]
) -> None:
    """Binary hands not UTF-8, structs, nested lists: malformed rows naming the row,
    the others checked."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cases = {
        "binary": pa.array([NN.encode(), b"\xffKS", NN.encode()]),
        "struct": pa.array([{"a": 1}, {"a": 2}, {"a": 3}]),
        "nested": pa.array([[IDS], [IDS], [IDS]]),
    }
    for name, hand in cases.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"hand": hand, "points": [7, 7, 6]}), path)
        if name != "binary":  # no row readable: one line naming the first
            argv = ["verify", "niuniu", str(path), "--tables", tables["niuniu"]]
            assert_clean_error(*run(argv), "all 3 rows are malformed (first: row 1: hand:")
            continue
        s = _verify_json(path, tables)
        assert s["malformed_rows"] == [{"line": 2, "message": "not UTF-8 text"}]
        assert s["checked"] == 2 and s["disagree"] == 1


def test_verify_a_json_line_not_utf8_is_one_malformed_row(
    tmp_path: Path, tables: dict[str, str]
) -> None:
    """One line of Latin-1 (or a lone surrogate escape) in a JSON Lines file: that line is
    malformed, the rest are read (ArrowInvalid before)."""
    good = f'{{"hand": "{NN}", "points": 7}}\n'.encode()
    path = tmp_path / "c.jsonl"
    for bad in ['{"hand": "KS 9H 8C 3D 7S", "note": "café"}\n'.encode("latin-1"),
                b'{"hand": "KS 9H 8C 3D 7S", "note": "\\udcff"}\n']:  # fmt: skip
        path.write_bytes(good + bad + good)
        s = _verify_json(path, tables)
        assert s["checked"] == 2 and s["agree"] == 2, s
        assert [(m["line"], m["message"][:14]) for m in s["malformed_rows"]] == [
            (2, "not UTF-8 text")
        ]


def test_verify_an_endless_json_line_is_a_malformed_row_in_bounded_memory(
    tmp_path: Path, tables: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line over the limit (1 GB before: a MemoryError at 7.5 GB) is one malformed row,
    skipped in bounded pieces; the lines after it are read. The limit is lowered here so
    that a 200 KB line stands for the 1 GB one."""
    from solver.kit import read_jsonl

    monkeypatch.setattr(read_jsonl, "MAX_LINE_BYTES", 1000)
    good = f'{{"hand": "{NN}", "points": 7}}\n'.encode()
    path = tmp_path / "c.jsonl"
    path.write_bytes(good + b'{"hand": "' + b"K" * 200_000 + b'"}\n' + good * 2)
    s = _verify_json(path, tables)
    assert s["checked"] == 3 and s["agree"] == 3
    assert s["malformed_rows"] == [{"line": 2, "message": "line too long (over 1,000 bytes)"}]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_verify_an_endless_field_is_a_malformed_row_quoted_short(
    tmp_path: Path, tables: dict[str, str], monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """A CSV or JSON field of megabytes (a 30 MB hand was quoted whole in its message):
    its row is malformed, named by line and field, the message short (the limit lowered
    here so that a 50 KB field stands for it)."""
    from solver.kit import columns

    monkeypatch.setattr(columns, "MAX_FIELD_BYTES", 1000)
    huge = "K" * 50_000
    path = tmp_path / f"c.{fmt}"
    if fmt == "csv":
        path.write_text(f"hand,points\n{NN},7\n{huge},7\n{NN},7\n")
    else:
        rows = [{"hand": NN, "points": 7}, {"hand": huge, "points": 7}, {"hand": NN, "points": 7}]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = _verify_json(path, tables)
    want = {"line": 3 if fmt == "csv" else 2, "message": "hand: over 1,000 bytes (not one hand)"}
    assert s["malformed_rows"] == [want] and s["checked"] == 2 and s["agree"] == 2


# ------------------------------------------ issue 24 (hardening 3): the Python API

IDS_OF = {"niuniu": [48, 33, 31, 10, 24], "taungau": [0, 2, 4, 6, 8], "pokdeng": [0, 5]}
OTHER = {"niuniu": "JS QS KD 5H 5D", "taungau": "[6:6][1:1][2:1][4:4][5:3]", "pokdeng": "2C 3C"}


def _api_cases(game: str) -> list[tuple[str, Any, str]]:
    """(what, call, the words the error must hold) for every bad argument of the API."""
    import importlib

    import numpy as np

    m = importlib.import_module(f"solver.games.{game}.play")
    ids = IDS_OF[game]
    other = [i + 1 for i in ids]
    holed = np.array([ids, other], dtype=object)
    holed[1, 1] = None
    side = "dealer" if game == "pokdeng" else "banker"
    cases: list[tuple[str, Any, str]] = [
        ("evaluate(None)", lambda t: m.evaluate(None, tables=t), "a hand is a string"),
        ("evaluate(12345)", lambda t: m.evaluate(12345, tables=t), "not 12345"),
        ("evaluate(bytes)", lambda t: m.evaluate(GOOD[game].encode(), tables=t), "not b'"),
        ("evaluate(dict)", lambda t: m.evaluate({"a": 1}, tables=t), "not {'a': 1}"),
        ("rules=123", lambda t: m.evaluate(GOOD[game], rules=123, tables=t), "rules=123"),
        ("rules=[1]", lambda t: m.evaluate(GOOD[game], rules=[1], tables=t), "rules=[1]"),
        ("tables=123", lambda t: m.evaluate(GOOD[game], tables=123), "tables=123"),
        ("object None", lambda t: m.evaluate_batch(holed, tables=t), "row 1, column 1: None"),
        ("list None", lambda t: m.evaluate_batch([ids, [None] * len(ids)], tables=t),
         "row 1, column 0: None"),
        ("ragged", lambda t: m.evaluate_batch([ids, ids[:-1]], tables=t),
         f"row 1 has {len(ids) - 1} ids, row 0 has {len(ids)}"),
        ("lengths", lambda t: m.settle_batch([ids, other], [other], tables=t),
         f"2 player hands but 1 {side} hands"),
        ("lengths object None", lambda t: m.settle_batch(holed, [other, ids], tables=t),
         "row 1, column 1: None"),
    ]  # fmt: skip
    if game == "niuniu":  # the one game whose API takes a commission
        cases += [
            ("commission='0.05'",
             lambda t: m.settle(GOOD[game], OTHER[game], commission="0.05", tables=t),
             "commission '0.05' is a str"),
            ("settle_batch commission='0.05'",
             lambda t: m.settle_batch([ids], [other], commission="0.05", tables=t),
             "commission '0.05' is a str"),
        ]  # fmt: skip
    return cases


@pytest.mark.parametrize("game", GAMES)
def test_the_api_raises_bull_error_naming_the_bad_argument(
    tables: dict[str, str], game: str
) -> None:
    """Not a TypeError, ValueError or AttributeError from deep inside: a BullError, one
    line, naming what is wrong (issue 24)."""
    for what, call, needle in _api_cases(game):
        with pytest.raises(Exception) as e:
            call(tables[game])
        assert isinstance(e.value, BullError), (what, type(e.value).__name__, e.value)
        assert needle in str(e.value) and "\n" not in str(e.value), (what, str(e.value))


@pytest.mark.parametrize("game", GAMES)
def test_the_api_still_takes_every_good_spelling(tables: dict[str, str], game: str) -> None:
    """The validators refuse only what is wrong: a string, a list or tuple of names or
    ids, a 1-D array of ids, a Path for the tables, integral floats in a batch."""
    import importlib

    import numpy as np

    m = importlib.import_module(f"solver.games.{game}.play")
    want = m.evaluate(GOOD[game], tables=tables[game])
    for hand in (GOOD[game].replace("[", " [").split(), tuple(IDS_OF[game])):
        m.evaluate(hand, tables=Path(tables[game]))
    assert m.evaluate(np.array(IDS_OF[game]), tables=tables[game]) == m.evaluate(
        IDS_OF[game], tables=tables[game]
    )
    assert want == m.evaluate(GOOD[game], rules=None, tables=tables[game])
    batch = np.array([IDS_OF[game]], dtype=object)
    assert len(next(iter(m.evaluate_batch(batch, tables=tables[game]).values()))) == 1


# ------------------------------------------ issue 24 (hardening 3): check-tables


def _demo_set(directory: Path) -> Path:
    """A small table set written (through the store's own writer) into ``directory``."""
    import numpy as np

    from solver.store import sets
    from solver.store import tables as tb

    t = tb.make_table("demo", {"a": np.arange(1000, dtype=np.int16)}, {"r": {"k": 1}})
    sets.write_set({"demo": t}, directory)
    tb._LOADED.clear()
    tb._RESOLVED.clear()
    return tb.resolve_set(directory) / "demo.parquet"


def test_check_tables_in_a_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    """A tables folder named in another encoding is written, checked and named (a
    UnicodeEncodeError before): through the real stdout, in its own process."""
    import os
    import subprocess
    import sys

    folder = os.fsdecode(os.fsencode(tmp_path) + b"/t\xff-tables")
    _demo_set(Path(folder))
    proc = subprocess.run(
        [sys.executable, "-m", "solver", "check-tables", "--tables", folder],
        capture_output=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert os.fsencode(folder) in proc.stdout and b"demo: 1,000 rows" in proc.stdout
    code, out, err = run(["check-tables", "--tables", folder, "--json"])
    assert code == 0 and json.loads(out)["ok"], err


def test_check_tables_reads_the_parquet_footers_copy_of_the_metadata(tmp_path: Path) -> None:
    """Arrow reads the metadata from the schema it embeds; other readers (DuckDB, Spark)
    from the footer's key-value copy. A digest edited in that copy alone is caught."""
    import pyarrow.parquet as pq

    path = _demo_set(tmp_path)
    digest = pq.ParquetFile(path).metadata.metadata[b"bull.digest"].strip(b'"')
    raw = path.read_bytes()
    assert raw.count(digest) == 1  # the footer's plain copy (the schema's is base64)
    flipped = digest[:-1] + (b"0" if digest[-1:] != b"0" else b"1")
    path.chmod(0o644)
    path.write_bytes(raw.replace(digest, flipped))
    assert pq.read_table(path).schema.metadata[b"bull.digest"].strip(b'"') == digest
    code, out, err = run(["check-tables", "--tables", str(tmp_path)])
    assert_clean_error(code, "", err, "the Parquet footer's copy of the metadata differs")
    assert "(digest)" in err and "demo: 1,000 rows" in out


def test_check_tables_checks_the_rule_cache(tmp_path: Path) -> None:
    """Every file of ``rules/``: a rule-set table checked as a table and against the
    rule set its name promises, figures against their key, strays named; a table file
    that is a FIFO is a failure, not a hang."""
    import os
    import shutil

    from solver.store import integrity
    from solver.store.custom import rule_digest

    table = _demo_set(tmp_path)
    cache = tmp_path / "rules"
    cache.mkdir()
    good = cache / f"demo-{rule_digest({'k': 1})}-00000000.parquet"
    shutil.copyfile(table, good)
    shutil.copyfile(table, cache / f"demo-{rule_digest({'k': 2})}-00000000.parquet")
    key = {"figures": "demo", "rules": {"k": 1}}
    (cache / f"audit-figures-{rule_digest(key)}-00000000.json").write_text(
        json.dumps({"key": key, "figures": [1, 2]})
    )
    (cache / f"audit-figures-{rule_digest({'x': 0})}-00000000.json").write_text(
        json.dumps({"key": key, "figures": [1, 2]})
    )
    (cache / f"audit-figures-{rule_digest(key)}-11111111.json").write_bytes(b"\xff{")
    (cache / "notes.txt").write_text("hi")
    (cache / ".tmp-1234-demo.parquet").write_text("a write in progress")
    os.mkfifo(cache / f"demo-{rule_digest({'k': 3})}-00000000.parquet")
    got = {c.name: (c.ok, c.problem) for c in integrity.check_tables(tmp_path) if "/" in c.name}
    assert got == {
        f"rules/{good.name}": (True, ""),
        f"rules/demo-{rule_digest({'k': 2})}-00000000.parquet": (
            False, f"holds another rule set than its name says ({rule_digest({'k': 2})})"),
        f"rules/audit-figures-{rule_digest(key)}-00000000.json": (True, ""),
        f"rules/audit-figures-{rule_digest({'x': 0})}-00000000.json": (
            False, f"holds figures of another key than its name ({rule_digest({'x': 0})})"),
        f"rules/audit-figures-{rule_digest(key)}-11111111.json": (
            False, f"unreadable (cached figures {cache}/audit-figures-{rule_digest(key)}"
            "-11111111.json line 1: not UTF-8 text (Latin-1?))"),
        "rules/notes.txt": (False, "not a file of the rule cache"),
        f"rules/demo-{rule_digest({'k': 3})}-00000000.parquet": (
            False, f"unreadable (cannot read table {cache}/demo-{rule_digest({'k': 3})}"
            "-00000000.parquet: it is a FIFO (named pipe), not a regular file)"),
    }  # fmt: skip
    code, _, err = run(["check-tables", "--tables", str(tmp_path)])
    assert code == 2 and err.count("\n") == 1 and "rules/" in err, err


# ---------------------------------------------------------------- issue 24: audit inputs


def _small_log(tmp_path: Path, rounds: int = 30) -> Path:
    from solver.audit.deal import deal

    path = tmp_path / "log.csv"
    deal("niuniu", rounds, players=4, seed=5, out=str(path))
    return path


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("/dev/null", "log /dev/null: it is a character device, not a regular file"),
        ("/dev/zero", "log /dev/zero: it is a character device, not a regular file"),
        ("fifo", "fifo.csv: it is a FIFO (named pipe), not a regular file"),
        ("link_null", "null.csv: it is a link to /dev/null, a character device, not a regular"),
        ("link_fifo", "lfifo.csv: it is a link to {d}/fifo.csv, a FIFO (named pipe), not a"),
        ("broken", "broken.csv: a broken link (to {d}/gone.csv)"),
        ("missing", "nothere.csv: no such file or directory"),
    ],
)
def test_audit_names_what_is_not_a_log_file(tmp_path: Path, kind: str, needle: str) -> None:
    """``bull audit`` said "no such file or folder" for /dev/null, /dev/zero, FIFOs and
    links to them: each is named with what it is, by the one input checker (a FIFO is
    opened without blocking: no hang)."""
    import os

    os.mkfifo(tmp_path / "fifo.csv")
    (tmp_path / "null.csv").symlink_to("/dev/null")
    (tmp_path / "lfifo.csv").symlink_to(tmp_path / "fifo.csv")
    (tmp_path / "broken.csv").symlink_to(tmp_path / "gone.csv")
    names = {"fifo": "fifo.csv", "link_null": "null.csv", "link_fifo": "lfifo.csv",
             "broken": "broken.csv", "missing": "nothere.csv"}  # fmt: skip
    path = kind if kind.startswith("/") else str(tmp_path / names[kind])
    assert_clean_error(*run(["audit", "niuniu", path]), needle.format(d=tmp_path))


def test_audit_refuses_a_csv_header_naming_a_column_twice(tmp_path: Path) -> None:
    log = tmp_path / "dup.csv"
    log.write_text("round,role,hand,Hand\n1,banker,AS 2S 3S 4S 5S,x\n")
    needle = "dup.csv: the header names the column 'hand' twice (columns 3 and 4)"
    assert_clean_error(*run(["audit", "niuniu", str(log)]), needle)


def test_audit_refuses_a_log_named_twice(tmp_path: Path) -> None:
    """The same log twice (or by a link, or a folder and a file in it) was audited as
    every card dealt twice: 'no complete round to audit (... dealt 2 times)'."""
    log = _small_log(tmp_path)
    (tmp_path / "link.csv").symlink_to(log)
    assert_clean_error(*run(["audit", "niuniu", str(log), str(log)]), "the log is named twice")
    assert_clean_error(*run(["audit", "niuniu", str(log), str(tmp_path / "link.csv")]),
                       f"named twice (also as {log})")  # fmt: skip


@pytest.mark.parametrize(
    ("out", "needle"),
    [
        ("{log}", "is the input"),  # (the output-is-an-input check)
        ("{file}", "--out {file}: not a folder"),
        ("{file}/x", "--out {file}/x: cannot write {file}/x: not a directory"),
    ],
)
def test_audit_out_that_cannot_be_written_names_the_file(
    tmp_path: Path, out: str, needle: str
) -> None:
    log = _small_log(tmp_path)
    (tmp_path / "f.txt").write_text("x")
    words = {"log": str(log), "file": str(tmp_path / "f.txt")}
    args = ["audit", "niuniu", str(log), "--out", out.format(**words)]
    assert_clean_error(*run(args), needle.format(**words))


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_deal_out_that_cannot_be_written_names_the_file(tmp_path: Path, ext: str) -> None:
    """The log as the user named it, not the temporary ``.part`` written first (which
    is gone)."""
    out = tmp_path / "no-such-folder" / f"log.{ext}"
    code, stdout, err = run(["deal", "niuniu", "--rounds", "3", "--out", str(out)])
    assert_clean_error(code, stdout, err, f"--out {out}: cannot write it: ")
    assert ".part" not in err and "No such file or directory" in err


def test_audit_by_a_column_of_very_many_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--by hand`` (a group per row) ran for 900 s: groups past a limit are tested but
    summarised, not listed (the output is bounded), and past a higher limit the audit is
    refused in one line (here with the limits lowered, to stay quick)."""
    from solver.audit import batch, command, findings, partial

    log = _small_log(tmp_path, 40)  # 200 rows, ~200 different hands
    code, out, err = run(["audit", "niuniu", str(log), "--by", "hand", "--json"])
    assert code in (0, 1), err
    res = json.loads(out)
    listed = {t["group"] for t in res["fairness"]} | {h["group"] for h in res["hold"]}
    assert len(listed - {"all"}) == findings.MAX_LISTED_GROUPS
    summary = res["groups_not_listed"]
    assert summary["groups"] == 200 - _repeats(log) and summary["not_listed"] == (
        summary["groups"] - findings.MAX_LISTED_GROUPS
    )
    for mod in (batch, command, partial):
        monkeypatch.setattr(mod, "MAX_GROUPS", 150)
    assert_clean_error(*run(["audit", "niuniu", str(log), "--by", "hand"]),
                       "--by hand: more than 150 groups")  # fmt: skip


def _repeats(log: Path) -> int:
    import csv

    with open(log, newline="") as f:
        hands = [r["hand"] for r in csv.DictReader(f)]
    return len(hands) - len(set(hands))


# ---------------------------------------------------------------- issue 23 (bull probe)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["niuniu"], "give the implementation as `-- CMD [ARGS...]` or --url URL"),
        (["niuniu", "--url", "http://127.0.0.1:9/x", "--", "true"], "not both"),
        (["niuniu", "--protocol", "lines", "--", "true"], "--protocol lines needs --fields"),
        (["niuniu", "--protocol", "lines", "--fields", "has_bull,bogus", "--", "true"], "'bogus'"),
        (["niuniu", "--protocol", "lines", "--fields", "points,winner", "--", "true"], "not both"),
        (["niuniu", "--protocol", "csv", "--", "true"], "--protocol"),
        (["niuniu", "--url", "ftp://127.0.0.1/x"], "--url 'ftp://127.0.0.1/x'"),
        (["niuniu", "--url", "localhost"], "--url 'localhost'"),
        (["niuniu", "--url", "http://127.0.0.1:99999/x"], "HOST:PORT"),
        (["niuniu", "--url", "http://127.0.0.1:abc/x"], "HOST:PORT"),
        (["niuniu", "--url", "http://h:1/x", "--protocol", "lines", "--fields", "points"], "JSON"),
        (["niuniu", "--timeout-ms", "0", "--", "true"], "--timeout-ms"),
        (["niuniu", "--timeout-ms", "soon", "--", "true"], "--timeout-ms"),
        (["niuniu", "--budget", "0", "--", "true"], "--budget"),
        (["niuniu", "--window", "0", "--", "true"], "--window"),
        (["niuniu", "--restarts", "-1", "--", "true"], "--restarts"),
        (["niuniu", "--column", "points", "--", "true"], "--column 'points'"),
        (["niuniu", "--rules", "nosuch", "--", "true"], "unknown rule set 'nosuch'"),
        (["pokdeng", "--bet", "double", "--", "true"], "--bet"),
        (["nosuch", "--", "true"], "nosuch"),
    ],
)
def test_bad_probe_input_is_one_line(argv: list[str], needle: str) -> None:
    """Bad ``bull probe`` options are refused before anything is started."""
    assert_clean_error(*run(["probe", *argv]), needle)


# ------------------------------------------ issue 24 (hardening 3): a closed stdin


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["verify", "niuniu", "-", "--format", "csv"], "standard input: no header line"),
        (["eval", "niuniu", "--input", "-"], "no hand given (stdin has no hand lines)"),
        (["round", "niuniu", "--input", "-"], "no round given (stdin has no round lines)"),
    ],
)
def test_a_closed_stdin_is_an_empty_input(
    monkeypatch: pytest.MonkeyPatch, tables: dict[str, str], argv: list[str], needle: str
) -> None:
    """``<&-``: Python's sys.stdin is None (verify: AttributeError before)."""
    monkeypatch.setattr("sys.stdin", None)
    assert_clean_error(*run([*argv, "--tables", tables["niuniu"]]), needle)
