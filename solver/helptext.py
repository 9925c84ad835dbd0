"""The help texts of the ``bull`` commands: one line of what each does and an example.

>>> HELP["eval"][1]
'bull eval niuniu "KS 9H 8C 3D 7S" --json'
"""

from __future__ import annotations

__all__ = ["HELP", "NOTATION"]

NOTATION = (
    "notation:\n"
    '  cards  rank A 2-10 (or T) J Q K, suit S H D C (or ♠ ♥ ♦ ♣), any case: "KS 9H 8C 3D 7S"\n'
    '  tiles  two pips 1-6, either order: "[6:5][4:1]", "65 41" or "6:5 4:1"\n'
    "  a hand is one argument: quote it"
)

HELP: dict[str, tuple[str, str]] = {
    "build": (
        "Enumerate every hand of every game and install the tables as one new set "
        "(atomically: readers see the old set or the new one, never a mix).",
        "bull build --game niuniu --tables /tmp/tables",
    ),
    "eval": (
        "Evaluate hands: the best bull, points or score, category, and how it was found. "
        "Hands come as arguments or one per line from --input (streamed; a bad line is "
        "reported and skipped, exit 1).",
        'bull eval niuniu "KS 9H 8C 3D 7S" --json',
    ),
    "compare": (
        "Settle a player's hand against the banker's (dealer's) from one deck: the "
        "winner, why, and the player's net in stakes.",
        'bull compare pokdeng "6C 4C 5C" "KH 2S 3C"',
    ),
    "advise": (
        "Pok Deng: stand or draw on a two-card start, with both exact EVs against the "
        "dealer's drawing policy.",
        'bull advise pokdeng "7H 5D" --dealer-draws-at-most 5',
    ),
    "strategy": (
        "Pok Deng: the whole exact drawing strategy as a chart (text, JSON or PNG).",
        "bull strategy pokdeng --rules straights --png strategy.png",
    ),
    "odds": (
        "The exact count and probability of every category, score or type, from every hand.",
        "bull odds niuniu --rules casino",
    ),
    "edge": (
        "The player's exact expected value per stake against the banker/dealer, over every "
        "pair of hands (exact fractions in --json).",
        "bull edge niuniu --bet double --json",
    ),
    "risk": (
        "The banker at a full table of N players from one deck: the exact mean, the "
        "variance from two players' covariance (Var = N*Var1 + N(N-1)*Cov), the "
        "distribution of the banker's round net (exact heads-up, else simulated with 99% "
        "intervals), the reserve covering 99%, 99.9% and every round, the 95%/99% bands "
        "after T rounds and, with --reserve R, the probability of ruin. Computed once per "
        "rule set, then cached.",
        "bull risk niuniu --bet double --players 9 --rounds 1000 --reserve 100",
    ),
    "report": (
        "Write a Markdown research report with every exact figure, the rule sets, the "
        "Monte Carlo cross-checks and plots.",
        "bull report --out report/",
    ),
    "verify": (
        "Check another implementation's claims (CSV, JSON Lines or Parquet; hand rows or "
        "showdown rows) against the exact tables, and diagnose which rule it plays.",
        "bull verify niuniu claims.csv --out wrong.jsonl",
    ),
    "probe": (
        "Verify a running implementation directly: start it (or reach it over HTTP), ask "
        "it questions over a line protocol, name the cause of any disagreement, infer its "
        "rules and confirm on every hand.",
        "bull probe niuniu -- python3 my_engine.py",
    ),
    "vectors": (
        "Write conformance test vectors with expected answers (a Wycheproof-style JSON "
        "document, or JSON Lines) for testing "
        "an implementation without this code.",
        "bull vectors taungau --out taungau-vectors.jsonl",
    ),
    "check-tables": (
        "Recompute the digest of every table and compare it with the manifest.",
        "bull check-tables --tables tables/",
    ),
}
