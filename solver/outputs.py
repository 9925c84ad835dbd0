"""No output overwrites an input: one check at the command line's edge, before any
command writes.

Every file a command reads (claims, logs, rule files, strategy files, the tables
directory, the program ``bull probe`` runs) is gathered from the parsed options; every
file or folder it writes (``--out``, ``--infer-out``, ``--png``, the report and audit
folders) is checked against them, after resolving links (and hard links: the same
file on disk). A clash is one line naming both, exit 2 — before anything is written.

>>> import argparse
>>> args = argparse.Namespace(command="verify", file=__file__, out=__file__)
>>> check_outputs(args)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
solver.core.errors.BullError: --out ...outputs.py is the input ...outputs.py; write it elsewhere
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterator
from typing import Any

from solver.core.errors import BullError

__all__ = ["FOLDER_OUTPUTS", "check_outputs"]

FOLDER_OUTPUTS: dict[str, tuple[str, ...]] = {
    "report": ("report.md", "*.png"),
    "audit": ("audit.md", "audit.json", "*.parquet", "*.png"),
}
"""Commands whose ``--out`` is a folder, and the names they write in it."""

argparse_like = Any
"""The parsed options (an :class:`argparse.Namespace`)."""

_FILE_OUTPUTS = (("out", "--out"), ("infer_out", "--infer-out"), ("png", "--png"))


def _same(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _existing(value: Any) -> Iterator[str]:
    """The existing paths an option's value names (a list, a glob, a folder's files)."""
    values = value if isinstance(value, list | tuple) else [value]
    for v in values:
        if not isinstance(v, str) or not v or v == "-":
            continue
        if os.path.lexists(v):
            yield v
        elif glob.has_magic(v):
            yield from glob.glob(v, recursive=True)


def _inputs(args: argparse_like) -> list[str]:
    found: list[str] = []
    for name in ("file", "input", "rules", "player_strategy", "error_rules", "logs"):
        found += _existing(getattr(args, name, None))
    if getattr(args, "command", None) and isinstance(args.command, list):  # bull probe
        found += [w for w in _existing(args.command) if os.path.isfile(w)]
    return found


def _tables_dirs(args: argparse_like) -> list[str]:
    """The tables directories the command may read (the ones that exist)."""
    from solver.store.tables import _REPO_TABLES, ENV_VAR, user_cache_dir

    if getattr(args, "tables", None):
        candidates = [args.tables]
    else:
        candidates = [os.environ.get(ENV_VAR) or "", str(_REPO_TABLES), str(user_cache_dir())]
    return [c for c in candidates if c and os.path.isdir(c)]


def _in_tables(out: str, folder: bool, tables: str) -> bool:
    """Whether writing ``out`` would write into the tables directory ``tables``: its
    sets, its rule cache, a table or manifest, or (a folder output) the directory."""
    if folder and _same(out, tables):
        return True
    if any(_inside(out, os.path.join(tables, sub)) for sub in ("sets", "rules")):
        return True
    top = glob.glob(os.path.join(glob.escape(tables), "*.parquet"))
    return any(_same(out, t) for t in [*top, os.path.join(tables, "MANIFEST.json")])


def check_outputs(args: argparse_like) -> None:
    """Raise :class:`BullError` if an output of the parsed command ``args`` is one of
    its inputs (or of its other outputs, or inside a tables directory)."""
    command = getattr(args, "subcommand", None) or getattr(args, "command", None)
    folder_names = FOLDER_OUTPUTS.get(command) if isinstance(command, str) else None
    outputs = [
        (flag, v)
        for attr, flag in _FILE_OUTPUTS
        if isinstance(v := getattr(args, attr, None), str) and v and v != "-"
    ]
    if not outputs:
        return
    inputs = _inputs(args)
    tables = [] if command == "build" else _tables_dirs(args)
    seen: list[tuple[str, str]] = []
    for flag, out in outputs:
        folder = folder_names is not None and flag == "--out"
        for inp in inputs:
            if _same(out, inp):
                raise BullError(f"{flag} {_cut(out)} is the input {_cut(inp)}; write it elsewhere")
            if folder and os.path.isfile(inp) and _same(os.path.dirname(inp) or ".", out):
                name = os.path.basename(inp)
                if any(fnmatch.fnmatch(name, pat) for pat in folder_names or ()):
                    raise BullError(
                        f"{flag} {_cut(out)} would overwrite the input {_cut(inp)}; "
                        "write it elsewhere"
                    )
        for d in tables:
            if _in_tables(out, folder, d):
                raise BullError(
                    f"{flag} {_cut(out)} is inside the tables directory {_cut(d)}; "
                    "write it elsewhere"
                )
        for other_flag, other in seen:
            if _same(out, other):
                raise BullError(f"{flag} and {other_flag} are the same file {_cut(out)}")
        seen.append((flag, out))


def _cut(text: str, width: int = 60) -> str:
    """A path as quoted in a message: its last ``width`` characters at most.

    >>> _cut("a" * 70)[:3], len(_cut("a" * 70))
    ('…aa', 60)
    """
    return text if len(text) <= width else "…" + text[-(width - 1) :]
