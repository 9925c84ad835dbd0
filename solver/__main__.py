"""``python -m solver`` runs the ``bull`` command line."""

from .cli import entry

if __name__ == "__main__":
    entry()
