"""Every command of every game run with ``--json`` on small inputs: what
``tests/test_schemas.py`` validates against ``solver/schemas/<command>.json``.

:func:`runs` yields ``(command, argv, stdin)``; ``{tmp}`` in an argument is the test's
temporary directory, where :func:`prepare` has written the input files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from _peers import peer

NOT_RUN = {
    "report": "writes every figure of every game (minutes); tests/test_report.py runs it "
    "and validates its --json against the schema",
    "risk": "simulates up to ten million tables a game (minutes); tests/test_risk_table.py "
    "runs it with small simulations and validates its --json against the schema",
    "serve": "no --json (it serves the other commands' records over HTTP)",
}
"""Commands with a schema this module does not run, and why."""

HANDS = {
    "niuniu": ["KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "4C 7C 8H JD KH"],
    "taungau": [
        "[6:6][6:5][4:3][4:2][2:2]",
        "[6:5][4:1][3:3][5:5][1:1]",
        "[5:4][2:1][3:2][6:1][4:4]",
    ],
    "pokdeng": ["9S 9D", "AC 4C 4D", "KH 2S 3C"],
}
GAMES = tuple(HANDS)


def prepare(tmp: Path) -> list[str]:
    """Write the input files: claims for verify, logs for audit (dealt by ``bull deal``
    in the runs), a player strategy file; returns the probe peer's command."""
    (tmp / "claims-niuniu.csv").write_text(
        "hand,points,has_bull\nKS 9H 8C 3D 7S,7,true\nJS QS KS 5H 5D,9,true\n"
    )
    (tmp / "claims-taungau.csv").write_text("hand,points\n66 65 43 42 22,10\n65 41 33 55 11,3\n")
    (tmp / "claims-pokdeng.csv").write_text(
        "player,dealer,winner,net\n6C 4C 5C,KH 2S 3C,player,2\n9S 9D,AC 4C 4D,player,1\n"
    )
    (tmp / "rounds.txt").write_text("4C 7C 8D JD KH | JS QS KS 5H 5D | AS 2S 3S 4S 6D\n")
    return [str(x) for x in peer(tmp, "pokdeng")]


def runs(tmp: Path) -> Iterator[tuple[str, list[str], str]]:
    t = str(tmp)
    yield "build", ["build", "--game", "taungau", "--tables", f"{t}/built", "--json"], ""
    yield "check-tables", ["check-tables", "--tables", f"{t}/built", "--json"], ""
    for g in GAMES:
        a, b, c = HANDS[g]
        yield "eval", ["eval", g, a, b, c, "--json"], ""
        yield "eval", ["eval", g, "--input", "-", "--json"], f"{a}\n{b}\n"
        yield "compare", ["compare", g, b, c, "--json"], ""
        yield "rank", ["rank", g, a, b, c, "--json"], ""
        yield "round", ["round", g, "--banker", c, "--player", b, "--json"], ""
        yield "round", ["round", g, "--input", "-", "--json"], f"{c} | {b}\n"
        yield "odds", ["odds", g, "--json"], ""
        yield "rules", ["rules", g, "--json"], ""
        yield "rules", ["rules", g, "--list", "--json"], ""
        yield "vectors", ["vectors", g, "--sample", "2", "--out", f"{t}/v-{g}.json", "--json"], ""
        yield "verify", ["verify", g, f"{t}/claims-{g}.csv", "--json"], ""
        yield (
            "deal",
            ["deal", g, "--rounds", "40", "--seed", "3", "--out", f"{t}/log-{g}.csv", "--json"],
            "",
        )
        yield "audit", ["audit", g, f"{t}/log-{g}.csv", "--json"], ""
        yield "drill", ["drill", g, "--seed", "1", "--json"], "no bull\n7\n1\nquit\n"
    yield "eval", ["eval", "niuniu", HANDS["niuniu"][0], "--bet", "double", "--json"], ""
    yield "eval", ["eval", "taungau", HANDS["taungau"][0], "--rules", "pagat", "--json"], ""
    yield "compare", ["compare", "niuniu", *HANDS["niuniu"][1:], "--bet", "double", "--json"], ""
    yield "rules", ["rules", "niuniu", "--expand", "--json"], ""
    yield "edge", ["edge", "niuniu", "--rules", "no_faces", "--json"], ""
    yield "edge", ["edge", "taungau", "--json"], ""
    yield "edge", ["edge", "pokdeng", "--json"], ""
    yield "grab", ["grab", "niuniu", "AS 10H 3C 7D", "--json"], ""
    yield "advise", ["advise", "pokdeng", "7H 5D", "--json"], ""
    yield (
        "advise",
        [
            "advise",
            "pokdeng",
            "5H 2D",
            "--dealer-sees",
            "3",
            "--dealer",
            "best-response",
            "--player",
            "mirror",
            "--json",
        ],
        "",
    )
    yield "strategy", ["strategy", "pokdeng", "--json"], ""
    yield (
        "strategy",
        ["strategy", "pokdeng", "--dealer", "best-response", "--player", "mirror", "--json"],
        "",
    )
    yield "strategy", ["strategy", "pokdeng", "--dealer", "equilibrium", "--json"], ""


def probe_run(tmp: Path, command: list[str]) -> tuple[str, list[str], str]:
    return "probe", ["probe", "pokdeng", "--budget", "30", "--json", "--", *command], ""


def records(text: str) -> list[object]:
    """The JSON Lines of a command's output."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]
