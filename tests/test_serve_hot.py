"""The hot ``eval`` route (:mod:`solver.serve.hot`) answers exactly what the framework's
route behind it answers — the same status, type and bytes — for good bodies of every
shape and for bad ones; it answers the plain bodies itself and hands every other body
on; and the protocol's corked transport sends a response's writes as one."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from test_catalogue import CASES
from test_serve import BAD, NN, PD, TN

from solver.serve.app import ServeConfig, create_app
from solver.serve.limits import Limits
from solver.serve.protocol import Corked

JSON = {"Content-Type": "application/json"}
NDJSON = {**JSON, "Accept": "application/x-ndjson"}


@pytest.fixture(scope="module")
def pair(
    niuniu_tables: Path, taungau_tables: Path, pokdeng_tables: Path
) -> Iterator[tuple[TestClient, TestClient, list[str]]]:
    """A client of the whole app, whose hot route's hand-ons are logged (paths), and a
    client of the framework's routes alone (the same limits)."""
    if len({niuniu_tables, taungau_tables, pokdeng_tables}) != 1:
        pytest.skip("the games' tables are in different directories")
    whole = create_app(ServeConfig(tables=str(niuniu_tables), max_batch=50))
    hot = whole.app
    framework = hot.app
    handed: list[str] = []

    async def logged(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            handed.append(scope["path"])
        await framework(scope, receive, send)

    hot.app = logged
    alone = Limits(framework, whole.max_body, whole.read_timeout)
    with (
        TestClient(whole, raise_server_exceptions=False) as a,
        TestClient(alone, raise_server_exceptions=False) as b,
    ):
        yield a, b, handed


rng = random.Random(11)
DECK = [
    r + s
    for s in "SHDC"
    for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
]
MANY_NN = [" ".join(rng.sample(DECK, 5)) for _ in range(40)]
MANY_PD = [" ".join(rng.sample(DECK, rng.choice((2, 3)))) for _ in range(40)]
RULE_FILE = {"game": "pokdeng", "base": "standard", "name": "mine", "deng": {"tong": 4}}

# (game, body, headers): bodies the hot route answers itself
PLAIN: list[tuple[str, Any, dict[str, str]]] = [
    ("niuniu", {"hands": NN}, JSON),
    ("niuniu", {"hands": NN}, NDJSON),
    ("niuniu", {"hands": NN[:1], "bet": "double"}, JSON),
    ("niuniu", {"hands": NN, "rules": "casino", "commission": 0.05}, JSON),
    ("niuniu", {"hands": MANY_NN}, JSON),
    ("niuniu", {"hands": MANY_NN}, NDJSON),
    ("niuniu", {"hands": MANY_NN, "rules": "no_faces"}, JSON),
    ("niuniu", {"hands": [*MANY_NN[:20], "AS AS 2C 3D 4H", *MANY_NN[21:]]}, JSON),  # named
    ("niuniu", {"hands": ["KS 9H 8C 3D 1S", NN[0]]}, JSON),
    ("niuniu", {"hands": ["10♠ J♥ Q♦ K♣ A♠"]}, JSON),
    ("niuniu", {"hands": NN, "rules": "nosuch"}, JSON),  # a preset is checked by the game
    ("niuniu", {"hands": NN, "bet": "triple"}, JSON),
    ("taungau", {"hands": TN}, JSON),
    ("taungau", {"hands": TN, "rules": "pagat", "banker_reveals": "first"}, NDJSON),
    ("taungau", {"hands": [TN[0], "[6:5][4:1]"]}, JSON),
    ("pokdeng", {"hands": PD}, JSON),
    ("pokdeng", {"hands": MANY_PD}, NDJSON),
    ("pokdeng", {"hands": PD, "rules": RULE_FILE}, JSON),
    ("pokdeng", {"hands": PD, "dealer_draws_at_most": 4}, JSON),
    ("niuniu", b'\xef\xbb\xbf{"hands": ["KS 9H 8C 3D 7S"]}', JSON),  # a BOM, as json.loads takes it
    ("niuniu", {"hands": NN}, {"Content-Type": "application/json; charset=utf-8"}),
    ("niuniu", {"hands": NN}, {"Content-Type": "application/vnd.bull+json"}),
]  # fmt: skip

# bodies handed on to the framework's route, whose validation names the bad item
HANDED: list[tuple[str, Any, dict[str, str]]] = [
    ("niuniu", b'{"hands": ["KS 9H 8C 3D 7S", "\\ud800"]}', JSON),  # a lone surrogate
    ("niuniu", {"hands": [NN[0]] * 9 + ["\udfff"]}, JSON),
    ("niuniu", {"hands": [5]}, JSON),
    ("niuniu", {"hands": []}, JSON),
    ("niuniu", {"hands": [NN[0]] * 51}, JSON),  # over --max-batch
    ("niuniu", {}, JSON),
    ("niuniu", {"hands": [NN[0], None]}, JSON),
    ("niuniu", {"hands": [NN[0]] * 9 + [None]}, JSON),
    ("niuniu", {"hands": [NN[0]] * 9 + [["KS"]]}, JSON),
    ("niuniu", {"hands": [NN[0]] * 9 + [True]}, JSON),
    ("niuniu", {"hands": {"a": NN[0]}}, JSON),
    ("niuniu", {"hands": NN, "rules": [1]}, JSON),
    ("niuniu", {"hands": NN, "commission": "x"}, JSON),
    ("niuniu", {"hands": NN, "banker_reveals": "middle"}, JSON),
    ("niuniu", {"hands": NN, "dealer": "equilibrium"}, JSON),  # not an eval field
    ("niuniu", [NN], JSON),
    ("niuniu", b'{"hands": ["KS 9H 8C 3D 7S"]} x', JSON),
    ("niuniu", b'{"hands": ["KS 9H 8C 3D 7S"]', JSON),
    ("niuniu", b"", JSON),
    ("niuniu", b"[" * 100_000, JSON),
    ("niuniu", {"hands": NN}, {"Content-Type": "text/plain"}),
    ("niuniu", {"hands": NN}, {}),  # no Content-Type: not JSON to FastAPI (strict)
    ("niuniu", {"hands": NN}, {"Content-Type": "application/x-www-form-urlencoded"}),
    ("poker", {"hands": NN}, JSON),
]  # fmt: skip


def _post(c: TestClient, game: str, body: Any, headers: dict[str, str]) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return c.post(f"/v1/{game}/eval", content=raw, headers=headers)


def _same(a: Any, b: Any) -> None:
    assert a.status_code == b.status_code, (a.status_code, a.text[:300], b.text[:300])
    assert a.headers["content-type"] == b.headers["content-type"]
    assert a.content == b.content


@pytest.mark.parametrize(("game", "body", "headers"), PLAIN)
def test_a_plain_body_is_answered_by_the_hot_route_as_by_the_framework(
    pair: tuple[TestClient, TestClient, list[str]], game: str, body: Any, headers: dict[str, str]
) -> None:
    whole, alone, handed = pair
    handed.clear()
    got = _post(whole, game, body, headers)
    assert handed == [], "handed on"
    _same(got, _post(alone, game, body, headers))


@pytest.mark.parametrize(("game", "body", "headers"), HANDED)
def test_any_other_body_is_handed_to_the_framework(
    pair: tuple[TestClient, TestClient, list[str]], game: str, body: Any, headers: dict[str, str]
) -> None:
    whole, alone, handed = pair
    handed.clear()
    got = _post(whole, game, body, headers)
    assert handed == [f"/v1/{game}/eval"]
    assert got.status_code in (400, 404), got.text[:300]
    _same(got, _post(alone, game, body, headers))


def test_the_bad_requests_and_hands_answer_as_the_framework(
    pair: tuple[TestClient, TestClient, list[str]],
) -> None:
    whole, alone, _ = pair
    for method, path, body, status, _ in BAD:
        if method == "post" and path.endswith("/eval"):
            got = _post(whole, path.split("/")[2], body, JSON)
            assert got.status_code == status
            _same(got, _post(alone, path.split("/")[2], body, JSON))
    for game, hands, needle in CASES:
        for many in (hands, hands * 9):  # the per-hand path and the batch path
            got = _post(whole, game, {"hands": many}, JSON)
            assert got.status_code == 400 and needle.lower() in got.json()["error"].lower()
            _same(got, _post(alone, game, {"hands": many}, JSON))


class _Transport:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def writelines(self, data: list[bytes]) -> None:
        self.calls.append(("writelines", list(data)))

    def close(self) -> None:
        self.calls.append(("close",))

    def is_closing(self) -> bool:
        return any(c[0] == "close" for c in self.calls)

    def get_extra_info(self, name: str) -> str:
        return f"info {name}"


def test_corked_writes_of_one_loop_turn_go_as_one() -> None:
    async def run() -> None:
        t = _Transport()
        c = Corked(t, asyncio.get_running_loop())
        c.write(b"HTTP/1.1 200 OK\r\n\r\n")
        c.write(b"body")
        assert t.calls == []  # held until the turn ends
        await asyncio.sleep(0)
        assert t.calls == [("writelines", [b"HTTP/1.1 200 OK\r\n\r\n", b"body"])]
        c.write(b"one")
        await asyncio.sleep(0)
        assert t.calls[-1] == ("write", b"one")
        c.write(b"last")
        c.close()  # what is held goes before the close
        assert t.calls[-2:] == [("write", b"last"), ("close",)]
        await asyncio.sleep(0)  # the turn's flush finds nothing more to send
        c.write(b"late")
        await asyncio.sleep(0)
        assert t.calls[-1] == ("close",)  # nothing is written to a closing transport
        assert c.get_extra_info("peername") == "info peername"

    asyncio.run(run())
