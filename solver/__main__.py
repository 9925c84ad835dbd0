"""``python -m solver`` runs the ``bull`` command line."""

from solver.cli import entry

if __name__ == "__main__":
    entry()
