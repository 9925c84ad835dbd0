"""``bull serve`` survives the CLI's bad-input catalogue sent as requests: every bad
hand, rule file and option of ``tests/test_catalogue.py`` — and a sweep of every
endpoint's every field with values of the wrong kind — answers with a one-line JSON
error (400, or 404/405 for a path), never a 500 and never a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from pydantic import BaseModel
from test_catalogue import CASES, GAMES, GOOD

from solver.serve import bodies
from solver.serve.app import ServeConfig, create_app

RAW = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def client(niuniu_tables: Path, taungau_tables: Path, pokdeng_tables: Path) -> Iterator[TestClient]:
    if len({niuniu_tables, taungau_tables, pokdeng_tables}) != 1:
        pytest.skip("the games' tables are in different directories")
    app = create_app(ServeConfig(tables=str(niuniu_tables), max_batch=50))
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def clean(r: Any, needle: str = "", statuses: tuple[int, ...] = (400,)) -> None:
    """A one-line JSON error naming ``needle``, with one of ``statuses``."""
    assert r.status_code in statuses, (r.status_code, r.text[:300])
    assert "\n" not in r.text and "Traceback" not in r.text
    error = r.json()["error"]
    assert isinstance(error, str) and needle.lower() in error.lower(), error


@pytest.mark.parametrize(("game", "hands", "needle"), CASES)
def test_the_bad_hands_on_every_hand_taking_endpoint(
    client: TestClient, game: str, hands: list[str], needle: str
) -> None:
    good = GOOD[game]
    posts: list[tuple[str, dict[str, Any]]] = [
        ("eval", {"hands": hands}),
        ("rank", {"deals": [[good, *hands]]}),
        ("round", {"rounds": [[good, *hands]]}),
        ("compare", {"pairs": [[hands[-1], good]]}),
    ]
    if game == "pokdeng":
        posts.append(("advise", {"hands": hands}))
    for endpoint, body in posts:
        clean(client.post(f"/v1/{game}/{endpoint}", json=body), needle)
    rows = {"rows": [{"hand": h, "points": 1} for h in [good, *hands]]}
    r = client.post(f"/v1/{game}/verify", json=rows)  # a malformed claim is reported
    assert r.status_code == 200 and r.json()["malformed"] == sum(h != good for h in hands), r.text


@pytest.mark.parametrize("game", GAMES)
def test_the_bad_rule_files_as_bodies(client: TestClient, game: str) -> None:
    """The catalogue's malformed and contradictory rule files, as the body's ``rules``
    object: each named, a 400, never a table built on it."""
    preset = GAMES[game].load_rules(None).to_data()
    cases: list[tuple[Any, str]] = [
        ({**preset, "game": "mahjong"}, "mahjong"),
        ({**preset, "comission": 0.05}, "comission"),
        ({**preset, "base": "nosuch"}, "nosuch"),
        ([1, 2], "'rules'"),
        ("nosuch", "unknown preset 'nosuch'"),
        ({**preset, "name": "\ud800"}, "surrogate"),
    ]
    for key, value in preset.items():
        if key not in ("game", "name", "description"):
            wrong: Any = {"x": 1} if not isinstance(value, dict) else "text"
            cases.append(({**preset, key: wrong}, key))
    for rules, needle in cases:
        for endpoint, body in (("eval", {"hands": [GOOD[game]]}), ("odds", {})):
            raw = json.dumps({**body, "rules": rules})  # ASCII: a lone surrogate escaped
            clean(client.post(f"/v1/{game}/{endpoint}", content=raw, headers=RAW), needle)
    deep = b'{"hands": ["' + GOOD[game].encode() + b'"], "rules": '
    deep += b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}"
    clean(client.post(f"/v1/{game}/eval", content=deep, headers=RAW))


BODIES: dict[str, type[BaseModel]] = {
    "eval": bodies.EvalBody,
    "compare": bodies.CompareBody,
    "rank": bodies.RankBody,
    "round": bodies.RoundBody,
    "advise": bodies.AdviseBody,
    "grab": bodies.GrabBody,
    "odds": bodies.OddsBody,
    "edge": bodies.EdgeBody,
    "strategy": bodies.StrategyBody,
    "verify": bodies.VerifyBody,
    "rules": bodies.OddsBody,
}
WRONG: list[Any] = [None, -1, 1e308, "x", "\ud800", [], {"a": 1}, [[]], "y" * 20_000]


@pytest.mark.parametrize("game", GAMES)
def test_every_field_of_every_endpoint_with_wrong_values(client: TestClient, game: str) -> None:
    """Each field alone with a value of the wrong kind or range (and one unknown
    field): a 400 one-line error, whatever the endpoint and game."""
    for endpoint, model in BODIES.items():
        for field in [*model.model_fields, "nosuch"]:
            known = model.model_fields.get(field)
            for value in WRONG:
                if value is None and known is not None and not known.is_required():
                    continue  # null is "not given"
                raw = json.dumps({field: value})
                r = client.post(f"/v1/{game}/{endpoint}", content=raw, headers=RAW)
                clean(r)


@pytest.mark.parametrize("game", GAMES)
def test_bad_query_parameters_and_paths(client: TestClient, game: str) -> None:
    for query in ("seed=-1", "seed=x", "hands=1", "deal=0", "rules=nosuch", "rules=%ff",
                  "seed=99999999999999999999999"):  # fmt: skip
        clean(client.get(f"/v1/{game}/deal?{query}"))
    for endpoint in ("edge", "odds", "strategy"):
        for query in ("banker_reveals=x", "rules=nosuch", "dealer_draws_at_most=99", "x=1"):
            clean(client.get(f"/v1/{game}/{endpoint}?{query}"))
    clean(client.get(f"/v1/{game}/rules/%ff%00"))
    clean(client.get(f"/v1/{game}/nosuch"), "no such path", (404,))
    clean(client.delete(f"/v1/{game}/eval"), "not allowed", (405,))
