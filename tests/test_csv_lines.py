"""CSV rows' physical line numbers (``solver.kit.read._PhysicalLines``), now placed with
numpy, against the event loop they replace (written out here), on random batches of
rows with newlines inside quoted fields and rows the CSV parser skipped."""

from __future__ import annotations

import random

import numpy as np

from solver.kit.read import _PhysicalLines


class Reference:
    """The former loop: every good and skipped row in order of its logical number."""

    def __init__(self) -> None:
        self.extra = 0
        self.taken = 0

    def place(
        self, done: int, nl: np.ndarray, skipped: list[tuple[int, int, str | None]]
    ) -> tuple[list[int], list[tuple[int, str]]]:
        n = len(nl)
        rows = sorted(skipped)
        s = np.array([r[0] for r in rows], dtype=np.int64)
        before = s - 2 - np.arange(len(s))
        g = np.arange(done, done + n, dtype=np.int64)
        logical = g + 2 + np.searchsorted(before, g, side="right")
        upto = int(np.searchsorted(before, g[-1], side="right")) if n else len(rows)
        events = sorted(
            [(int(logical[i]), int(nl[i]), i) for i in range(n)]
            + [(rows[j][0], rows[j][1], -1 - j) for j in range(self.taken, max(upto, self.taken))]
        )
        physical = [0] * n
        bad: list[tuple[int, str]] = []
        for number, newlines, who in events:
            line = number + self.extra
            if who >= 0:
                physical[who] = line
            elif rows[-1 - who][2] is not None:
                bad.append((line, str(rows[-1 - who][2])))
            self.extra += newlines
        self.taken = max(upto, self.taken)
        return physical, bad


def test_placed_lines_match_the_event_loop() -> None:
    rng = random.Random(12)
    for _ in range(200):
        total = rng.randrange(0, 60)
        kinds = [rng.random() < 0.15 for _ in range(total)]  # True: skipped by the parser
        skipped = [
            (k + 2, rng.choice([0, 0, 1, 2]), rng.choice([None, f"bad {k}"]))
            for k, sk in enumerate(kinds)
            if sk
        ]
        good = [rng.choice([0, 0, 0, 1, 3]) for sk in kinds if not sk]
        new, ref = _PhysicalLines(), Reference()
        done = 0
        while done < len(good):
            m = rng.randrange(1, 8)
            nl = np.array(good[done : done + m], dtype=np.int64)
            a, b = new.place(done, nl, skipped), ref.place(done, nl, skipped)
            assert (a[0].tolist(), a[1]) == b
            done += len(nl)
        empty = np.zeros(0, dtype=np.int64)
        assert new.place(done, empty, skipped)[1] == ref.place(done, empty, skipped)[1]
