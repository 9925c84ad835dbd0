"""Audit logged play at scale (``bull audit``) and write synthetic logs (``bull deal``).

A face: game-blind, it reaches each game only through the registry
(``solver.games.get(name).audit_spec``). See :mod:`solver.audit.command`.
"""

__all__: list[str] = []
