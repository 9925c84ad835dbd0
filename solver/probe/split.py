"""Choosing the questions that tell candidate causes apart.

A seeded pool of hands and showdowns with our answers (the game's conformance vectors
with a random sample, ``bull vectors --sample N``) is checked once by the game's
verify checker as if an implementation had claimed our answers; then each candidate
cause's ``variant_agree`` over the pool says on which rows that cause answers as our
rules do. A row splits the candidates when some answer as we do and some not; the
rows splitting them most evenly are asked first. Game-blind: the checker and the
causes (:func:`solver.kit.infer.with_pairs`) come from the registry.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.probe import plan

__all__ = ["Splitter"]


class Splitter:
    """The pool and the candidates' agreement over it (see the module docstring)."""

    def __init__(
        self,
        game: str,
        rules: Any,
        options: Mapping[str, Any],
        tables: str | None,
        pool: int,
        seed: int,
    ) -> None:
        from solver.kit.infer import with_pairs
        from solver.verify import make_checker

        self.rows = plan.vector_rows(game, rules, options, tables, sample=pool)
        self.checker = make_checker(game, rules, dict(options), tables)
        self.checker.prepare()
        self.causes: dict[str, Any] = {}
        for v in with_pairs(self.checker.variants, self.checker.rules.to_data()):
            self.causes.setdefault(v.key, v)
        self.used: set[int] = set()
        self.groups = self._check()
        self.masks: dict[str, npt.NDArray[np.bool_]] = {}

    def _check(self) -> list[tuple[str, npt.NDArray[np.int64], Any]]:
        """Per kind of row: the pool rows and the checker's result on them."""
        from solver.kit.check import take
        from solver.kit.read import read_chunks

        fields = {m: set(self.checker.fields[m]) for m in ("hand", "showdown")}
        out = []
        with tempfile.TemporaryDirectory(prefix="bull-probe-pool-") as tmp:
            for mode in ("hand", "showdown"):
                at = [
                    i
                    for i, r in enumerate(self.rows)
                    if (r.get("kind") == "showdown") == (mode == "showdown")
                ]
                if not at:
                    continue
                path = os.path.join(tmp, f"{mode}.jsonl")
                keep = fields[mode] | ({"hand"} if mode == "hand" else {"player", "banker"})
                keep |= {"bet", "commission", "values"}
                with open(path, "w", encoding="utf-8") as f:
                    for i in at:
                        r = self.rows[i]
                        f.write(json.dumps({k: v for k, v in r.items() if k in keep}) + "\n")
                _, _, chunks = read_chunks(path, "jsonl", {}, 1 << 20)
                for chunk in chunks:
                    cols = take(chunk.columns, np.arange(len(chunk), dtype=np.int64))
                    res = (
                        self.checker.check_hands(cols)
                        if mode == "hand"
                        else self.checker.check_showdowns(cols)
                    )
                    rows = np.asarray(at, dtype=np.int64)[np.asarray(res.rows)]
                    out.append((mode, rows, res))
        return out

    def _mask(self, key: str) -> npt.NDArray[np.bool_]:
        """Pool rows on which cause ``key`` answers as our rules do (True when it
        cannot be told)."""
        if key in self.masks:
            return self.masks[key]
        ok = np.ones(len(self.rows), dtype=bool)
        v = self.causes.get(key)
        if v is not None:
            for mode, rows, res in self.groups:
                if mode not in getattr(v, "modes", (mode,)):
                    continue
                try:
                    agree = np.asarray(res.variant_agree(v, np.arange(len(rows))), dtype=bool)
                except Exception:
                    continue
                ok[rows] = agree
        self.masks[key] = ok
        return ok

    def pick(self, candidates: Sequence[str], n: int) -> list[dict[str, Any]]:
        """Up to ``n`` unasked pool rows splitting ``candidates`` most evenly."""
        if len(candidates) < 2:
            return []
        agree = np.stack([self._mask(k) for k in candidates], axis=1)
        yes = agree.sum(axis=1)
        split = np.minimum(yes, len(candidates) - yes)
        if self.used:
            split[list(self.used)] = 0
        order = np.argsort(-split, kind="stable")
        chosen = [int(i) for i in order[:n] if split[i] > 0]
        self.used.update(chosen)
        return [self.rows[i] for i in chosen]
