"""The commands behind ``bull``: each reads its arguments (and input files), asks the
registry for the game, and prints text or JSON Lines. Game-blind; :mod:`solver.cli`
parses the command line and turns errors into one line and an exit code."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from solver import games
from solver.core.errors import BullError
from solver.core.status import StatusLine

__all__ = [
    "BATCH",
    "MAX_LINE",
    "ROUND_SEPARATOR",
    "cmd_advise",
    "cmd_build",
    "cmd_compare",
    "cmd_drill",
    "cmd_edge",
    "cmd_eval",
    "cmd_grab",
    "cmd_odds",
    "cmd_rank",
    "cmd_round",
    "cmd_rules",
    "cmd_strategy",
    "module_command",
]


def _emit(
    records: Sequence[dict[str, Any]],
    as_json: bool,
    text: Callable[[dict[str, Any]], str],
    out: Any,
) -> None:
    for rec in records:
        if as_json:
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        else:
            out.write(text(rec) + "\n")


class _BadLine(Exception):
    """A line of an input file that cannot be a hand (not UTF-8, too long)."""


MAX_LINE = 10_000
"""The longest hand line read (characters)."""
BATCH = 8192
"""Input lines answered per batch: memory stays bounded whatever the file's size."""


MAX_SKIPPED = 64 << 20
"""A line longer than this (bytes) means the input is no hand file at all."""


def _read_lines(source: str) -> Iterator[tuple[int, str | _BadLine]]:
    """Non-blank, non-comment lines of a file (``-`` = stdin), streamed through the one
    bounded reader (:class:`~solver.core.files.Lines`: CR, LF and CRLF end a line, a BOM
    is skipped), with 1-based physical line numbers; a line that cannot be read comes as
    a :class:`_BadLine`. NUL bytes, or a line of more than :data:`MAX_SKIPPED` bytes,
    mean the input is not text: an error (``/dev/zero`` ends, it does not run forever)."""
    from solver.core.files import Lines, open_input

    stream = sys.stdin if source == "-" else open_input(source, "input file", regular=False)
    lines = Lines(
        stream,
        f"input {source}",
        max_line=MAX_LINE,
        nul=True,
        max_skip=MAX_SKIPPED,
        text="a text file of hands",
    )
    try:
        for n, raw in enumerate(lines, 1):
            if raw is None:
                yield n, _BadLine(f"line too long (over {MAX_LINE:,} characters)")
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                yield n, _BadLine("not UTF-8 text")
                continue
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                yield n, stripped
    except OSError as exc:
        raise BullError(f"cannot read input file {source}: {exc.strerror}") from None
    finally:
        if source != "-":
            stream.close()


def _argument_hands(args: argparse.Namespace) -> list[str]:
    hands = list(args.hands or [])
    for i, h in enumerate(hands, 1):
        if len(h) > MAX_LINE:
            raise BullError(f"argument {i}: hand too long ({len(h)} characters)")
    return hands


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The game options given on the command line; one the game does not take is an
    error naming it (never silently ignored)."""
    given = {k: getattr(args, k, None) for k in games.OPTION_KEYS}
    return games.get(args.game).accept(given)


def cmd_build(args: argparse.Namespace, out: Any) -> int:
    from solver.build import build

    def log(s: str) -> None:
        if not args.json:
            out.write(s + "\n")
            out.flush()

    with StatusLine(args.err) as status:
        summary = build(args.game or None, args.tables, log=log, progress=status.show)
    if args.json:
        out.write(json.dumps(summary) + "\n")
    return 0


def _eval_one_by_one(
    game: games.Game, hands: list[str], where: list[str], args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[str]]:
    """Answer each hand alone: the records of the good ones, a message per bad one."""
    options = _options(args)
    good: list[dict[str, Any]] = []
    bad: list[str] = []
    for hand, w in zip(hands, where, strict=True):
        try:
            good += game.eval_records([hand], args.rules, options, args.tables)
        except BullError as one:
            bad.append(f"{w}: {one}")
    return good, bad


def cmd_eval(args: argparse.Namespace, out: Any) -> int:
    """Hands given as arguments are answered together (a bad one is an error, exit 2);
    an ``--input`` file is streamed in batches, a bad line reported with its number and
    skipped (exit 1 at the end, as ``bull verify`` does)."""
    game = games.get(args.game)
    options = _options(args)
    hands = _argument_hands(args)
    if not hands and not args.input:
        raise BullError("no hand given (pass hands as arguments or --input FILE)")
    if hands:
        try:
            records = game.eval_records(hands, args.rules, options, args.tables)
        except BullError as exc:
            if len(hands) > 1 and not any(" " in h.strip() for h in hands):
                joined = " ".join(hands)
                try:
                    game.eval_records([joined], args.rules, options, args.tables)
                except BullError:
                    pass
                else:
                    raise BullError(
                        f"{exc}; a hand is one argument, so quote it: "
                        f'bull eval {game.name} "{joined}"'
                    ) from None
            if len(hands) > 1:  # name the offending argument
                _, bad = _eval_one_by_one(
                    game, hands, [f"argument {i}" for i in range(1, len(hands) + 1)], args
                )
                if bad:
                    raise BullError(bad[0]) from None
            raise
        _emit(records, args.json, game.eval_text, out)
    if not args.input:
        return 0
    from solver.kit.lines import read_blocks

    name = "stdin" if args.input == "-" else args.input
    seen = bad_lines = 0
    for block in read_blocks(args.input, name):
        seen += len(block) + len(block.bad)
        bad_lines += _eval_block(game, block, name, options, args, out)
    if not seen and not hands:
        raise BullError(f"no hand given ({name} has no hand lines)")
    if bad_lines:
        args.err.write(f"bull: {bad_lines:,} input line(s) could not be answered\n")
        return 1
    return 0


def _eval_block(
    game: games.Game, block: Any, name: str, options: dict[str, Any], args: Any, out: Any
) -> int:
    """Answer one block of input lines: the game's batch path first, then one line at a
    time for the lines it leaves (their error messages are the per-hand ones). Writes
    the answers in input order, then the errors; returns how many lines failed."""
    import numpy as np
    import pyarrow as pa

    from solver.kit.textcols import line_bytes

    messages = [(n, f"{name} line {n}: {m}") for n, m in block.bad]
    lines = None
    if len(block):
        try:
            lines = game.eval_lines(block.spans, args.rules, options, args.tables, args.json)
        except BullError:
            lines = None
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    if lines is None:
        todo = np.arange(len(block))
    elif lines.null_count:
        valid = np.unpackbits(np.frombuffer(lines.buffers()[0], dtype=np.uint8), bitorder="little")[
            lines.offset : lines.offset + len(lines)
        ]
        todo = np.flatnonzero(valid == 0)
    else:
        todo = np.zeros(0, dtype=np.int64)
    slow = _eval_slow(game, [block.text(i) for i in todo.tolist()], options, args)
    for i, (_, message) in zip(todo.tolist(), slow, strict=True):
        if message is not None:
            n = int(block.numbers[i])
            messages.append((n, f"{name} line {n}: {message}"))
    if lines is not None and not len(todo):
        _write(out, line_bytes(lines))
    elif len(block):
        pieces: list[bytes | memoryview] = []
        if lines is None:
            pieces = [text.encode("utf-8") for text, _ in slow if text is not None]
        else:  # the block's lines in order: a null row holds no bytes
            wide = np.int64 if lines.type == pa.large_string() else np.int32
            bufs = lines.buffers()
            off = np.frombuffer(bufs[1], dtype=wide)[lines.offset : lines.offset + len(lines) + 1]
            data = memoryview(bufs[2]) if bufs[2] is not None else memoryview(b"")
            at = 0
            for i, (text, _) in zip(todo.tolist(), slow, strict=True):
                pieces.append(data[off[at] : off[i]])
                if text is not None:
                    pieces.append(text.encode("utf-8"))
                at = i
            pieces.append(data[off[at] : off[-1]])
        _write(out, b"".join(pieces))
    messages.sort()
    for _, message in messages:
        args.err.write(f"bull: error: {message}\n")
    return len(messages)


def _eval_slow(
    game: games.Game, texts: list[str], options: dict[str, Any], args: Any
) -> list[tuple[str | None, str | None]]:
    """``(line, error)`` for each hand, answered by the per-hand path."""
    if not texts:
        return []

    def line(rec: dict[str, Any]) -> str:
        body = json.dumps(rec, ensure_ascii=False) if args.json else game.eval_text(rec)
        return body + "\n"

    try:
        records = game.eval_records(texts, args.rules, options, args.tables)
        if len(records) == len(texts):
            return [(line(r), None) for r in records]
    except BullError:
        pass
    out: list[tuple[str | None, str | None]] = []
    for t in texts:
        try:
            (rec,) = game.eval_records([t], args.rules, options, args.tables)
        except BullError as exc:
            out.append((None, str(exc)))
            continue
        out.append((line(rec), None))
    return out


def _write(out: Any, data: bytes | memoryview) -> None:
    """Bytes to a text stream: straight to its buffer when it has one."""
    raw = getattr(out, "buffer", None)
    if raw is not None:
        out.flush()
        raw.write(data)
        raw.flush()
    else:
        out.write(bytes(data).decode("utf-8"))


def cmd_compare(args: argparse.Namespace, out: Any) -> int:
    game = games.get(args.game)
    rec = game.compare_record(args.player, args.other, args.rules, _options(args), args.tables)
    _emit([rec], args.json, game.compare_text, out)
    return 0


def _optional(command: str, name: str) -> games.Game:
    """The game ``name``, if it has the optional ``command``; else an error naming the
    games that do."""
    game = games.get(name)
    if command not in game.commands:
        having = [g for g in games.names() if command in games.get(g).commands]
        raise BullError(f"`bull {command}` is for {', '.join(having)} only, not {name}")
    return game


def cmd_advise(args: argparse.Namespace, out: Any) -> int:
    game = _optional("advise", args.game)
    rec = game.advise_record(args.hand, args.rules, _options(args), args.tables)
    _emit([rec], args.json, game.advise_text, out)
    return 0


def _png_path(path: str | None) -> str | None:
    """A ``--png`` path that a chart can be written to, or an error naming it."""
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        raise BullError(f"--png {path} is a directory; give a file name ending in .png")
    if p.suffix.lower() != ".png":
        raise BullError(f"--png {path}: the file name must end in .png")
    if not p.parent.is_dir():
        raise BullError(f"--png {path}: the folder {p.parent} does not exist")
    return path


def cmd_strategy(args: argparse.Namespace, out: Any) -> int:
    game = _optional("strategy", args.game)
    args.png = _png_path(args.png)
    rec = game.strategy_record(args.rules, _options(args), args.tables, args.png)
    _emit([rec], args.json, game.strategy_text, out)
    return 0


def cmd_odds(args: argparse.Namespace, out: Any) -> int:
    from solver.kit.exact import odds_text

    res = games.get(args.game).odds(args.rules, args.tables)
    if args.json:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(odds_text(res) + "\n")
    return 0


def cmd_edge(args: argparse.Namespace, out: Any) -> int:
    res = games.get(args.game).edge(args.rules, _options(args), args.tables)
    if args.json:
        out.write(json.dumps(res.to_json(), ensure_ascii=False) + "\n")
    else:
        out.write(res.text() + "\n")
    return 0


def cmd_rules(args: argparse.Namespace, out: Any) -> int:
    """``bull rules GAME [--rules NAME|FILE] [--list]``: the effective rule set as TOML
    (every option, defaults filled in), or the presets."""
    from solver.core.rules import to_toml

    game = games.get(args.game)
    if args.list:
        if args.rules:
            raise BullError("--list lists the presets; it takes no --rules")
        presets = []
        for name in game.presets():
            r = game.load_rules(name)
            presets.append(
                {"name": name, "default": name == game.default_rules, "description": r.description}
            )
        if args.json:
            out.write(
                json.dumps({"game": game.name, "presets": presets}, ensure_ascii=False) + "\n"
            )
        else:
            labels = [f"{p['name']}{' (default)' if p['default'] else ''}" for p in presets]
            width = max(len(lb) for lb in labels)
            for lb, p in zip(labels, presets, strict=True):
                out.write(f"{lb:<{width}}  {p['description']}\n")
        return 0
    rule_set = game.load_rules(args.rules)
    if getattr(args, "expand", False):  # issue 22: the full rule language
        expand = getattr(rule_set, "expand", None)
        if expand is None:
            raise BullError(f"--expand: {game.title} rule sets have no category language")
        data = expand()
    else:
        data = rule_set.to_data()
    if args.json:
        out.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        source = args.rules or f"{game.default_rules} (the default preset)"
        out.write(
            to_toml(
                data,
                f"{game.title} rule set {data.get('name')!r}, from {source}: every option,\n"
                "defaults filled in. Save it as a .toml file and pass it as --rules FILE.",
            )
        )
    return 0


def module_command(module: str, func: str) -> Callable[[argparse.Namespace, Any], int]:
    def run(args: argparse.Namespace, out: Any) -> int:
        result: int = getattr(importlib.import_module(module), func)(args, out)
        return result

    return run


# ---------------------------------------------------------------- whole tables


def cmd_rank(args: argparse.Namespace, out: Any) -> int:
    """``bull rank GAME HAND HAND [HAND ...]``: the hands strongest first, from one deck."""
    game = games.get(args.game)
    hands = _argument_hands(args)
    if len(hands) < 2:
        raise BullError("rank needs at least 2 hands (each one quoted argument)")
    rec = game.rank_record(hands, args.rules, _options(args), args.tables)
    _emit([rec], args.json, game.rank_text, out)
    return 0


ROUND_SEPARATOR = "|"
"""Separates the hands of a round on an ``--input`` line: the banker's first."""


def cmd_round(args: argparse.Namespace, out: Any) -> int:
    """``bull round GAME --banker HAND --player HAND ...``, or ``--input FILE`` (one
    round a line, ``BANKER | PLAYER | PLAYER ...``), streamed in batches; a bad line is
    reported with its number and skipped (exit 1 at the end)."""
    game = games.get(args.game)
    options = _options(args)
    players = list(args.players or [])
    if args.banker is None and players:
        raise BullError("--player needs --banker (the banker's or dealer's hand)")
    if args.banker is not None:
        if not players:
            raise BullError("a round needs at least one --player HAND")
        rec = game.round_record(args.banker, players, args.rules, options, args.tables)
        _emit([rec], args.json, game.round_text, out)
    elif not args.input:
        raise BullError("no round given (pass --banker HAND --player HAND ... or --input FILE)")
    if not args.input:
        return 0
    name = "stdin" if args.input == "-" else args.input
    seen = bad_lines = 0
    batch: list[list[str]] = []
    where: list[str] = []

    def flush() -> None:
        nonlocal bad_lines
        if not batch:
            return

        def settle(rounds: list[list[str]], rules: Any, options: Any, tables: Any) -> list[str]:
            return game.round_lines(rounds, rules, options, tables, text=not args.json)

        try:
            records: list[Any] = settle(batch, args.rules, options, args.tables)
        except BullError:
            records = []
            for rnd, w in zip(batch, where, strict=True):
                try:
                    records += settle([rnd], args.rules, options, args.tables)
                except BullError as one:
                    msg = str(one)
                    try:  # the one-round path names the bad hand and its place
                        game.round_record(rnd[0], rnd[1:], args.rules, options, args.tables)
                    except BullError as named:
                        msg = str(named)
                    args.err.write(f"bull: error: {w}: {msg}\n")
                    bad_lines += 1
        out.write("".join(line + "\n" for line in records))  # JSON Lines or text
        batch.clear()
        where.clear()

    for n, line in _read_lines(args.input):
        seen += 1
        if isinstance(line, _BadLine):
            flush()
            args.err.write(f"bull: error: {name} line {n}: {line}\n")
            bad_lines += 1
            continue
        batch.append(line.replace(" | ", "|").split(ROUND_SEPARATOR))  # games trim the rest
        where.append(f"{name} line {n}")
        if len(batch) >= BATCH:
            flush()
    flush()
    if not seen and args.banker is None:
        raise BullError(f"no round given ({name} has no round lines)")
    if bad_lines:
        args.err.write(f"bull: {bad_lines:,} input line(s) could not be settled\n")
        return 1
    return 0


def cmd_grab(args: argparse.Namespace, out: Any) -> int:
    """``bull grab niuniu "AS 10H 3C 7D"``: grab-the-banker odds of four visible cards."""
    game = _optional("grab", args.game)
    options = {"players": args.players} if args.players is not None else {}
    options |= _options(args)
    rec = game.grab_record(args.hand, args.rules, options, args.tables)
    _emit([rec], args.json, game.grab_text, out)
    return 0


def cmd_drill(args: argparse.Namespace, out: Any) -> int:
    """``bull drill GAME``: the terminal trainer (:mod:`solver.kit.drill`), answers read
    from stdin line by line; ends with a summary at end of input, Ctrl-C or the time
    limit."""
    import random

    from solver.kit.drill import drill_lines, hands_range, run_drill

    game = games.get(args.game)
    options = _options(args)
    deck = game.drill_deck(args.rules, args.tables)
    n = hands_range(args.hands, deck)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if args.json:
        out.write(json.dumps({"event": "start", "game": game.name, "n_hands": n, "seed": seed}))
        out.write("\n")
    else:
        out.write(
            f"bull drill {game.name}: {n} hands a deal, seed {seed} "
            "(end: 'quit', Ctrl-D or Ctrl-C)\n"
        )

    def evaluate(hands: list[str]) -> list[dict[str, Any]]:
        return game.eval_records(hands, args.rules, options, args.tables)

    def rank(hands: list[str]) -> dict[str, Any]:
        return game.rank_record(hands, args.rules, options, args.tables)

    run_drill(
        deck, evaluate, rank, game.eval_text, drill_lines(sys.stdin), out,
        hands=n, seed=seed, time_limit=args.time_limit, as_json=bool(args.json),
    )  # fmt: skip
    return 0
