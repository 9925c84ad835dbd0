"""``python -m solver`` and the ``bull`` script: the command line.

The entry point imports the command line itself, so that a Ctrl-C while numpy and
pyarrow load (the first fraction of a second) ends in one line and exit 130, as it
does later, instead of a traceback.
"""

from __future__ import annotations

import sys

__all__ = ["entry"]


def entry() -> None:
    """Run ``bull`` with ``sys.argv`` and exit with its status."""
    try:
        from solver.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("bull: interrupted\n")
        sys.exit(130)
    sys.exit(main())


if __name__ == "__main__":
    entry()
