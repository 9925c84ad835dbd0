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

__all__ = ["check_rows", "deck_problems", "hand_twin", "is_preset", "rules_table"]

TablesArg = str | os.PathLike[str] | None


def is_preset(rules: NiuNiuRules) -> bool:
    """Whether ``rules`` is exactly a shipped preset (its columns are committed)."""
    return rules.name in PRESETS and rules == load_rules(rules.name)


def _hands_of(rules: NiuNiuRules) -> tuple[Any, ...]:
    """What a hand table's rule columns depend on (:func:`~solver.games.niuniu.hands.build_table`):
    the table (deck, bull rule, shoe) and the categories, their codes and the suit order
    (not the name, bets, multipliers, commission or what a tie does: settlement)."""
    from solver.games.niuniu.hands import table_name

    r = rules
    return (table_name(r), r.compiled, r.codes, r.suit_strength, r.deck_size, r.decks)


def hand_twin(rules: NiuNiuRules) -> NiuNiuRules | None:
    """The preset whose hand table answers ``rules``' hands (its category and strength
    columns are ``rules``' own), if any: a rule file that changes only settlement.

    >>> hand_twin(load_rules({**load_rules("casino").to_data(), "commission": 0.1})).name
    'casino'
    >>> print(hand_twin(load_rules({**load_rules("casino").to_data(), "tie_break": "none"})))
    None
    """
    mine = _hands_of(rules)
    for name in PRESETS:
        preset = load_rules(name)
        if _hands_of(preset) == mine:
            return preset
    return None


def rules_table(
    rules: NiuNiuRules, tables: TablesArg = None, notice: Callable[[str], Any] | None = None
) -> LoadedTable:
    """The table holding ``rules``' columns ``<name>_category`` and ``<name>_strength``:
    the committed preset table (also for a rule file that changes only a preset's
    settlement: :func:`hand_twin`), or the rule file's own (built on first use;
    ``notice`` receives the line that says so, default stderr)."""
    from solver.games.niuniu.hands import build_table, hand_columns, own_table, table_name
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
    twin = hand_twin(rules)
    if twin is not None:  # settlement differs only: the preset's hands, under our names
        names = {f"{rules.name}_{c}": f"{twin.name}_{c}" for c in ("category", "strength")}
        try:
            return rules_table(twin, tables).aliased(names)
        except TableError:  # no preset tables where asked: the rule file's own, as before
            pass
    return rule_table(
        name,
        rules.to_data(),
        lambda: build_table([rules]),
        tables,
        rows=rules.hands,
        notice=notice,
        own=(hand_columns(rules), lambda: own_table(rules)),  # the rest: the preset table's
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
