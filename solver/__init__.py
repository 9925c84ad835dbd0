"""bull-solver: exhaustive reference solver for Niu Niu, Tau Ngau and Pok Deng."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
