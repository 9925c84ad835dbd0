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
reach ``illegal``. Each disagreeing row gets the correct answer and a short reason.
The diagnosis (:mod:`solver.kit.diagnosis`, :mod:`solver.kit.scoring`, each game's
``diagnose`` catalogue) scores every variant on every row, exactly: how many
disagreements it explains and how many agreeing rows it contradicts, ranked by the
difference; each ``--out`` row's ``explained_by`` lists the ids of the causes that
explain it, in the headline's order. ``--out`` writes the disagreeing rows
atomically: the file appears only once the run is complete. A Wycheproof-style vectors
document (``bull vectors``) is read as its tests, numbered by ``tcId``.

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

import dataclasses
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
from solver.kit.check import Checked, Checker, Columns, blank, read_ahead, take
from solver.kit.findings import FieldStats, Malformed, RowWriter, VerifyReport
from solver.kit.infer import Inference
from solver.kit.parse import joined_text, nonempty, nulls, parse_card_hands, parse_tile_hands
from solver.kit.read import (
    FIELDS,
    MAX_LISTED,
    Chunk,
    detect_format,
    parse_column_options,
    prefetch,
    read_chunks,
)
from solver.kit.scoring import Scorer
from solver.kit.wycheproof import document_rows, is_document, named_rules

__all__ = [
    "FIELDS",
    "FieldStats",
    "Malformed",
    "VerifyReport",
    "cli_verify",
    "infer_file",
    "make_checker",
    "parse_card_hands",
    "parse_tile_hands",
    "verify_file",
]


def make_checker(game: str, rules: Any, options: Mapping[str, Any], tables: str | None) -> Checker:
    """The checker of ``game`` (from the registry)."""
    if game not in games.names():
        raise BullError(f"`bull verify` does not support {game!r} yet")
    return games.get(game).checker(rules, options, tables)


class _Run:
    """The totals of one run, accumulated batch by batch: counts, per-field statistics,
    malformed rows, the diagnosis tally, examples and the ``--out`` rows."""

    def __init__(
        self,
        checker: Checker,
        fields: list[str],
        writer: RowWriter | None,
        diagnose: bool = True,
    ) -> None:
        self.diagnose = diagnose
        self.scorer = Scorer(checker.variants, checker.rules.to_data())
        self.variants, self.causes = self.scorer.variants, self.scorer.causes
        self.tally = self.scorer.tally
        self.fields = fields
        self.stats = {f: [0, 0, 0] for f in fields}
        self.kinds: dict[str, Counter[str]] = {f: Counter() for f in fields}
        self.rows_read = self.checked = self.disagree = self.malformed = 0
        self.malformed_rows: list[Malformed] = []
        self.examples: list[dict[str, Any]] = []
        self.recorded = 0
        self.writer = writer

    def bad_line(self, line: int, message: str) -> None:
        self.malformed += 1
        if len(self.malformed_rows) < MAX_LISTED:
            self.malformed_rows.append(Malformed(line, message))

    def add(self, mode: str, lines: npt.NDArray[np.int64], res: Checked) -> None:
        """One checked group of rows; ``lines``: the line numbers of the group."""
        for i in res.bad_rows.tolist():
            self.bad_line(int(lines[i]), res.messages.get(i, "malformed"))
        self.checked += len(res.rows)
        dis = res.disagree
        self.disagree += int(np.count_nonzero(dis))
        for f in res.stated:  # masks: counted, not summed (a sum of booleans is slower)
            st, ag = res.stated[f], res.agree[f]
            stated, right = int(np.count_nonzero(st)), int(np.count_nonzero(st & ag))
            self.stats[f][0] += right
            self.stats[f][1] += stated - right
            self.stats[f][2] += len(st) - stated
            for k, m in res.kinds.get(f, {}).items():
                self.kinds[f][k] += int(np.count_nonzero(m))
        for f in self.fields:
            if f not in res.stated:
                self.stats[f][2] += len(res.rows)
        dis_rows = np.flatnonzero(dis)
        records = []
        if self.writer is not None or self.recorded < MAX_LISTED:
            limit = len(dis_rows) if self.writer is not None else MAX_LISTED - self.recorded
            records = [
                {"line": int(lines[res.rows[i]]), "row_type": mode, **res.record(i)}
                for i in dis_rows[:limit].tolist()
            ]
            self.recorded += len(records)
        if self.diagnose:  # the records are written once the diagnosis explains them
            self.scorer.add(mode, res, lambda explains: self._write(records, explains))
        else:
            self._write(records, None)

    def _write(self, records: list[dict[str, Any]], explains: npt.NDArray[np.bool_] | None) -> None:
        """Write a group's records of disagreeing rows (to ``--out``, and the first as
        examples), with the causes that explain each (``explains[j]``, ids at the end)."""
        for j, rec in enumerate(records):
            if explains is not None:
                rec["explained_by"] = np.flatnonzero(explains[j]).tolist()
            if self.writer is not None:
                self.writer.write(rec)
            if len(self.examples) < MAX_LISTED:
                self.examples.append(rec)

    def _examples(self) -> list[dict[str, Any]]:
        ids = self.explained_by()
        return [
            {**e, "explained_by": ids(e["explained_by"])} if "explained_by" in e else e
            for e in self.examples
        ]

    def explained_by(self) -> Callable[[list[int]], list[str]]:
        """Variant indices to their ids, in the headline's order (the cover, then the
        rest as ranked)."""
        rank = {v: k for k, v in enumerate(self.tally.order())}
        keys = [v.key for v in self.causes]
        big = len(keys)
        listed = set(rank) | set(range(len(self.variants)))  # a pair left out is not named
        return lambda idx: [
            keys[v] for v in sorted(idx, key=lambda v: (rank.get(v, big), v)) if v in listed
        ]

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
        patterns = self.scorer.patterns()
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
            diagnosis=(*tally.ranked(), *patterns),
            cover=tuple(tally.cover()),
            headline=(tally.headline() if self.diagnose else "diagnosis not run")
            + (f"; unexplained: {patterns[0].description}" if patterns else ""),
            examples=tuple(self._examples()),
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
        if (chunk.made or chunk.codes) and len(sel) == n:  # parsed ahead, or coded
            cols = Columns(cols, chunk.made, chunk.codes)
        res = checker.check_hands(cols) if mode == "hand" else checker.check_showdowns(cols)
        done.append((mode, sel, res))
    return len(keep), done


def verify_file(
    game: str,
    path: str,
    *,
    rules: Any = None,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
    batch_size: int = 262_144,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    out: str | None = None,
    progress: Callable[[int], Any] | None = None,
    diagnose: bool = True,
) -> VerifyReport:
    r"""Verify a claims file; see the module docstring. ``out`` writes the disagreeing
    rows (JSON Lines, or CSV for a ``.csv`` name), atomically. ``progress`` is called
    with the number of rows read so far after each batch. ``diagnose=False`` skips the
    diagnosis (the baseline its cost is measured against).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "claims.csv")
    >>> _ = open(path, "w").write("hand,points,type\n9S 9D,8,pok\n4D 5H 6S,5,straight\n")
    >>> r = verify_file("pokdeng", path)
    >>> r.checked, r.disagree, r.exit_code
    (2, 1, 1)
    >>> r.headline
    'all 1 disagreement is explained by: straights counted (ace both)'
    """
    if fmt in (None, "jsonl") and is_document(path):  # Wycheproof-style vectors
        with document_rows(path) as (flat, label):
            report = verify_file(
                game,
                flat,
                rules=rules,
                fmt="jsonl",
                columns=columns,
                batch_size=batch_size,
                options=options,
                tables=tables,
                out=out,
                progress=progress,
                diagnose=diagnose,
            )
        return dataclasses.replace(report, file=path, line_label=label)
    checker = make_checker(game, rules, options or {}, tables)
    fmt = detect_format(path, fmt)
    # the labels read as dictionaries stay so: parsed from their values (never decoded)
    mapping, label, chunks = read_chunks(path, fmt, columns or {}, batch_size, coded_as_is=True)
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
    # the first chunks are read while the checker prepares; the reader thread parses
    # the columns too when it has time to spare (Arrow and numpy: mostly without the GIL)
    spare = _read_ahead(checker.ahead) if modes == ["hand"] else None
    stream = prefetch(chunks, depth=_AHEAD, spare=spare)
    writer: RowWriter | None = None
    try:
        checker.prepare()
        writer = RowWriter(out) if out else None
        run = _Run(checker, fields, writer, diagnose)
    except BaseException:  # the reader thread stopped: nothing will take its chunks
        stream.close()
        if writer is not None:
            writer.discard()
        raise
    try:
        checked: Iterable[tuple[Chunk, tuple[int, list[Any]]]] = (
            (chunk, _groups(chunk, checker, modes, fmt)) for chunk in stream
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
        while diagnose and run.scorer.next_pass():  # what the pairs contradict, ...
            _, _, again = read_chunks(path, fmt, columns or {}, batch_size, coded_as_is=True)
            for chunk in prefetch(again):
                for mode, _sel, res in _groups(chunk, checker, modes, fmt)[1]:
                    run.scorer.again(mode, res)
    except BaseException:
        stream.close()
        if writer is not None:
            writer.discard()
        raise
    if writer is not None:
        writer.commit(run.explained_by())
    return run.report(game, checker.rules.name, path, label)


_AHEAD = 8
"""Chunks the reader thread takes (and parses) ahead of the check, at most: it keeps
working while the checker prepares (a table's columns and its hands' shapes: 0.3 to 0.4
s at the start when this was measured; from the user's cache now about 0.03 s) and
while a chunk takes the checker longer than most; a chunk of
262,144 hand rows holds about 10 MB. Against 2, 10 M Niu Niu rows on Parquet took
1.52 s instead of 1.70 (best of 8, alternating), for 60 MB more at the peak."""


def _read_ahead(parsers: Mapping[str, Callable[[pa.Array], Any]]) -> Callable[[Chunk], None]:
    """Parse a chunk's columns (:func:`~solver.kit.check.read_ahead`) into it."""

    def parse(chunk: Chunk) -> None:
        chunk.made = read_ahead(chunk.columns, parsers, chunk.codes)

    return parse


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
        named = named_rules(args.file, args.format)
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
        inference = None
        if getattr(args, "infer", False) or getattr(args, "infer_out", None):
            status.show(f"inferring the rule set of {args.file}")
            inference, _ = infer_file(
                args.game,
                args.file,
                rules=args.rules,
                fmt=args.format,
                columns=parse_column_options(args.column or []),
                batch_size=args.batch_size,
                options=options,
                tables=args.tables,
                first=report,
            )
    if inference is not None and getattr(args, "infer_out", None):
        from solver.kit.findings import AtomicFile

        with AtomicFile(args.infer_out) as f:
            f.write(inference.rule_file)
    if args.json:
        data = report.to_json()
        if inference is not None:
            data["inferred"] = inference.to_json()
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        out.write(report.text() + "\n")
        if inference is not None:
            out.write(inference.text() + "\n")
            if getattr(args, "infer_out", None):
                out.write(f"rule file written to {args.infer_out}\n")
            else:
                out.write(inference.rule_file)
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


def infer_file(
    game: str,
    path: str,
    *,
    rules: Any = None,
    fmt: str | None = None,
    columns: Mapping[str, str] | None = None,
    batch_size: int = 262_144,
    options: Mapping[str, Any] | None = None,
    tables: str | None = None,
    first: VerifyReport | None = None,
) -> tuple[Inference, VerifyReport]:
    """``bull verify --infer``: the rule set (searched over the catalogue's rule
    variants, :mod:`solver.kit.infer`) that agrees with the most rows of a claims file,
    and the report under it. ``first``: the report under ``rules``, if already made."""
    from solver.core.rules import to_toml
    from solver.kit.infer import infer_rules

    opts = dict(options or {})

    def variants(spec: Any) -> list[Any]:
        """The causes a report under ``spec`` ranks: the catalogue and its pairs."""
        from solver.kit.infer import with_pairs

        checker = make_checker(game, spec, opts, tables)
        return with_pairs(checker.variants, checker.rules.to_data())

    def run(spec: Any) -> tuple[VerifyReport, list[Any]]:
        rep = verify_file(
            game,
            path,
            rules=spec,
            fmt=fmt,
            columns=columns,
            batch_size=batch_size,
            options=opts,
            tables=tables,
        )
        return rep, variants(spec)

    entry = games.get(game)
    base = entry.load_rules(rules)
    start = run(rules) if first is None else (first, variants(rules))

    def rule_file(data: Mapping[str, Any]) -> str:
        return to_toml(
            data,
            f"{entry.title} rule set inferred by bull verify --infer from {path}\n"
            f"(starting from {base.name!r}). Pass it back as --rules FILE.",
        )

    inference, report = infer_rules(game, base.name, base.to_data(), start, run, rule_file)
    lesson = entry.learn_language(
        path,
        inference.rules,
        fmt=detect_format(path, fmt),
        columns=columns or {},
        batch_size=batch_size,
        options=opts,
    )
    if lesson is None:
        return inference, report
    from solver.kit.infer import with_lesson

    def rerun(data: Mapping[str, Any]) -> VerifyReport:
        return verify_file(
            game, path, rules=data, fmt=fmt, columns=columns, batch_size=batch_size,
            options=opts, tables=tables,
        )  # fmt: skip

    inference, again = with_lesson(inference, lesson.items, lesson.data, rerun, rule_file)
    return inference, (report if again is None else again)
