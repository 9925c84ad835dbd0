"""What each ``bull serve`` endpoint computes: the same registry calls as the CLI's
``--json`` (:mod:`solver.commands`), so one command has one JSON shape on both faces.

Every function here is synchronous and game-blind; it returns the JSON text of the
records (:class:`Answer`), one line per record exactly as the CLI writes them. A bad
item of a batch is named by its place (``hands[3]: unknown card 'ZZ'``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa

from solver import games
from solver.core.errors import BullError
from solver.core.rules import MAX_RULE_FILE
from solver.kit.notation import Spans
from solver.kit.textcols import line_bytes

__all__ = ["FEW", "Answer", "Calls"]

T = TypeVar("T")

FEW = 8
"""Up to this many hands are answered one by one: the batch path's fixed cost (about
half a millisecond) is larger than theirs."""


@dataclass(frozen=True)
class Answer:
    """The JSON lines of an answer; ``many``: a batch (a JSON array over HTTP).
    ``block``: the same lines as one UTF-8 JSON Lines block (the batch path renders
    them so; ``lines`` is then empty).

    >>> a = Answer(["{\\"a\\": 1}", "{\\"a\\": 2}"], many=True)
    >>> a.json() == Answer([], True, b'{"a": 1}\\n{"a": 2}\\n').json() == b'[{"a": 1},{"a": 2}]'
    True
    """

    lines: list[str]
    many: bool
    block: bytes | None = None

    def json(self) -> bytes:
        """The HTTP body: the one record, or the array of them."""
        return b"".join(self.json_parts())

    def json_parts(self) -> list[bytes | memoryview]:
        """:meth:`json` in pieces to send one after the other (a batch's array not
        copied once more to join them)."""
        if self.block is not None:  # a JSON line holds no raw line end: each one ends it
            return [b"[", memoryview(self.block.replace(b"\n", b","))[:-1], b"]"]
        if self.many:
            return [("[" + ",".join(self.lines) + "]").encode()]
        return [self.lines[0].encode()]

    def jsonl(self) -> bytes:
        """JSON Lines: the bytes ``bull ... --json`` prints."""
        if self.block is not None:
            return self.block
        return "".join(line + "\n" for line in self.lines).encode()


def _dumps(rec: Any) -> str:
    return json.dumps(rec, ensure_ascii=False)  # as the CLI's _emit writes a record


def _one(rec: Any) -> Answer:
    return Answer([_dumps(rec)], many=False)


def _many(recs: Sequence[Any]) -> Answer:
    return Answer([_dumps(r) for r in recs], many=True)


def _each(name: str, items: Sequence[T], answer: Callable[[T], Any]) -> list[Any]:
    """``answer`` of every item; a bad one named by its place in the request."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(answer(item))
        except BullError as exc:
            raise BullError(f"{name}[{i}]: {exc}") from None
    return out


def _optional(command: str, game: games.Game) -> None:
    if command not in game.commands:
        having = [g for g in games.names() if command in games.get(g).commands]
        raise BullError(f"`{command}` is for {', '.join(having)} only, not {game.name}")


def _exactly_one(**forms: Any) -> str:
    """The name of the one form of a request that is given."""
    given = [k for k, v in forms.items() if v is not None]
    if len(given) != 1:
        names = " or ".join(repr(k) for k in forms)
        got = ", ".join(repr(k) for k in given) if given else "none"
        raise BullError(f"give exactly one of {names} (got: {got})")
    return given[0]


class Calls:
    """The computations behind the endpoints, for one server's ``tables`` and limits.

    A rule set in a request body is written once, by its content's digest, to a private
    folder of rule files, and passed to the games as that file (what ``--rules FILE``
    does); error messages name it ``rules``, never by its path.
    """

    def __init__(self, tables: str | None = None, max_batch: int = 10_000) -> None:
        self.tables = tables
        self.max_batch = max_batch
        # removed with the object, or at the interpreter's exit (a weakref finalizer)
        self._tmp = tempfile.TemporaryDirectory(prefix="bull-serve-")
        self._dir = Path(self._tmp.name)
        private = re.escape(str(self._dir))
        self._rows = re.compile(private + r"[\\/]verify-[\w.-]+[\\/]claims\.jsonl")
        self._private = re.compile(private + r"[\\/][\w.-]+")
        self._written: list[Path] = []
        self._memo: dict[tuple[Any, ...], Answer] = {}
        self._warm: set[tuple[str, str | None]] = set()

    def close(self) -> None:
        """Remove the private folder (the server's shutdown: a worker process ends by
        ``os._exit``, which runs no exit handler)."""
        self._tmp.cleanup()

    def _memoised(self, key: tuple[Any, ...], compute: Callable[[], Answer]) -> Answer:
        """Exact whole-deck figures (odds, edge, the chart) are computed once per rule set
        and options: they take up to tens of seconds and never change."""
        hit = self._memo.get(key)
        if hit is None:
            hit = compute()
            if len(self._memo) >= 256:
                self._memo.pop(next(iter(self._memo)))
            self._memo[key] = hit
        return hit

    # -- inputs
    def clean(self, message: str) -> str:
        """``message`` without the server's private file names."""
        return self._private.sub("the request's rules", self._rows.sub("rows", message))

    def rules(self, game: games.Game, rules: str | dict[str, Any] | None) -> str | None:
        """The ``rules`` argument the games take for a request's rule set."""
        if rules is None:
            return None
        if isinstance(rules, str):
            presets = game.presets()
            if rules not in presets:
                raise BullError(
                    f"rules: unknown preset {rules!r} for {game.name} (presets: "
                    f"{', '.join(presets)}; a rule file goes in the body as a JSON object)"
                )
            return rules
        data = {"name": "custom", **rules}
        text = json.dumps(data, ensure_ascii=False, sort_keys=True)
        if len(text.encode()) > MAX_RULE_FILE:
            raise BullError(f"rules: larger than {MAX_RULE_FILE:,} bytes; not a rule set")
        digest = hashlib.sha256(f"{game.name}\n{text}".encode()).hexdigest()[:32]
        path = self._dir / f"{game.name}-{digest}.json"
        if not path.exists():
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
            self._written.append(path)
            if len(self._written) > 4096:  # bounded: the oldest files go
                for old in self._written[:2048]:
                    old.unlink(missing_ok=True)
                del self._written[:2048]
        return str(path)

    def batch(self, name: str, items: Sequence[Any]) -> None:
        if len(items) > self.max_batch:
            raise BullError(f"{name}: {len(items):,} items; at most {self.max_batch:,} per request")

    def quick(self, game: games.Game, body: Any) -> bool:
        """Whether ``eval`` of ``body`` is a few hands on a preset whose tables an
        earlier request loaded: an answer of microseconds, no table to build."""
        rules = body.rules
        return (
            len(body.hands) <= FEW
            and (rules is None or isinstance(rules, str))
            and (game.name, rules) in self._warm
        )

    # -- the commands
    def eval(self, game: games.Game, body: Any, column: pa.Array | None = None) -> Answer:
        """``column``: the hands as an Arrow text column, when the caller has one."""
        hands = body.hands
        self.batch("hands", hands)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        if len(hands) <= FEW:  # the per-hand path: no fixed cost of the batch path
            try:
                answer = _many(game.eval_records(hands, spec, options, self.tables))
                if body.rules is None or isinstance(body.rules, str):
                    self._warm.add((game.name, body.rules))
                return answer
            except BullError:
                if len(hands) == 1:
                    raise
                self._name_bad(game, hands, range(len(hands)), spec, options)
                raise
        lines: list[str | None] = [None] * len(hands)
        try:  # the vectorised batch path: null where a hand must be answered alone
            spans = Spans.of_strings(hands) if column is None else Spans.of_arrow(column)
            fast = game.eval_lines(spans, spec, options, self.tables, True)
        except BullError:
            fast = None
        if fast is not None:
            if isinstance(fast, pa.ChunkedArray):
                fast = fast.combine_chunks()
            if fast.null_count == 0:  # every hand answered: its buffer is the answer
                return Answer([], True, line_bytes(fast).tobytes())  # one copy
            lines = fast.to_pylist()
        todo = [i for i, line in enumerate(lines) if line is None]
        try:
            recs = game.eval_records([hands[i] for i in todo], spec, options, self.tables)
        except BullError:
            self._name_bad(game, hands, todo, spec, options)
            raise
        for i, rec in zip(todo, recs, strict=True):
            lines[i] = _dumps(rec)
        return Answer([str(line).rstrip("\n") for line in lines], many=True)

    def _name_bad(
        self, game: games.Game, hands: Sequence[str], todo: Any, spec: str | None, options: Any
    ) -> None:
        """Raise the error of the first bad hand of ``todo``, named by its place."""
        for i in todo:
            try:
                game.eval_records([hands[i]], spec, options, self.tables)
            except BullError as exc:
                raise BullError(f"hands[{i}]: {exc}") from None

    def compare(self, game: games.Game, body: Any) -> Answer:
        form = _exactly_one(player=body.player, pairs=body.pairs)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        if form == "player":
            if body.banker is None:
                raise BullError("'player' needs 'banker' (the banker's or dealer's hand)")
            return _one(game.compare_record(body.player, body.banker, spec, options, self.tables))
        if body.banker is not None:
            raise BullError("'banker' goes with 'player'; 'pairs' are [player, banker] each")
        self.batch("pairs", body.pairs)
        recs = _each(
            "pairs",
            body.pairs,
            lambda pb: game.compare_record(pb[0], pb[1], spec, options, self.tables),
        )
        return _many(recs)

    def rank(self, game: games.Game, body: Any) -> Answer:
        form = _exactly_one(hands=body.hands, deals=body.deals)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        if form == "hands":
            self.batch("hands", body.hands)
            return _one(game.rank_record(body.hands, spec, options, self.tables))
        self.batch("deals", body.deals)
        for i, deal in enumerate(body.deals):
            if len(deal) < 2:
                raise BullError(f"deals[{i}]: rank needs at least 2 hands")
        recs = _each("deals", body.deals, lambda d: game.rank_record(d, spec, options, self.tables))
        return _many(recs)

    def round(self, game: games.Game, body: Any) -> Answer:
        form = _exactly_one(banker=body.banker, rounds=body.rounds)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        if form == "banker":
            if not body.players:
                raise BullError("a round needs at least one hand in 'players'")
            self.batch("players", body.players)
            rec = game.round_record(body.banker, body.players, spec, options, self.tables)
            return _one(rec)
        if body.players is not None:
            raise BullError(
                "'players' goes with 'banker'; each of 'rounds' is [banker, player ...]"
            )
        self.batch("rounds", body.rounds)
        for i, rnd in enumerate(body.rounds):
            if len(rnd) < 2:
                raise BullError(f"rounds[{i}]: a round is the banker's hand and a player's or more")
        try:
            return Answer(game.round_lines(body.rounds, spec, options, self.tables), many=True)
        except BullError:
            pass
        _each(
            "rounds",
            body.rounds,
            lambda r: game.round_record(r[0], r[1:], spec, options, self.tables),
        )
        raise AssertionError("unreachable: the batch failed but every round settled")

    def advise(self, game: games.Game, body: Any) -> Answer:
        _optional("advise", game)
        form = _exactly_one(hand=body.hand, hands=body.hands)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        if form == "hand":
            return _one(game.advise_record(body.hand, spec, options, self.tables))
        self.batch("hands", body.hands)
        recs = _each(
            "hands", body.hands, lambda h: game.advise_record(h, spec, options, self.tables)
        )
        return _many(recs)

    def grab(self, game: games.Game, body: Any) -> Answer:
        _optional("grab", game)
        form = _exactly_one(hand=body.hand, hands=body.hands)
        spec = self.rules(game, body.rules)
        options = {"players": body.players} if body.players is not None else {}
        options |= game.accept(body.options())
        if form == "hand":
            return _one(game.grab_record(body.hand, spec, options, self.tables))
        self.batch("hands", body.hands)
        recs = _each("hands", body.hands, lambda h: game.grab_record(h, spec, options, self.tables))
        return _many(recs)

    def strategy(self, game: games.Game, body: Any) -> Answer:
        _optional("strategy", game)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        return self._memoised(
            ("strategy", game.name, spec, *sorted(options.items())),
            lambda: _one(game.strategy_record(spec, options, self.tables, None)),
        )

    def odds(self, game: games.Game, body: Any) -> Answer:
        spec = self.rules(game, body.rules)
        return self._memoised(
            ("odds", game.name, spec), lambda: _one(game.odds(spec, self.tables).to_json())
        )

    def edge(self, game: games.Game, body: Any) -> Answer:
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        return self._memoised(
            ("edge", game.name, spec, *sorted(options.items())),
            lambda: _one(game.edge(spec, options, self.tables).to_json()),
        )

    def presets(self, game: games.Game) -> Answer:
        """``bull rules GAME --list --json``."""
        presets = []
        for name in game.presets():
            r = game.load_rules(name)
            presets.append(
                {"name": name, "default": name == game.default_rules, "description": r.description}
            )
        return _one({"game": game.name, "presets": presets})

    def rule_set(self, game: games.Game, rules: str | dict[str, Any] | None) -> Answer:
        """``bull rules GAME --rules NAME|FILE --json``: every option, defaults filled in."""
        return _one(game.load_rules(self.rules(game, rules)).to_data())

    def verify(self, game: games.Game, body: Any) -> Answer:
        """``bull verify GAME FILE --json`` of the rows (written as a JSON Lines file);
        ``out``: ``{"report": ..., "out": [the rows --out writes]}``."""
        from solver.verify import verify_file

        self.batch("rows", body.rows)
        spec = self.rules(game, body.rules)
        options = game.accept(body.options())
        work = Path(tempfile.mkdtemp(prefix="verify-", dir=self._dir))
        try:
            claims = work / "claims.jsonl"
            with claims.open("w", encoding="utf-8") as f:
                for row in body.rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            out = work / "out.jsonl" if body.out else None
            report = verify_file(
                game.name,
                str(claims),
                rules=spec,
                options=options,
                tables=self.tables,
                out=None if out is None else str(out),
            )
            report = dataclasses.replace(report, file="request")
            if out is None:
                return _one(report.to_json())
            rows = []
            if out.exists():
                with out.open(encoding="utf-8") as f:
                    rows = [json.loads(line) for line in f if line.strip()]
            return _one({"report": report.to_json(), "out": rows})
        finally:
            for p in work.iterdir():
                p.unlink(missing_ok=True)
            work.rmdir()

    def deal(self, game: games.Game, seed: int, hands: int, deal: int, rules: str | None) -> Answer:
        """Deal number ``deal`` (1-based) of ``bull drill GAME --seed S --hands H``."""
        dealt = self._dealt(game, seed, hands, deal, rules)
        return _one({"game": game.name, "seed": seed, "deal": deal, "hands": dealt})

    def _dealt(
        self, game: games.Game, seed: int, hands: int, deal: int, rules: str | None
    ) -> list[str]:
        from solver.kit.drill import hands_range

        deck = game.drill_deck(self.rules(game, rules), self.tables)
        n = hands_range(hands, deck)
        rng = random.Random(seed)
        items: list[str] = []
        for _ in range(deal):  # the drill's shuffles, in order
            items = list(deck.items)
            rng.shuffle(items)
        return [deck.join.join(items[i * deck.size : (i + 1) * deck.size]) for i in range(n)]

    def warm(self) -> None:
        """Read each game's default tables now, for both paths: without it, each of the
        first single-hand requests reads and checks the Parquet row groups of its hand
        (a few milliseconds; the per-hand path reads whole columns only for a batch of
        dozens), and the first batch pays the whole load."""
        for name in games.names():
            game = games.get(name)
            hands = [h for k in range(1, 26) for h in self._dealt(game, 0, 4, k, None)]
            game.eval_lines(Spans.of_strings(hands), None, {}, self.tables, True)
            game.eval_records(hands, None, {}, self.tables)
            self._warm.add((game.name, None))
