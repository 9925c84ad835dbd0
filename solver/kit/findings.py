"""What ``bull verify`` reports: the summary (text or JSON) and the ``--out`` file.

:class:`VerifyReport` is the summary of one run: rows read and checked, agreements and
disagreements per field (with their kinds, e.g. Tau Ngau ``suboptimal``/``illegal``),
malformed rows with their line numbers, the diagnosis and the exit code.
:class:`RowWriter` writes the disagreeing rows (JSON Lines, or CSV for a ``.csv``
name) through an :class:`AtomicFile`: the file appears only once complete.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.core.errors import BullError

__all__ = ["AtomicFile", "FieldStats", "Malformed", "RowWriter", "VerifyReport"]


class AtomicFile:
    """A text file that appears at ``path`` only complete: written to a temporary file
    in the same directory and renamed over ``path`` (:func:`os.replace`) by
    :meth:`commit`. Until then an older file at ``path`` stays as it was; a failure or an
    interruption (:meth:`discard`, or leaving a ``with`` block by an exception) leaves
    no partial file behind. A path that exists and is not a regular file (a device, a
    pipe) is written directly: there is nothing to rename over.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with AtomicFile(path) as f:
    ...     f.write("half")
    ...     os.path.exists(path)
    False
    >>> open(path).read(), os.listdir(os.path.dirname(path))
    ('half', ['out.txt'])
    """

    def __init__(self, path: str, newline: str | None = None) -> None:
        self.path = path
        self.tmp: str | None = None
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, "Is a directory", path)
            if os.path.exists(path) and not os.path.isfile(path):
                self.f = open(path, "w", encoding="utf-8", newline=newline)  # noqa: SIM115
                return
            folder, name = os.path.split(os.path.abspath(path))
            self.tmp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.tmp")
            self.f = open(self.tmp, "x", encoding="utf-8", newline=newline)  # noqa: SIM115
        except OSError as exc:
            raise BullError(f"cannot write {path}: {exc.strerror}") from None

    def write(self, text: str) -> None:
        try:
            self.f.write(text)
        except OSError as exc:
            self.discard()
            raise BullError(f"cannot write {self.path}: {exc.strerror}") from None

    def commit(self) -> None:
        """Flush the data to disk and put the file in place."""
        try:
            self.f.flush()
            if self.tmp is not None:
                os.fsync(self.f.fileno())
            self.f.close()
            if self.tmp is not None:
                os.replace(self.tmp, self.path)
                self.tmp = None
        except OSError as exc:
            self.discard()
            raise BullError(f"cannot write {self.path}: {exc.strerror}") from None

    def discard(self) -> None:
        """Drop what was written (the temporary file); ``path`` is left untouched."""
        self.f.close()
        if self.tmp is not None:
            Path(self.tmp).unlink(missing_ok=True)
            self.tmp = None

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


class RowWriter:
    """Writes disagreeing rows as JSON Lines, or CSV for a ``.csv`` name, atomically.

    A row's ``explained_by`` may be given as variant indices while the run streams (the
    ranking that orders them is known only at its end): such rows are spooled to an
    anonymous temporary file and written at :meth:`commit`, which turns the indices into
    ids with the function it is given.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.csv = Path(path).suffix.lower() == ".csv"
        self.f = AtomicFile(path, newline="")
        self.w: Any = None
        self.spool: Any = None
        if self.csv:
            self.w = csv.writer(self.f)
            self.w.writerow(
                [
                    "line",
                    "row_type",
                    "hand",
                    "player",
                    "banker",
                    "fields",
                    "kind",
                    "claimed",
                    "correct",
                    "reason",
                    "explained_by",
                ]
            )

    def write(self, rec: Mapping[str, Any]) -> None:
        ex = rec.get("explained_by")
        if ex and not isinstance(ex[0], str):
            if self.spool is None:
                self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
            try:
                self.spool.write(json.dumps(rec, ensure_ascii=False) + "\n")
            except OSError as exc:
                self.discard()
                raise BullError(f"cannot write {self.path}: {exc.strerror}") from None
            return
        self._write(rec)

    def _write(self, rec: Mapping[str, Any]) -> None:
        if self.w is None:
            self.f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            return
        self.w.writerow(
            [
                rec.get("line"),
                rec.get("row_type"),
                " ".join(rec.get("hand") or []),
                " ".join(rec.get("player") or []),
                " ".join(rec.get("banker") or rec.get("dealer") or []),
                " ".join(rec.get("fields", [])),
                rec.get("kind", ""),
                json.dumps(rec.get("claimed"), ensure_ascii=False),
                json.dumps(rec.get("correct"), ensure_ascii=False),
                rec.get("reason"),
                "; ".join(rec.get("explained_by", [])),
            ]
        )

    def commit(self, explained_by: Callable[[list[int]], list[str]] | None = None) -> None:
        """The run finished: the spooled rows (``explained_by`` turns their indices into
        ids), then the file put in place."""
        try:
            if self.spool is not None:
                self.spool.seek(0)
                for line in self.spool:
                    rec = json.loads(line)
                    if explained_by is not None:
                        rec["explained_by"] = explained_by(rec["explained_by"])
                    self._write(rec)
                self.spool.close()
                self.spool = None
        except BaseException:  # a failure or an interruption: no partial file
            self.discard()
            raise
        self.f.commit()

    def discard(self) -> None:
        """The run failed: leave no partial file."""
        if self.spool is not None:
            self.spool.close()
            self.spool = None
        self.f.discard()


@dataclass(frozen=True)
class FieldStats:
    """Per claimed field: how many rows agree, disagree, or do not state it."""

    agree: int = 0
    disagree: int = 0
    not_stated: int = 0
    kinds: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "agree": self.agree,
            "disagree": self.disagree,
            "not_stated": self.not_stated,
        }
        if self.kinds:
            out["kinds"] = dict(self.kinds)
        return out


@dataclass(frozen=True)
class Malformed:
    """A row that could not be read: its line (or Parquet row) number and why."""

    line: int
    message: str


@dataclass(frozen=True)
class VerifyReport:
    """The summary of one ``bull verify`` run."""

    game: str
    rules: str
    file: str
    line_label: str
    rows: int
    checked: int
    agree: int
    disagree: int
    malformed: int
    malformed_rows: tuple[Malformed, ...]
    fields: tuple[tuple[str, FieldStats], ...]
    diagnosis: tuple[Any, ...]
    cover: tuple[Any, ...]
    headline: str
    examples: tuple[dict[str, Any], ...]
    diagnosed: int

    @property
    def exit_code(self) -> int:
        return 0 if self.disagree == 0 and self.malformed == 0 else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules": self.rules,
            "file": self.file,
            "rows": self.rows,
            "checked": self.checked,
            "agree": self.agree,
            "disagree": self.disagree,
            "malformed": self.malformed,
            "numbering": self.line_label,
            "malformed_rows": [{"line": m.line, "message": m.message} for m in self.malformed_rows],
            "by_field": {k: v.disagree for k, v in self.fields},
            "fields": {k: v.to_json() for k, v in self.fields},
            "diagnosis": [d.to_json() for d in self.diagnosis],
            "cover": [d.to_json() for d in self.cover],
            "headline": self.headline,
            "diagnosed": self.diagnosed,
            "examples": list(self.examples),
            "exit": self.exit_code,
        }

    def text(self) -> str:
        lab = self.line_label
        lines = [
            f"verify {self.game} {self.file} (rules {self.rules})",
            f"rows read {self.rows}, checked {self.checked}, agree {self.agree}, "
            f"disagree {self.disagree}, malformed {self.malformed}",
        ]
        if self.fields:
            lines.append(f"  {'field':<10} {'agree':>10} {'disagree':>10} {'not stated':>11}")
            for k, v in self.fields:
                extra = ""
                if v.kinds:
                    extra = "  (" + ", ".join(f"{n} {c}" for n, c in v.kinds) + ")"
                lines.append(f"  {k:<10} {v.agree:>10} {v.disagree:>10} {v.not_stated:>11}" + extra)
        if self.malformed:
            lines.append(f"malformed rows ({self.malformed}):")
            for m in self.malformed_rows[:20]:
                lines.append(f"  {lab} {m.line}: {m.message}")
            if self.malformed > 20:
                lines.append(f"  ... {self.malformed - 20} more")
        if self.examples:
            lines.append(f"disagreements (first {min(len(self.examples), 20)}):")
            for ex in self.examples[:20]:
                sep = "" if self.game == "taungau" else " "
                what = (
                    sep.join(ex["hand"])
                    if "hand" in ex
                    else f"{sep.join(ex.get('player', []))} vs "
                    f"{sep.join(ex.get('banker', ex.get('dealer', [])))}"
                )
                lines.append(f"  {lab} {ex['line']}: {what}: {ex['reason']}")
        if self.disagree:
            lines.append("diagnosis (exact, every row): " + self.headline)
            for d in self.diagnosis[:10]:
                lines.append(
                    f"  {d.explains:>8} of {self.diagnosed}  {d.description} [{d.key}]"
                    + (f"  (contradicts {d.contradicts} agreeing rows)" if d.contradicts else "")
                )
        lines.append(
            "result: "
            + (
                "all claims agree"
                if self.exit_code == 0
                else "disagreements found"
                if self.disagree
                else "malformed rows found"
            )
        )
        return "\n".join(lines)
