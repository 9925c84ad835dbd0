"""The shape of ``solver/``: layers, one folder per game, faces that know no game.

The import graph is read with ``ast`` (every ``import`` and ``from … import`` in every
module, including those inside functions and under ``TYPE_CHECKING``), so a lazy
import cannot hide an edge. The checks: no cycle; no module imports a higher layer;
a game package imports no other game; a face reaches games only through the registry;
no module is longer than the style guide's limit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

SOLVER = Path(__file__).resolve().parent.parent / "solver"
MAX_LINES = 620

FACES = {
    "solver.cli",
    "solver.commands",
    "solver.build",
    "solver.report",
    "solver.verify",
    "solver.vectors",
    "solver.audit",
    "solver.audit.batch",
    "solver.audit.command",
    "solver.audit.deal",
    "solver.audit.duckdb_engine",
    "solver.audit.fairness",
    "solver.audit.findings",
    "solver.audit.logs",
    "solver.audit.report",
    "solver.audit.settle",
    "solver.audit.spark_engine",
    "solver.audit.spec",
}
"""The modules people and scripts call: game-blind, above the registry."""


def module_name(path: Path) -> str:
    rel = path.relative_to(SOLVER.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in SOLVER.rglob("*.py")}


def imports_of(path: Path, name: str, known: Iterable[str]) -> set[str]:
    """The solver modules ``path`` imports (``from a import b`` counts ``a.b`` when that
    is a module, else ``a``)."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "solver"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[: len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            if base.split(".")[0] != "solver":
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                out.add(sub if sub in known else base)
    return {m for m in out if m in known and m != name}


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(path, name, mods) for name, path in mods.items()}


def layer(name: str) -> int:
    """0 the package root (version only), 1 core, 2 store and kits, 3 a game, 4 the
    registry, 5 the faces."""
    parts = name.split(".")
    if name == "solver":
        return 0
    if parts[1] == "core":
        return 1
    if parts[1] in ("store", "kit"):
        return 2
    if parts[1] == "games":
        return 4 if len(parts) == 2 else 3
    return 5


def game_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "games" else None


def find_cycle(edges: Mapping[str, Iterable[str]]) -> list[str] | None:
    """A cycle of the directed graph ``edges``, or ``None``.

    >>> find_cycle({"a": ["b"], "b": ["c"], "c": []}) is None
    True
    >>> find_cycle({"a": ["b"], "b": ["a"]})
    ['a', 'b', 'a']
    """
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in edges.get(n, ()):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state and (found := visit(n)):
            return found
    return None


def violations(edges: Mapping[str, Iterable[str]]) -> list[str]:
    """Every broken rule of the layering, one line each."""
    out = []
    for src, targets in sorted(edges.items()):
        for dst in sorted(targets):
            if layer(dst) > layer(src):
                out.append(f"{src} (layer {layer(src)}) imports {dst} (layer {layer(dst)})")
            gs, gd = game_of(src), game_of(dst)
            if gs and gd and gs != gd:
                out.append(f"game {gs}: {src} imports another game's {dst}")
            if src in FACES and gd:
                out.append(f"face {src} imports the game module {dst} (use the registry)")
    return out


def test_the_checks_can_fail() -> None:
    """The rules catch each kind of mistake on a made-up graph."""
    bad = {
        "solver.core.cards": {"solver.kit.exact"},
        "solver.games.niuniu.play": {"solver.games.pokdeng.hands"},
        "solver.cli": {"solver.games.niuniu.play"},
        "solver.kit.exact": set(),
        "solver.games.pokdeng.hands": set(),
    }
    found = violations(bad)
    assert any("layer 1) imports solver.kit.exact" in v for v in found)
    assert any("another game's" in v for v in found)
    assert any("face solver.cli" in v for v in found)
    assert find_cycle({"solver.a": {"solver.b"}, "solver.b": {"solver.a"}})


def test_no_import_cycle() -> None:
    assert find_cycle(graph()) is None


def test_layers_games_and_faces() -> None:
    assert violations(graph()) == []


def test_the_graph_sees_the_real_imports() -> None:
    """Spot checks that the reader follows lazy and relative imports."""
    g = graph()
    assert "solver.games.niuniu" in g["solver.games"]  # the registry entry
    assert "solver.games.niuniu.odds" in g["solver.games.niuniu"]  # a lazy import
    assert "solver.games" in g["solver.cli"]
    assert set(g) >= {"solver.core.cards", "solver.store.tables", "solver.kit.exact"}


def test_every_game_has_the_same_rooms() -> None:
    from solver import games

    rooms = {"rules", "hands", "play", "commands", "odds", "simulate", "verify", "diagnose"}
    rooms |= {"vectors", "report", "audit", "table"}
    for name in games.names():
        folder = SOLVER / "games" / name
        have = {p.stem for p in folder.glob("*.py")}
        assert rooms <= have, f"{name} lacks {sorted(rooms - have)}"
        assert any((folder / "presets").glob("*.toml")), f"{name} ships no preset"
        assert games.get(name).name == name


@pytest.mark.parametrize(
    "path", sorted(SOLVER.rglob("*.py")), ids=lambda p: str(p.relative_to(SOLVER))
)
def test_modules_stay_readable(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(SOLVER.parent)} has {n} lines"
