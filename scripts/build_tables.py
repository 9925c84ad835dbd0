#!/usr/bin/env python3
"""Build every table (the same code as ``bull build``) and print a summary.

python scripts/build_tables.py [--tables DIR] [--game niuniu ...] [--json]
"""

from __future__ import annotations

import sys

from solver.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", *sys.argv[1:]]))
