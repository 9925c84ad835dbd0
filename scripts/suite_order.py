"""Write ``tests/file_seconds.json``: each test file's measured time, heaviest first.

The suite runs its files on every core (pytest-xdist, ``--dist loadfile``), handing
files out in collection order; ``tests/conftest.py`` collects the heaviest files first
so that no long file starts last and runs alone (longest-first scheduling). Refresh the
weights from a run's per-test durations::

    python -m pytest -q --durations=0 > durations.log
    python scripts/suite_order.py durations.log

A file missing from the weights (a new one) weighs nothing and runs after the weighed
ones, in collection order: the order never changes what is tested, only when.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "file_seconds.json"
LINE = re.compile(r"^([\d.]+)s (?:call|setup|teardown)\s+([^:\s]+)::")


def file_seconds(log: str) -> dict[str, float]:
    """Per file, the sum of its tests' durations in a ``--durations=0`` log.

    >>> file_seconds("2.50s call     tests/a.py::t\\n1.00s setup    tests/a.py::u\\n")
    {'tests/a.py': 3.5}
    """
    total: Counter[str] = Counter()
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            total[m.group(2)] += float(m.group(1))
    return {f: round(s, 1) for f, s in total.most_common()}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/suite_order.py DURATIONS_LOG", file=sys.stderr)
        return 2
    weights = file_seconds(Path(argv[0]).read_text(encoding="utf-8"))
    OUT.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(weights)} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
