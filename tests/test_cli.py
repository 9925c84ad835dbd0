"""The CLI as a person and a script use it: text, JSON Lines, input files, errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli import main


def run(
    *argv: str, stdin: bytes | None = None, monkeypatch: pytest.MonkeyPatch | None = None
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_eval_text_and_json(niuniu_tables: Path) -> None:
    t = str(niuniu_tables)
    code, out, err = run("eval", "niuniu", "KS 9H 8C 3D 7S", "--tables", t)
    assert code == 0 and err == ""
    assert out.startswith("3D 7S 8C 9H KS: niu 7")
    code, out, _ = run(
        "eval", "niuniu", "4S 7H 8D JC KS", "AS 2H 4C 7D 9S", "--json", "--tables", t
    )
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["category"] for r in recs] == ["no_bull", "niu_3"]
    r = recs[1]
    assert r["hand"] == ["AS", "2H", "4C", "7D", "9S"]
    assert r["bull"] == ["AS", "2H", "7D"] and r["rest"] == ["4C", "9S"]
    assert r["has_bull"] is True and r["points"] == 3 and r["rules"] == "classic"
    assert isinstance(r["strength"], int)
    assert recs[0]["bull"] is None and recs[0]["rest"] is None


def test_eval_casino_categories(niuniu_tables: Path) -> None:
    code, out, _ = run(
        "eval",
        "niuniu",
        "AS 2S 3S 4S 5S",
        "AS AH 2S 2H 3D",
        "9S 9H 9D 9C 3S",
        "--rules",
        "casino",
        "--json",
        "--tables",
        str(niuniu_tables),
    )
    assert code == 0
    assert [json.loads(x)["category"] for x in out.splitlines()] == [
        "straight_flush",
        "five_small_bull",
        "four_of_a_kind",
    ]


def test_eval_input_file_and_stdin(
    niuniu_tables: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = tmp_path / "hands.txt"
    f.write_text("# my hands\nKS 9H 8C 3D 7S\n\nJS,QH,KD,5C,5S\n")
    code, out, _ = run(
        "eval", "niuniu", "--input", str(f), "--json", "--tables", str(niuniu_tables)
    )
    assert code == 0
    assert [json.loads(x)["points"] for x in out.splitlines()] == [7, 10]
    code, out, _ = run(
        "eval",
        "niuniu",
        "--input",
        "-",
        "--tables",
        str(niuniu_tables),
        stdin=b"AS 2H 4C 7D 9S\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0 and "niu 3" in out


def test_compare_json_fields(niuniu_tables: Path) -> None:
    code, out, _ = run(
        "compare",
        "niuniu",
        "JS QS KS 5H 5D",
        "4C 7C 8D JD KH",
        "--bet",
        "double",
        "--json",
        "--tables",
        str(niuniu_tables),
    )
    assert code == 0
    rec = json.loads(out)
    assert rec["winner"] == "player" and rec["net"] == pytest.approx(2.85)
    assert rec["reason"] == "niu_niu beats no_bull"
    code, out, _ = run(
        "compare",
        "niuniu",
        "KS 9H 8C 3D 7S",
        "KH 9S 8D 3C 7H",
        "--json",
        "--commission",
        "0",
        "--tables",
        str(niuniu_tables),
    )
    rec = json.loads(out)
    assert rec["winner"] == "player" and rec["net"] == 1
    assert "KS" in rec["reason"] and "KH" in rec["reason"]
    code, out, _ = run(
        "compare", "niuniu", "KH 9S 8D 3C 7H", "KS 9H 8C 3D 7S", "--tables", str(niuniu_tables)
    )
    assert code == 0 and "banker wins" in out and "net -1" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["eval", "niuniu", "KS 9H 8C 3D 7X"], "unknown card '7X'"),
        (["eval", "niuniu", "KS 9H 8C 3D KS"], "duplicate card KS"),
        (["eval", "niuniu", "KS 9H 8C 3D"], "has 4 cards; expected 5"),
        (["eval", "niuniu", "KS 9H 8C 3D 7S 6S"], "has 6 cards; expected 5"),
        (["eval", "niuniu", ""], "has 0 cards"),
        (["eval", "niuniu"], "no hand given"),
        (["eval", "niuniu", "KS 9H 8C 3D 7S", "--rules", "clasic"], "unknown rule set 'clasic'"),
        (["eval", "mahjong", "KS 9H 8C 3D 7S"], "invalid choice: 'mahjong'"),
        (["compare", "niuniu", "KS 9H 8C 3D 7S", "KS 9S 8D 3C 7H"], "KS is in both hands"),
        (
            ["compare", "niuniu", "KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H", "--bet", "triple"],
            "no bet 'triple'",
        ),
        (
            [
                "compare",
                "niuniu",
                "KS 9H 8C 3D 7S",
                "KH 9S 8D 3C 7H",
                "--rules",
                "casino",
                "--bet",
                "double",
            ],
            "no bet 'double'",
        ),
        (
            ["compare", "niuniu", "KS 9H 8C 3D 7S", "KH 9S 8D 3C 7H", "--commission", "1.5"],
            "--commission: '1.5'",
        ),
        (["eval", "niuniu", "KS 9H 8C 3D 7S", "--tables", "/nonexistent/tables"], "does not exist"),
        (["eval", "niuniu", "--input", "/nonexistent/hands.txt"], "cannot read input file"),
        (["frobnicate"], "invalid choice"),
        (["eval", "niuniu", "KS 9H 8C 3D 7S", "--frob"], "unrecognized arguments"),
        (["vectors", "niuniu", "--seed", "-1"], "--seed"),
        (
            ["eval", "niuniu", "KS 9H 8C 3D 7S", "--dealer-draws-at-most", "4"],
            "unrecognized arguments: --dealer-draws-at-most",
        ),
        (["eval", "niuniu", "KS 9H 8C 3D 7S", "--banker-reveals", "first"], "--banker-reveals"),
        (["vectors", "niuniu", "--banker-reveals", "first"], "does not apply to niuniu"),
        (["eval", "taungau", "66 65 43 42 22", "--bet", "double"], "--bet does not apply"),
        (["verify", "pokdeng", "x.csv", "--banker-reveals", "last"], "does not apply to pokdeng"),
        (["edge", "niuniu", "--commission", "nan"], "'nan' must be a fraction"),
        (["edge", "niuniu", "--commission", "inf"], "'inf' must be a fraction"),
        (["edge", "pokdeng", "--dealer-draws-at-most", "10"], "'10' must be 0 to 9"),
        (["advise", "pokdeng", "7H 5D", "--dealer-draws-at-most", "-1"], "'-1' must be 0 to 9"),
        (["vectors", "pokdeng", "--sample", "1000000000"], "--sample"),
        (["strategy", "pokdeng", "--png", "chart.txt"], "must end in .png"),
        (["strategy", "pokdeng", "--png", "/"], "is a directory"),
        (["strategy", "pokdeng", "--png", "/nonexistent/chart.png"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    niuniu_tables: Path, argv: list[str], needle: str
) -> None:
    if "--tables" not in argv:
        argv = [*argv, "--tables", str(niuniu_tables)] if argv[0] in ("eval", "compare") else argv
    code, out, err = run(*argv)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("bull: error: "), err
    assert needle in err
    assert "Traceback" not in err


def test_bad_rule_files(niuniu_tables: Path, tmp_path: Path) -> None:
    cases = {
        "broken.toml": ("specials = [", "not valid TOML"),
        "broken.json": ("{", "not valid JSON"),
        "typo.toml": ('specials = ["five_faces"]\ntie_brake = "x"\n', "missing field"),
        "wronggame.toml": ('game = "pokdeng"\n', "for game 'pokdeng'"),
        "notutf8.toml": (b"\xff\xfe", "not UTF-8"),
    }
    for name, (content, needle) in cases.items():
        f = tmp_path / name
        if isinstance(content, bytes):
            f.write_bytes(content)
        else:
            f.write_text(content)
        code, _, err = run(
            "eval", "niuniu", "KS 9H 8C 3D 7S", "--rules", str(f), "--tables", str(niuniu_tables)
        )
        assert code == 2 and needle in err and err.count("\n") == 1, (name, err)


def test_bad_input_files(niuniu_tables: Path, tmp_path: Path) -> None:
    """A bad line of an --input file is reported with its number and skipped; the good
    lines are answered in order; the exit code is 1 (as verify's)."""
    f = tmp_path / "binary.txt"
    f.write_bytes(b"KS 9H 8C 3D 7S\n\xff\xfe\nAS 2S 3S 4S 5S\n")
    code, out, err = run("eval", "niuniu", "--input", str(f), "--tables", str(niuniu_tables))
    assert code == 1 and f"{f} line 2: not UTF-8" in err
    assert [ln.split(":")[0] for ln in out.splitlines()] == ["3D 7S 8C 9H KS", "AS 2S 3S 4S 5S"]
    f = tmp_path / "huge.txt"
    f.write_text("KS " * 50_000 + "\nKS 9H 8C 3D 7S\n")
    code, out, err = run("eval", "niuniu", "--input", str(f), "--tables", str(niuniu_tables))
    assert code == 1 and f"{f} line 1: line too long" in err and out.count("\n") == 1
    f = tmp_path / "empty.txt"
    f.write_text("\n\n")
    code, _, err = run("eval", "niuniu", "--input", str(f), "--tables", str(niuniu_tables))
    assert code == 2 and "no hand given" in err
    f = tmp_path / "bad_line.txt"
    f.write_text('"quoted\nKS 9H 8C 3D 7S\nKS 9H 8C 3D\n\n# note\nAS 2S 3S 4S 5S\n')
    code, out, err = run("eval", "niuniu", "--input", str(f), "--tables", str(niuniu_tables))
    assert code == 1 and out.count("\n") == 2
    assert f"{f} line 1: unknown card" in err
    assert f"{f} line 3: hand 'KS 9H 8C 3D' has 4 cards" in err
    assert err.splitlines()[-1] == "bull: 2 input line(s) could not be answered"


def test_a_bad_line_after_many_good_ones_is_found_fast(niuniu_tables: Path, tmp_path: Path) -> None:
    f = tmp_path / "many.txt"
    f.write_text("KS 9H 8C 3D 7S\n" * 50_000 + "KS 9H\n" + "AS 2S 3S 4S 5S\n" * 10)
    code, out, err = run("eval", "niuniu", "--input", str(f), "--tables", str(niuniu_tables))
    assert code == 1 and out.count("\n") == 50_010 and f"{f} line 50001:" in err


def test_unquoted_hand_gets_a_hint(niuniu_tables: Path) -> None:
    code, out, err = run(
        "eval", "niuniu", "KS", "9H", "8C", "3D", "7S", "--tables", str(niuniu_tables)
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert 'quote it: bull eval niuniu "KS 9H 8C 3D 7S"' in err


def test_help_and_version() -> None:
    code, _, _ = run("--version")
    assert code == 0
    code, _, _ = run("--help")
    assert code == 0


def test_one_parser_serves_every_call_and_keeps_nothing_between_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """:func:`main` builds its parser once per process; a list option's default is
    copied into each call's arguments, so a command that changes it changes nothing
    the next call sees."""
    from solver import cli

    parser = cli._shared_parser()
    verify = next(a for a in parser._actions if a.dest == "command").choices["verify"]
    seen: list[list[str]] = []

    def run(args: object, out: object) -> int:
        column = args.column  # type: ignore[attr-defined]
        seen.append(list(column))
        column.append("hand=changed")
        return 0

    monkeypatch.setitem(verify._defaults, "run", run)
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify", "niuniu", "a.csv", "--column", "hand=cards"], out, err) == 0
    assert main(["verify", "niuniu", "a.csv"], out, err) == 0
    assert main(["verify", "niuniu", "a.csv"], out, err) == 0
    assert seen == [["hand=cards"], [], []] and cli._shared_parser() is parser


def test_console_script_and_module_entry_point(niuniu_tables: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "solver",
            "eval",
            "niuniu",
            "KS 9H 8C 3D 7X",
            "--tables",
            str(niuniu_tables),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "bull: error: unknown card '7X' (expected rank A 2-10 T J Q K and suit S H D C)"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "solver",
            "eval",
            "niuniu",
            "KS 9H 8C 3D 7S",
            "--tables",
            str(niuniu_tables),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "niu 7" in proc.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_work_shows_progress_on_a_terminal_only(niuniu_tables: Path, tmp_path: Path) -> None:
    claims = tmp_path / "claims.csv"
    claims.write_text("hand,points\nKS 9H 8C 3D 7S,7\n")
    argv = ["verify", "niuniu", str(claims), "--tables", str(niuniu_tables)]
    out, err = io.StringIO(), _Terminal()
    assert main(argv, out=out, err=err) == 0
    assert "verifying" in err.getvalue() and "1 rows" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out=out, err=err) == 0
    assert err.getvalue() == ""  # piped: quiet
    assert "agree 1" in out.getvalue()


@pytest.mark.parametrize(
    "command",
    [
        *("build", "eval", "compare", "advise", "strategy", "odds", "edge", "report"),
        *("verify", "vectors", "check-tables", "rules"),
    ],
)
def test_every_command_has_a_helpful_help(command: str) -> None:
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out):
        code = main([command, "--help"], out=io.StringIO(), err=io.StringIO())
    text = out.getvalue()
    assert code == 0 and text.startswith("usage: bull " + command)
    assert "example:" in text or "Example:" in text
    if command not in ("build", "check-tables", "rules"):
        assert "notation:" in text


class _Full(io.StringIO):
    def write(self, s: str) -> int:
        raise OSError(28, "No space left on device")


def test_a_full_output_is_one_line_not_a_traceback() -> None:
    err = io.StringIO()
    code = main(["rules", "niuniu"], out=_Full(), err=err)
    assert (
        code == 2
        and err.getvalue() == "bull: error: cannot write the output: No space left on device\n"
    )


@pytest.mark.parametrize(
    "game,player,other,side",
    [
        ("niuniu", "JS QS KS 5H 5D", "4C 7C 8D JD KH", "banker"),
        ("taungau", "[6:5][4:1][3:3][5:5][2:2]", "[6:6][4:4][2:1][3:1][1:1]", "banker"),
        ("pokdeng", "6C 4C 5C", "KH 2S 3C", "dealer"),
    ],
)
def test_compare_json_has_one_shape_across_games(
    game: str, player: str, other: str, side: str
) -> None:
    code, out, err = run("compare", game, player, other, "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert {"player", side, "winner", "net", "reason", "rules"} <= set(rec)
    for hand in (rec["player"], rec[side]):
        assert isinstance(hand, dict) and isinstance(hand["hand"], list) and "points" in hand
    assert isinstance(rec["reason"], str) and rec["reason"]
    assert rec["winner"] == "player" and rec["net"] > 0


def test_ctrl_c_while_the_command_line_loads_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interrupt during the first imports (numpy, pyarrow): ``bull: interrupted``
    and exit 130, no traceback (the ``bull`` script's entry point)."""
    import sys

    from solver.__main__ import entry

    class Interrupt:
        def find_spec(self, name: str, path: object, target: object = None) -> None:
            if name == "solver.cli":
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, "solver.cli")
    monkeypatch.setattr(sys, "meta_path", [Interrupt(), *sys.meta_path])
    with pytest.raises(SystemExit) as stop:
        entry()
    assert stop.value.code == 130
    assert capsys.readouterr().err == "bull: interrupted\n"
