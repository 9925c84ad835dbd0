"""``bull verify``: check another implementation's claims, streamed and vectorised.

A claims file (CSV, JSON Lines or Parquet, by extension or ``--format``) holds **hand
rows** — a ``hand`` plus any of ``has_bull``, ``points``, ``category`` (or ``type``),
``deng`` (Pok Deng), ``bull`` (the three cards/tiles set aside, or ``none``) and
``values`` (Tau Ngau: ``{"[4:2]": 6}`` or ``[4:2]=6``) — and/or **showdown rows** —
``player`` and ``banker`` (or ``dealer``) plus any of ``winner`` and ``net``, and per row
optionally the Niu Niu ``bet`` and ``commission``. Extra columns are ignored; names are
matched case-insensitively and ``--column FIELD=NAME`` renames. A hand is text
(``"AS 10H 3C 7D KS"``, ``"[6:5][4:1]..."``, any spelling of RULES §2) or a list (of
names, or of card ids in our encoding).

The file is read in batches (``pyarrow.csv.open_csv``, ``ParquetFile.iter_batches``,
blocks of JSON Lines) by a reader thread; every batch is parsed and checked with Arrow
compute and numpy (the common spellings without a Python loop, table lookups by colex
rank), so memory stays bounded whatever the file size.

Every well-formed row is **checked**; an empty field is **not stated** (never a
disagreement); a row that cannot be read (an unknown card, a bad number, a wrong number
of fields) is **malformed**: reported with its line number (CSV, JSON Lines) or row
number (Parquet), counted, and the run goes on. Semantics (RULES §8): a Niu Niu or Tau
Ngau bull claim is right when it is a valid bull reaching the claimed score; a Tau
Ngau score the hand can reach but that is not its best is ``suboptimal``, one it cannot
reach ``illegal``. Each disagreeing row gets the correct answer and a short reason, and
the disagreements go to :mod:`solver.diagnose`, which names the rule variants that
explain them. ``--out`` writes the disagreeing rows atomically: the file appears only
once the run is complete.

The parts: :mod:`solver.kit.read` (formats, columns, batches),
:mod:`solver.kit.parse` (claim values and hands), :mod:`solver.kit.check` (what the
games share), one module per game (:mod:`solver.games.niuniu.verify`,
:mod:`solver.games.taungau.verify`, :mod:`solver.games.pokdeng.verify`), :mod:`solver.kit.findings`
(the summary and the ``--out`` file); this module runs them.

Exit codes: 0 everything agrees, 1 a disagreement or a malformed row, 2 bad input
(raised as :class:`~solver.core.errors.BullError`: unreadable file, missing columns, nothing
readable).

>>> sorted(FIELDS)[:4]
['banker', 'bet', 'bull', 'category']
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from solver import games
from solver.core.errors import BullError
from solver.core.status import StatusLine
from solver.kit.check import Checked, Checker, blank, take
from solver.kit.findings import FieldStats, Malformed, RowWriter, VerifyReport
from solver.kit.parse import joined_text, nonempty, nulls, parse_card_hands, parse_tile_hands
from solver.kit.read import (
    FIELDS,
    MAX_LISTED,
    Chunk,
    detect_format,
    parse_column_options,
    peek_rules,
    prefetch,
    read_chunks,
)

__all__ = [
    "FIELDS",
    "FieldStats",
    "Malformed",
    "VerifyReport",
    "cli_verify",
    "make_checker",
    "parse_card_hands",
    "parse_tile_hands",
    "verify_file",
]

SAMPLE_FIRST = 5_000
"""Agreeing rows, from the start of the file, re-checked against every variant."""
SAMPLE_INTERESTING = 20_000
"""Agreeing special-ish rows (rare hands, equal categories) re-checked likewise."""


def make_checker(
    game: str, rules: str | None, options: Mapping[str, Any], tables: str | None
) -> Checker:
    """The checker of ``game`` (from the registry)."""
    if game not in games.names():
        raise BullError(f"`bull verify` does not support {game!r} yet")
    return games.get(game).checker(rules, options, tables)


class _Run:
    """The totals of one run, accumulated batch by batch: counts, per-field statistics,
    malformed rows, the diagnosis tally, examples and the ``--out`` rows."""

    def __init__(self, checker: Checker, fields: list[str], writer: RowWriter | None) -> None:
        from solver.kit.diagnosis import Tally

        self.variants = checker.variants
        self.tally = Tally(self.variants)
        self.mode_index = {
            m: np.array([i for i, v in enumerate(self.variants) if m in v.modes], dtype=np.int64)
            for m in ("hand", "showdown")
        }
        self.fields = fields
        self.stats = {f: [0, 0, 0] for f in fields}
        self.kinds: dict[str, Counter[str]] = {f: Counter() for f in fields}
        self.rows_read = self.checked = self.disagree = self.malformed = 0
        self.malformed_rows: list[Malformed] = []
        self.examples: list[dict[str, Any]] = []
        self.writer = writer
        self.first_left = SAMPLE_FIRST
        self.interesting_left = SAMPLE_INTERESTING

    def bad_line(self, line: int, message: str) -> None:
        self.malformed += 1
        if len(self.malformed_rows) < MAX_LISTED:
            self.malformed_rows.append(Malformed(line, message))

    def add(self, mode: str, lines: npt.NDArray[np.int64], res: Checked) -> None:
        """One checked group of rows; ``lines``: the line numbers of the group."""
        from solver.kit.diagnosis import DIAGNOSE_LIMIT

        for i in res.bad_rows.tolist():
            self.bad_line(int(lines[i]), res.messages.get(i, "malformed"))
        self.checked += len(res.rows)
        dis = res.disagree
        self.disagree += int(dis.sum())
        for f in res.stated:
            st, ag = res.stated[f], res.agree[f]
            self.stats[f][0] += int((st & ag).sum())
            self.stats[f][1] += int((st & ~ag).sum())
            self.stats[f][2] += int((~st).sum())
            for k, m in res.kinds.get(f, {}).items():
                self.kinds[f][k] += int(m.sum())
        for f in self.fields:
            if f not in res.stated:
                self.stats[f][2] += len(res.rows)
        dis_rows = np.flatnonzero(dis)
        explains = None
        if len(dis_rows) and self.tally.total < DIAGNOSE_LIMIT:
            explains = self._agreement(mode, res, dis_rows[: DIAGNOSE_LIMIT - self.tally.total])
            self.tally.add(explains)
        agree_rows = np.flatnonzero(~dis)
        sample = agree_rows[: self.first_left]
        self.first_left -= len(sample)
        extra = agree_rows[len(sample) :]
        extra = extra[res.interesting[extra]][: self.interesting_left]
        self.interesting_left -= len(extra)
        sample = np.concatenate([sample, extra])
        if len(sample):
            self.tally.add_contradicts(~self._agreement(mode, res, sample, fill=True))
        if self.writer is not None or len(self.examples) < MAX_LISTED:
            self._records(mode, lines, res, dis_rows, explains)

    def _agreement(
        self, mode: str, res: Checked, rows: npt.NDArray[np.int64], fill: bool = False
    ) -> npt.NDArray[np.bool_]:
        """``[i, v]``: variant v agrees with every claim of ``rows[i]`` (variants that
        cannot explain rows of this ``mode``: ``fill``)."""
        out = np.full((len(rows), len(self.variants)), fill, dtype=bool)
        for v in self.mode_index[mode].tolist():
            out[:, v] = res.variant_agree(self.variants[v], rows)
        return out

    def _records(
        self,
        mode: str,
        lines: npt.NDArray[np.int64],
        res: Checked,
        dis_rows: npt.NDArray[np.int64],
        explains: npt.NDArray[np.bool_] | None,
    ) -> None:
        limit = len(dis_rows) if self.writer is not None else MAX_LISTED - len(self.examples)
        for j, i in enumerate(dis_rows[:limit].tolist()):
            rec = {"line": int(lines[res.rows[i]]), "row_type": mode, **res.record(i)}
            if explains is not None and j < len(explains):
                rec["explained_by"] = [
                    self.variants[v].description for v in np.flatnonzero(explains[j])[:5]
                ]
            if self.writer is not None:
                self.writer.write(rec)
            if len(self.examples) < MAX_LISTED:
                self.examples.append(rec)

    def report(self, game: str, rules: str, path: str, label: str) -> VerifyReport:
        if self.rows_read == 0:
            raise BullError(f"{path}: no rows to check")
        if self.checked == 0:
            first = self.malformed_rows[0] if self.malformed_rows else None
            where = f" (first: {label} {first.line}: {first.message})" if first else ""
            raise BullError(
                f"{path}: nothing readable: all {self.malformed} rows are malformed{where}"
            )
        tally, disagree = self.tally, self.disagree
        stats, kinds = self.stats, self.kinds
        return VerifyReport(
            game=game,
            rules=rules,
            file=path,
            line_label=label,
            rows=self.rows_read,
            checked=self.checked,
            agree=self.checked - disagree,
            disagree=disagree,
            malformed=self.malformed,
            malformed_rows=tuple(self.malformed_rows),
            fields=tuple(
                (
                    f,
                    FieldStats(
                        stats[f][0],
                        stats[f][1],
                        stats[f][2],
                        tuple(sorted((k, c) for k, c in kinds[f].items() if c)),
                    ),
                )
                for f in self.fields
            ),
            diagnosis=tuple(tally.ranked()),
            cover=tuple(tally.cover()),
            headline=tally.headline()
            + (
                f" (diagnosed on the first {tally.total:,} of {disagree:,} disagreements)"
                if tally.total < disagree
                else ""
            ),
            examples=tuple(self.examples),
            diagnosed=tally.total,
        )


def _groups(
    chunk: Chunk, checker: Checker, modes: list[str], fmt: str
) -> tuple[int, list[tuple[str, npt.NDArray[np.int64], Checked]]]:
    """Check a chunk: the rows kept (blank CSV lines are not rows) and, per kind of row
    (``hand``, ``showdown``), their positions and what the checker found."""
    n = len(chunk)
    if not n:
        return 0, []
    keep = np.flatnonzero(~blank(chunk.columns, n)) if fmt == "csv" else np.arange(n)
    if "hand" in modes and "showdown" in modes:
        hand_st = _stated_rows(chunk.columns["hand"])
        groups = [("hand", keep[hand_st[keep]]), ("showdown", keep[~hand_st[keep]])]
    else:
        groups = [(modes[0], keep)]
    done = []
    for mode, sel in groups:
        if not len(sel):
            continue
        need = ("hand",) if mode == "hand" else ("player", "banker")
        cols = take(
            {
                k: v
                for k, v in chunk.columns.items()
                if k in need or k in checker.fields[mode] or k in ("bet", "commission", "values")
            },
            sel,
        )
        res = checker.check_hands(cols) if mode == "hand" else checker.check_showdowns(cols)
        done.append((mode, sel, res))
    return len(keep), done


def verify_file(
    game: str,
    path: str,
    *,
    rules: str | None = None,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
    batch_size: int = 262_144,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    out: str | None = None,
    progress: Callable[[int], Any] | None = None,
) -> VerifyReport:
    r"""Verify a claims file; see the module docstring. ``out`` writes the disagreeing
    rows (JSON Lines, or CSV for a ``.csv`` name), atomically. ``progress`` is called
    with the number of rows read so far after each batch.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "claims.csv")
    >>> _ = open(path, "w").write("hand,points,type\n9S 9D,8,pok\n4D 5H 6S,5,straight\n")
    >>> r = verify_file("pokdeng", path)
    >>> r.checked, r.disagree, r.exit_code
    (2, 1, 1)
    >>> r.headline
    'all 1 disagreement is explained by: straights counted (ace both)'
    """
    checker = make_checker(game, rules, options or {}, tables)
    fmt = detect_format(path, fmt)
    mapping, label, chunks = read_chunks(path, fmt, columns or {}, batch_size)
    modes = []
    if "hand" in mapping:
        modes.append("hand")
    if "player" in mapping and "banker" in mapping:
        modes.append("showdown")
    if not modes:
        raise BullError(
            f"{path}: missing required columns: need 'hand', or 'player' and "
            "'banker'/'dealer' (rename with --column FIELD=NAME)"
        )
    fields = [f for m in modes for f in checker.fields[m] if f in mapping]
    if not fields:
        want = ", ".join(f for m in modes for f in checker.fields[m])
        raise BullError(f"{path}: no claim columns to check (expected any of: {want})")
    checker.prepare()
    writer = RowWriter(out) if out else None
    run = _Run(checker, fields, writer)
    try:
        checked: Iterable[tuple[Chunk, tuple[int, list[Any]]]] = (
            (chunk, _groups(chunk, checker, modes, fmt)) for chunk in prefetch(chunks)
        )
        for chunk, (kept, groups) in checked:
            for line, msg in chunk.bad:
                run.rows_read += 1
                run.bad_line(line, msg)
            run.rows_read += kept
            for mode, sel, res in groups:
                run.add(mode, chunk.lines[sel], res)
            if progress is not None:
                progress(run.rows_read)
    except BaseException:
        if writer is not None:
            writer.discard()
        raise
    if writer is not None:
        writer.commit()
    return run.report(game, checker.rules.name, path, label)


def _stated_rows(arr: pa.Array) -> npt.NDArray[np.bool_]:
    text = joined_text(arr)
    if text is None:
        return ~nulls(arr)
    return nonempty(pc.utf8_trim_whitespace(text))


def cli_verify(args: Any, out: Any) -> int:
    """The ``bull verify`` subcommand: print the summary, return the exit code."""
    game = games.get(args.game)
    options = game.accept({k: getattr(args, k, None) for k in games.OPTION_KEYS})
    if args.rules is None:  # a vectors file names the rule set its answers hold for
        named = peek_rules(args.file, detect_format(args.file, args.format))
        err = getattr(args, "err", None)
        if named in game.presets():
            args.rules = named
            if err is not None and named != game.default_rules:
                err.write(f"bull: the file names rule set {named!r}; checking against it\n")
        elif named is not None and err is not None:
            err.write(
                f"bull: the file names rule set {named!r}, which is no preset; checking "
                f"against {game.default_rules!r} (pass --rules FILE for {named!r})\n"
            )
    with StatusLine(getattr(args, "err", None)) as status:

        def progress(rows: int) -> None:
            status.show(f"verifying {args.file}: {rows:,} rows")

        report = _verify_for_cli(args, options, progress if status.live else None)
    if args.json:
        out.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(report.text() + "\n")
    return report.exit_code


def _verify_for_cli(
    args: Any, options: dict[str, Any], progress: Callable[[int], Any] | None
) -> VerifyReport:
    return verify_file(
        args.game,
        args.file,
        rules=args.rules,
        fmt=args.format,
        columns=parse_column_options(args.column or []),
        batch_size=args.batch_size,
        options=options,
        tables=args.tables,
        out=args.out,
        progress=progress,
    )
