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


SKIPPED = {
    "Auditing logged play": "run by test_audit_examples_run_as_shown: its audits exit 1 "
    "(problems found, on purpose) and print their timings",
    "Speed": "benchmark figures measured on the development machine (scripts/): timings "
    "differ run to run, so they are not compared",
}
"""README sections whose examples are not run, and why."""

SLOW = {
    "bull edge niuniu --rules shoe6 --bet double": "the 6-deck edge averages 3.8 M x 3.8 M "
    "pairs (10-20 s, 1.2 GB); its two figures are recounted independently over the 6,188 "
    "multisets of ranks by tests/niuniu/test_shoe.py::"
    "test_readme_shoe6_double_edge_by_rank_multisets (about 1.5 s)",
    "bull strategy pokdeng --dealer equilibrium --must-draw-at-most 3": "the README's value "
    "is checked by tests/pokdeng/test_equilibrium.py (the same solve, a slow test)",
}
"""Commands of ``sh`` blocks whose figures are not checked here, and why."""


def _sections() -> list[tuple[str, str]]:
    """The README's ``## `` sections: (title, text); a ``### `` subsection stays in its
    section."""
    readme = (REPO / "README.md").read_text()
    parts = re.split(r"^## (.+)$", readme, flags=re.M)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts), 2)]


def _steady(text: str) -> list[str]:
    """Output lines without timings (``computed in 9.6 s``)."""
    return [ln for ln in text.splitlines() if not re.search(r"computed in [\d.]+ s", ln)]


def _run(command: str) -> tuple[int, str, str]:
    import io
    import shlex

    from solver.cli import main

    words = shlex.split(command)
    assert words[0] == "bull", command
    out, err = io.StringIO(), io.StringIO()
    code = main(words[1:], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


FIGURE = re.compile(r"[-+]?\d[\d,]*\.\d+%|[-+]?\d+/\d+")
"""A figure a comment claims: a percentage with decimals or an exact fraction."""


@pytest.mark.slow
@pytest.mark.parametrize("title", [t for t, _ in _sections()])
def test_readme_runs_as_written(
    title: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ``console`` command of the section prints what the README shows (timings
    aside); every ``pycon`` block runs as a doctest and every ``python`` block runs; a
    figure an ``sh`` comment claims is in that command's output. The section's rule
    files (```` ```toml ```` blocks opening ``# NAME.toml``) are written out first."""
    import doctest

    skip = next((why for name, why in SKIPPED.items() if title.startswith(name)), None)
    if skip:
        pytest.skip(skip)
    text = dict(_sections())[title]
    for name, body in re.findall(r"```toml\n# (\S+\.toml)[^\n]*\n(.*?)```", text, re.S):
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for command, shown in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            code, out, err = _run(command)
            assert code == 0, (command, err)
            assert _steady(out) == _steady(shown), command
    for block in re.findall(r"```pycon\n(.*?)```", text, re.S):
        test = doctest.DocTestParser().get_doctest(block, {}, title, "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0, f"{title}: a pycon example differs (see above)"
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        monkeypatch.chdir(REPO)  # the examples read tables/ from the repository root
        exec(compile(block, f"README.md ({title})", "exec"), {})
        monkeypatch.chdir(tmp_path)
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            command, _, comment = line.partition("  #")
            figures = FIGURE.findall(comment)
            if not command.startswith("bull ") or not figures or command.strip() in SLOW:
                continue
            code, out, err = _run(command.strip())
            assert code == 0, (command, err)
            for figure in figures:
                assert figure in out, f"{command.strip()}: the README says {figure}"


def test_every_example_block_is_run() -> None:
    """No example hides in a fence the test does not read: the README's fences are
    console, pycon, python, sh, toml, sql and json; and js, the probe's node adapter
    (run under node by tests/test_probe_transports.py)."""
    readme = (REPO / "README.md").read_text()
    kinds = set(re.findall(r"^```(\w+)$", readme, re.M))
    assert kinds <= {"console", "pycon", "python", "sh", "toml", "sql", "json", "js"}, kinds
    assert {"console", "pycon", "python"} <= kinds
    house = dict(_sections())["House rules"]
    files = set(re.findall(r"```toml\n# (\S+\.toml)", house))
    assert files == {"multi.toml", "forty.toml", "house.toml", "fixed.toml"}
    assert len(re.findall(r"^\$ bull ", house, re.M)) >= 6


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
