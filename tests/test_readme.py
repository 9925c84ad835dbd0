"""The README's headline numbers are the code's output, not typed by hand."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_headline_block_is_current() -> None:
    if not (REPO / "tables" / "MANIFEST.json").exists():
        pytest.skip("committed tables are absent")
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import headline as script
    finally:
        sys.path.pop(0)
    from solver.report import headline, headline_text

    readme = (REPO / "README.md").read_text()
    fresh = script.replace_block(readme, headline_text(headline(str(REPO / "tables"))))
    assert readme == fresh, "README headline block is stale: run scripts/headline.py --write"
    block = readme.split(script.START)[1].split(script.END)[0]
    assert re.search(r"`-1/40`", block)  # classic equal bet, 5% commission: exactly -1/40


def test_readme_opens_with_the_two_commands() -> None:
    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    commands = [line for line in blocks[0].splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    assert "bull build" in commands[0]
    assert "pytest" in commands[1]
    ci = (REPO / ".ci" / "run").read_text()
    assert commands[1] in ci, ".ci/run must run exactly the README's test command"


def _house_rules_section() -> str:
    readme = (REPO / "README.md").read_text()
    return readme.split("## House rules", 1)[1].split("\n## ", 1)[0]


@pytest.mark.slow
def test_house_rules_examples_run_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule file of the README's "House rules" section, written out, and every
    command shown there, run: the output is what the README shows (timings aside)."""
    import io
    import shlex

    from solver.cli import main

    section = _house_rules_section()
    files = re.findall(r"```toml\n# (\S+\.toml)[^\n]*\n(.*?)```", section, re.S)
    assert {name for name, _ in files} == {"multi.toml", "forty.toml", "house.toml", "fixed.toml"}
    for name, body in files:
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runs = 0
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for command, shown in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            out, err = io.StringIO(), io.StringIO()
            code = main(shlex.split(command)[1:], out=out, err=err)
            assert code == 0, (command, err.getvalue())

            def steady(text: str) -> list[str]:
                return [ln for ln in text.splitlines() if "computed in" not in ln]

            assert steady(out.getvalue()) == steady(shown), command
            runs += 1
    assert runs >= 6


def _audit_section() -> str:
    readme = (REPO / "README.md").read_text()
    return readme.split("## Auditing logged play", 1)[1].split("\n## ", 1)[0]


@pytest.mark.slow
def test_audit_examples_run_as_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit section's rule file written out and its console commands run (deals of
    2,000 rounds: a few seconds): the output is what the README shows, timings aside;
    the templates for one's own logs use only options ``bull audit`` has, and no ``--by``
    column a log of ours lacks (issue 28: ``--by seat_kind``)."""
    import io
    import shlex

    from solver.cli import _parser, main

    section = _audit_section()
    files = re.findall(r"```toml\n# (\S+\.toml)[^\n]*\n(.*?)```", section, re.S)
    assert [name for name, _ in files] == ["free.toml"]
    for name, body in files:
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    def steady(text: str) -> list[str]:
        return [re.sub(r" in \d+(\.\d+)? s$", "", ln) for ln in text.splitlines()]

    runs = 0
    for block in re.findall(r"```console\n(.*?)```", section, re.S):
        for command, shown in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            out, err = io.StringIO(), io.StringIO()
            code = main(shlex.split(command)[1:], out=out, err=err)
            assert code in (0, 1), (command, err.getvalue())
            assert steady(out.getvalue()) == steady(shown), command
            runs += 1
    assert runs == 6
    assert "seat_kind" not in section
    templates = re.findall(r"```sh\n(.*?)```", section, re.S)
    lines = [ln for ln in "".join(templates).splitlines() if ln.startswith("bull ")]
    assert len(lines) >= 5
    for line in lines:
        _parser().parse_args(shlex.split(line.split(" # ")[0])[1:])  # a bad option exits
