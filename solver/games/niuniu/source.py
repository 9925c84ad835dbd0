"""Where a Niu Niu rule set's answers come from: a table of every hand of its deck.

A preset's columns live in the committed tables (:func:`~solver.games.niuniu.hands.build_tables`);
a user's rule file gets a table of its own with the same columns, built on first use by
:func:`~solver.games.niuniu.hands.build_table` and cached by the rule set's content
digest (:func:`solver.store.custom.rule_table`), so every command answers a rule file
by the same lookups as a preset.

>>> casino = load_rules("casino").to_data()
>>> is_preset(load_rules(casino)), is_preset(load_rules({**casino, "name": "mine"}))
(True, False)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.core.errors import BullError, TableError
from solver.games.niuniu.rules import PRESETS, NiuNiuRules, load_rules
from solver.store.tables import LoadedTable

__all__ = ["check_rows", "deck_problems", "is_preset", "rules_table"]

TablesArg = str | os.PathLike[str] | None


def is_preset(rules: NiuNiuRules) -> bool:
    """Whether ``rules`` is exactly a shipped preset (its columns are committed)."""
    return rules.name in PRESETS and rules == load_rules(rules.name)


def rules_table(
    rules: NiuNiuRules, tables: TablesArg = None, notice: Callable[[str], Any] | None = None
) -> LoadedTable:
    """The table holding ``rules``' columns ``<name>_category`` and ``<name>_strength``:
    the committed preset table, or the rule file's own (built on first use; ``notice``
    receives the line that says so, default stderr)."""
    from solver.games.niuniu.hands import build_table, table_name
    from solver.store.custom import rule_table
    from solver.store.tables import open_table

    name = table_name(rules)
    if is_preset(rules):
        t = open_table(name, tables)
        if t.rules.get(rules.name) != rules.to_data():
            raise TableError(
                f"table {name} was built with other {rules.name!r} rules than this "
                "solver's; rebuild with `bull build`"
            )
        return t
    return rule_table(
        name,
        rules.to_data(),
        lambda: build_table([rules]),
        tables,
        rows=rules.hands,
        notice=notice,
    )


def deck_problems(
    rules: NiuNiuRules, cards: npt.NDArray[np.integer], limit: int = 50
) -> tuple[npt.NDArray[np.bool_], dict[int, str]]:
    """Rows holding a card the deck lacks (a J/Q/K under ``no_faces``) and, for the
    first ``limit`` of them, a message naming the card.

    >>> hands = np.array([[0, 1, 2, 3, 4], [0, 1, 2, 3, 51]])
    >>> bad, msg = deck_problems(load_rules("no_faces"), hands)
    >>> bad.tolist(), msg
    ([False, True], {1: 'card KC is not in the no_faces deck (40 cards: J, Q, K removed)'})
    """
    from solver.core.cards import CARD_NAMES

    arr = np.asarray(cards)
    if rules.deck_size >= 52 or not arr.size:
        return np.zeros(len(arr), dtype=bool), {}
    out = (arr >= rules.deck_size) & (arr < 52)
    bad: npt.NDArray[np.bool_] = np.asarray(out.any(axis=1), dtype=bool)
    messages: dict[int, str] = {}
    for i in np.flatnonzero(bad)[:limit].tolist():
        card = int(arr[i][out[i]][0])
        messages[i] = f"card {CARD_NAMES[card]} {rules.deck_note()}"
    return bad, messages


def check_rows(rules: NiuNiuRules, cards: npt.NDArray[np.integer], what: str = "row") -> None:
    """Refuse the first row holding a card the deck lacks, naming the row and card."""
    bad, messages = deck_problems(rules, cards, limit=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BullError(f"{what} {i}: {messages[i]}")
