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
