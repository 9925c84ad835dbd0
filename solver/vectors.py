"""``bull vectors``: conformance test vectors with expected answers, as a Wycheproof-style
JSON document (``--format json``, the default) or as JSON Lines (``--format jsonl``, or
an ``--out`` name ending in ``.jsonl``).

A compact, stable set of hands and showdowns for another implementation to test
itself without our code: every category, every special-hand boundary, every tie-break
situation, every 3/6 subtlety — and, for each rule variant and mistake the verifier
knows (each game's ``diagnose`` catalogue), at least one vector on which that variant gives a
different answer, so a conforming run proves none of them is present. A seeded random
sample follows. The hand-picked part does not depend on ``--seed``.

The document (:mod:`solver.kit.wycheproof`; its JSON Schema ships as
``solver/kit/vectors.schema.json``) has Wycheproof's fields — ``schema``,
``generatorVersion``, ``numberOfTests``, ``header``, ``notes``, ``testGroups`` (by rule
parameters) of ``tests`` with ``tcId``, ``comment``, ``flags`` (the house rules that
legitimately change the answer) and ``result`` — plus the rule set (``rules``,
``rulesDigest``, ``ruleSet``). ``bull verify`` reads it as it reads the JSON Lines.

In JSON Lines each line is one object: ``id``, ``kind`` (``hand`` or ``showdown``), ``tags`` (why it
is there) and the fields ``bull verify`` checks (hand rows: ``hand``, ``has_bull``,
``points``, ``category``...; showdown rows: ``player``, ``banker``/``dealer``,
``winner``, ``net``, with the ``bet`` and ``commission`` used). Hands are written in a
deliberate order (some mistakes depend on it); answers do not depend on the order.

``bull verify GAME VECTORS --rules SAME`` passes with exit code 0.

The parts: :mod:`solver.kit.vectors` (the pool, the catch search, the coverage summary;
what the games share) and one module per game (``solver.games.<game>.vectors``),
reached through the registry; this module is the command.

>>> recs, cov = build_vectors("niuniu", "classic", seed=1, sample=4)
>>> recs[0]["kind"], sorted(recs[0])[:4]
('hand', ['bull', 'category', 'hand', 'has_bull'])
>>> cov["uncaught_variants"]
[]
>>> doc = build_document("niuniu", "classic", seed=1, sample=0)
>>> doc["schema"], doc["numberOfTests"] == sum(len(g["tests"]) for g in doc["testGroups"])
('bull_vectors_schema_v1.json', True)
"""

from __future__ import annotations

import json
from typing import Any

from solver import games
from solver.core.errors import BullError

__all__ = ["FORMATS", "MAX_SAMPLE", "build_document", "build_vectors", "cli_vectors"]

FORMATS = ("json", "jsonl")
"""``--format``: the Wycheproof-style document, or JSON Lines."""

MAX_SAMPLE = 100_000
"""The largest seeded random sample ``bull vectors`` writes."""


def build_vectors(
    game: str,
    rules: str | None = None,
    seed: int = 20261129,
    sample: int = 200,
    tables: str | None = None,
    banker_reveals: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The vectors of ``game`` and their coverage summary."""

    if not 0 <= sample <= MAX_SAMPLE:
        raise BullError(f"--sample must be 0 to {MAX_SAMPLE:,}, got {sample}")
    if not 0 <= seed < 2**63:
        raise BullError(f"--seed must be a whole number from 0 to 2**63 - 1, got {seed}")
    if game not in games.names():
        raise BullError(f"`bull vectors` does not support {game!r}")
    entry = games.get(game)
    options = entry.accept({"banker_reveals": banker_reveals})
    return entry.vectors(rules, seed, sample, options, tables)


def build_document(
    game: str,
    rules: str | None = None,
    seed: int = 20261129,
    sample: int = 200,
    tables: str | None = None,
    banker_reveals: str | None = None,
) -> dict[str, Any]:
    """The vectors of ``game`` as a Wycheproof-style document."""
    records, cov = build_vectors(game, rules, seed, sample, tables, banker_reveals)
    return _document(game, rules, records, cov)


def _document(
    game: str, rules: str | None, records: list[dict[str, Any]], cov: dict[str, Any]
) -> dict[str, Any]:
    from solver.kit.wycheproof import document
    from solver.store.custom import rule_digest

    entry = games.get(game)
    data = entry.load_rules(rules).to_data()
    catalogue = cov.get("catalogue", {})
    summary = {k: v for k, v in cov.items() if k != "catalogue"}
    return document(
        records,
        game,
        cov["rules"],
        data,
        rule_digest(data),
        summary,
        {k: kd for k, (kd, _) in catalogue.items()},
        {k: d for k, (_, d) in catalogue.items()},
        title=entry.title,
    )


def _format(args: Any) -> str:
    fmt: str | None = getattr(args, "format", None)
    if fmt is None:
        out = str(args.out or "")
        fmt = "jsonl" if out.endswith((".jsonl", ".ndjson")) else "json"
    if fmt not in FORMATS:
        raise BullError(f"--format must be json or jsonl, got {fmt!r}")
    return fmt


def _order(rec: dict[str, Any], rules: str) -> dict[str, Any]:
    """``id``, ``kind`` first, then the rule set the answers hold for (so ``bull verify``
    of the file uses it by default), then the rest."""
    first = ("id", "kind")
    head = {k: rec[k] for k in first} | {"rules": rules}
    return head | {k: v for k, v in rec.items() if k not in (*first, "rules", "differs_under")}


def cli_vectors(args: Any, out: Any) -> int:
    """``bull vectors``: the document (``--format json``) or JSON Lines to ``--out``
    (written atomically: the file appears only complete) or stdout; the coverage note to
    stdout, or to ``args.err`` (the CLI's stream for notes) when the vectors go to
    stdout, keeping that pure JSON."""
    from solver.kit.findings import AtomicFile

    fmt = _format(args)
    records, cov = build_vectors(
        args.game, args.rules, args.seed, args.sample, args.tables, args.banker_reveals
    )
    if fmt == "json":
        doc = _document(args.game, args.rules, records, cov)
        lines = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    else:
        lines = "".join(
            json.dumps(_order(r, cov["rules"]), ensure_ascii=False, separators=(",", ":")) + "\n"
            for r in records
        )
    cov = {k: v for k, v in cov.items() if k != "catalogue"}
    if args.out:
        with AtomicFile(args.out) as f:
            f.write(lines)
        report = out
    else:
        out.write(lines)
        report = args.err
    if args.json:
        report.write(json.dumps(cov) + "\n")
    else:
        report.write(_coverage_text(cov) + "\n")
    return 0


def _coverage_text(cov: dict[str, Any]) -> str:
    tags = cov["tags"]
    main = sorted(
        (t for t in tags if t.startswith(("category_", "best_", "type_", "no_bull"))),
        key=lambda t: (len(t), t),
    )
    situations = sorted(
        t
        for t in tags
        if not t.startswith(("category_", "best_", "type_", "no_bull", "catches:", "random"))
    )
    text = (
        f"{cov['vectors']} {cov['game']} vectors under {cov['rules']} "
        f"({cov['hand_vectors']} hands, {cov['showdown_vectors']} showdowns; random sample "
        f"{cov['sample']} with seed {cov['seed']}); covers: {', '.join(main)}; "
        f"{len(situations)} boundary and tie situations; "
        f"variants caught: {len(cov['variants_caught'])}"
    )
    if cov["uncaught_variants"]:
        text += f"; not caught: {', '.join(cov['uncaught_variants'])}"
    return text
