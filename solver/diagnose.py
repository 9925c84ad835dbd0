"""Rule-variant diagnosis: which rule another implementation gets wrong.

The verifier (:mod:`solver.verify`) re-checks every disagreeing claim against a
**catalogue of variants** of the rule set in use and ranks the variants by how many
disagreements each explains ("all 416 disagreements are explained by:
five_small_bull uses total < 10").

Variants are data where the game module can evaluate them: a rule dict derived from
the preset (``rules``), fed to the game's own vectorised evaluator. The few that are
*mistakes* rather than rule options (a bull search that skips the first card, a
tie-break suit taken from the order the cards were written in, a Tau Ngau player who
sets a [2:1]/[4:2] aside in the bull when it would score more in the remaining two,
Pok Deng deng compared before points) are small explicit evaluators in the game's
diagnosis module, named by ``mistake``. Settlement variants (another bet, commission)
are ``options``.

A variant *explains* a disagreeing row when every claim the row states equals that
variant's answer. To break ties it is also checked against a sample of agreeing rows
(every row whose hand is special-ish, plus the first rows read): a variant that
would contradict claims which agree with the real rules ranks lower.

>>> import numpy as np
>>> from solver.niuniu import load_rules
>>> keys = [v.key for v in niuniu_catalogue(load_rules("casino"), "hand")]
>>> "five_small_bull_total=below_10" in keys, "mistake=bull_skips_first" in keys
(True, True)
>>> t = Tally(niuniu_catalogue(load_rules("casino"), "hand")[:2])
>>> t.add(np.array([[True, False], [True, True]]))
>>> [(e.key, e.explains) for e in t.ranked()]
[('specials_without=five_faces', 2), ('specials_without=four_of_a_kind', 1)]
>>> t.headline()
'all 2 disagreements are explained by: five_faces not counted as a special'
"""

from __future__ import annotations

from .diagnose_core import DIAGNOSE_LIMIT, Explanation, Tally, Variant
from .diagnose_niuniu import (
    niuniu_catalogue,
    niuniu_hand_answers,
    niuniu_showdown_answers,
    niuniu_showdown_strengths,
)
from .diagnose_pokdeng import pokdeng_catalogue, pokdeng_hand_answers, pokdeng_showdown_answers
from .diagnose_taungau import (
    taungau_candidates,
    taungau_catalogue,
    taungau_hand_answers,
    taungau_showdown_answers,
)

__all__ = [
    "DIAGNOSE_LIMIT",
    "Explanation",
    "Tally",
    "Variant",
    "niuniu_catalogue",
    "niuniu_hand_answers",
    "niuniu_showdown_answers",
    "niuniu_showdown_strengths",
    "pokdeng_catalogue",
    "pokdeng_hand_answers",
    "pokdeng_showdown_answers",
    "taungau_candidates",
    "taungau_catalogue",
    "taungau_hand_answers",
    "taungau_showdown_answers",
]
