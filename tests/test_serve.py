# ruff: noqa: E501 (the curl examples and case tables read best one to a line)
"""``bull serve``: every endpoint answers with exactly what the CLI's ``--json`` prints
(the same bytes as JSON Lines, the same records as JSON), for every game; bad input of
every kind is a one-line JSON error with the right status, never a 500 or a traceback."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from test_catalogue import CASES, GOOD

from solver.cli import main
from solver.serve.app import ServeConfig, create_app

NDJSON = {"Accept": "application/x-ndjson"}


@pytest.fixture(scope="module")
def tables(niuniu_tables: Path, taungau_tables: Path, pokdeng_tables: Path) -> str:
    if len({niuniu_tables, taungau_tables, pokdeng_tables}) != 1:
        pytest.skip("the games' tables are in different directories")
    return str(niuniu_tables)


@pytest.fixture(scope="module")
def client(tables: str) -> Iterator[TestClient]:
    with TestClient(create_app(ServeConfig(tables=tables, max_batch=50))) as c:
        yield c


def cli(argv: list[str], tables: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, "--json", "--tables", tables], out=out, err=err)
    assert code in (0, 1), err.getvalue()
    return out.getvalue()


NN = ["KS 9H 8C 3D 7S", "JS QS KD 5H 5D", "AS 2S 3S 4S 6D"]
TN = ["[6:5][4:1][3:3][5:5][2:2]", "[6:6][1:1][4:2][5:3][2:1]"]
PD = ["7H 5D", "9S 9D", "6C 4C 5C"]

# (game, endpoint, body, CLI argv after the game)
SAME: list[tuple[str, str, dict[str, Any], list[str]]] = [
    ("niuniu", "eval", {"hands": NN}, NN),
    ("niuniu", "eval", {"hands": NN[:1], "bet": "double"}, [NN[0], "--bet", "double"]),
    ("niuniu", "compare", {"player": NN[1], "banker": NN[0], "bet": "double"}, [*NN[:2][::-1], "--bet", "double"]),
    ("niuniu", "rank", {"hands": NN}, NN),
    ("niuniu", "round", {"banker": NN[0], "players": NN[1:]}, ["--banker", NN[0], "--player", NN[1], "--player", NN[2]]),
    ("niuniu", "grab", {"hand": "AS 10H 3C 7D", "players": 3}, ["AS 10H 3C 7D", "--players", "3"]),
    ("taungau", "eval", {"hands": TN}, TN),
    ("taungau", "compare", {"player": TN[0], "banker": TN[1], "banker_reveals": "first"}, [*TN, "--banker-reveals", "first"]),
    ("taungau", "rank", {"hands": TN}, TN),
    ("taungau", "round", {"banker": TN[1], "players": TN[:1]}, ["--banker", TN[1], "--player", TN[0]]),
    ("taungau", "odds", {}, []),
    ("taungau", "edge", {"banker_reveals": "first"}, ["--banker-reveals", "first"]),
    ("pokdeng", "eval", {"hands": PD}, PD),
    ("pokdeng", "compare", {"player": PD[2], "banker": "KH 2S 3C"}, [PD[2], "KH 2S 3C"]),
    ("pokdeng", "advise", {"hand": PD[0], "dealer_draws_at_most": 5}, [PD[0], "--dealer-draws-at-most", "5"]),
    ("pokdeng", "strategy", {"rules": "straights"}, ["--rules", "straights"]),
    ("pokdeng", "odds", {}, []),
    ("pokdeng", "edge", {}, []),
]  # fmt: skip


@pytest.mark.parametrize(("game", "endpoint", "body", "argv"), SAME)
def test_every_endpoint_answers_what_the_cli_prints(
    client: TestClient, tables: str, game: str, endpoint: str, body: dict[str, Any], argv: list[str]
) -> None:
    printed = cli([endpoint, game, *argv], tables)
    lines = printed.splitlines()
    as_lines = client.post(f"/v1/{game}/{endpoint}", json=body, headers=NDJSON)
    assert as_lines.status_code == 200, as_lines.text
    assert as_lines.text == printed  # the same bytes
    as_json = client.post(f"/v1/{game}/{endpoint}", json=body)
    assert as_json.headers["content-type"] == "application/json"
    records = [json.loads(line) for line in lines]
    batch = endpoint == "eval"  # "hands": a batch, one record per hand
    assert as_json.json() == (records if batch else records[0])


def test_a_large_batch_takes_the_batch_path_with_the_same_bytes(
    client: TestClient, tables: str
) -> None:
    """Over 8 hands the vectorised path answers (its Arrow buffer is the body): the
    same bytes as the CLI's per-hand records, and as the same hands one by one."""
    import random

    rng = random.Random(5)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    deck = [r + s for s in "SHDC" for r in ranks]
    for game, hands in (
        ("niuniu", [" ".join(rng.sample(deck, 5)) for _ in range(40)]),
        ("pokdeng", [" ".join(rng.sample(deck, rng.choice((2, 3)))) for _ in range(40)]),
    ):
        printed = cli(["eval", game, *hands], tables)
        got = client.post(f"/v1/{game}/eval", json={"hands": hands}, headers=NDJSON)
        assert got.status_code == 200 and got.text == printed
        assert client.post(f"/v1/{game}/eval", json={"hands": hands}).json() == [
            json.loads(line) for line in printed.splitlines()
        ]
        bad = [*hands[:20], "AS AS 2C 3D 4H", *hands[21:]]
        r = client.post(f"/v1/{game}/eval", json={"hands": bad})
        assert r.status_code == 400 and r.json()["error"].startswith("hands[20]: "), r.text


def test_batches_answer_one_record_per_item_as_one_at_a_time(
    client: TestClient, tables: str, tmp_path: Path
) -> None:
    pairs = [[NN[0], NN[1]], [NN[2], NN[0]]]
    got = client.post("/v1/niuniu/compare", json={"pairs": pairs}).json()
    assert got == [json.loads(cli(["compare", "niuniu", p, b], tables)) for p, b in pairs]
    deals = [NN[:2], NN]
    got = client.post("/v1/niuniu/rank", json={"deals": deals}).json()
    assert got == [json.loads(cli(["rank", "niuniu", *d], tables)) for d in deals]
    rounds = [[NN[0], NN[1]], [NN[2], NN[0], NN[1]]]
    lines = tmp_path / "rounds.txt"
    lines.write_text("".join(" | ".join(r) + "\n" for r in rounds))
    printed = cli(["round", "niuniu", "--input", str(lines)], tables)
    assert client.post("/v1/niuniu/round", json={"rounds": rounds}, headers=NDJSON).text == printed
    hands = [PD[0], PD[1]]
    got = client.post("/v1/pokdeng/advise", json={"hands": hands}).json()
    assert got == [json.loads(cli(["advise", "pokdeng", h], tables)) for h in hands]


def test_presets_and_rule_sets_as_the_rules_command(client: TestClient, tables: str) -> None:
    for game in ("niuniu", "taungau", "pokdeng"):
        listed = client.get(f"/v1/{game}/rules")
        assert listed.json() == json.loads(cli(["rules", game, "--list"], tables))
        for preset in (p["name"] for p in listed.json()["presets"]):
            got = client.get(f"/v1/{game}/rules/{preset}").json()
            assert got == json.loads(cli(["rules", game, "--rules", preset], tables))


def test_a_rule_file_goes_in_the_body_never_as_a_path(
    client: TestClient, tables: str, tmp_path: Path
) -> None:
    data = {"game": "pokdeng", "base": "standard", "name": "mine", "deng": {"tong": 4}}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    printed = cli(["eval", "pokdeng", *PD, "--rules", str(path)], tables)
    got = client.post("/v1/pokdeng/eval", json={"hands": PD, "rules": data}, headers=NDJSON)
    assert got.status_code == 200, got.text
    assert got.text == printed
    got = client.post("/v1/pokdeng/rules", json={"rules": data}).json()
    assert got == json.loads(cli(["rules", "pokdeng", "--rules", str(path)], tables))
    for spelling in (str(path), "../../etc/passwd", "mine.json"):
        r = client.post("/v1/pokdeng/eval", json={"hands": PD, "rules": spelling})
        assert r.status_code == 400
        assert "unknown preset" in r.json()["error"]
    bad = client.post("/v1/pokdeng/eval", json={"hands": PD, "rules": {**data, "nosuch": 1}})
    assert bad.status_code == 400 and "nosuch" in bad.json()["error"]
    assert "bull-serve-" not in bad.text  # the server's own file names stay private


def test_the_servers_private_rule_files_go_with_it(tables: str) -> None:
    """The folder of request rule files is the server's own: removed when it stops."""
    import gc

    from solver.serve.calls import Calls

    calls = Calls(tables)
    folder = calls._dir
    from solver import games

    calls.rules(games.get("pokdeng"), {"game": "pokdeng", "base": "standard", "deng": {"tong": 4}})
    assert folder.is_dir() and any(folder.iterdir())
    del calls
    gc.collect()
    assert not folder.exists()


def test_verify_rows_in_the_cli_report_out(client: TestClient, tables: str, tmp_path: Path) -> None:
    rows = [
        {"hand": NN[0], "points": 7, "bull": "3D 7S KS"},
        {"hand": NN[1], "points": 9},  # wrong: niu niu
        {"hand": "AS 2S 3S 4S ZZ", "points": 1},  # malformed
    ]
    claims = tmp_path / "claims.jsonl"
    claims.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    printed = cli(["verify", "niuniu", str(claims), "--out", str(out)], tables)
    want = json.loads(printed.replace(json.dumps(str(claims))[1:-1], "request"))
    got = client.post("/v1/niuniu/verify", json={"rows": rows})
    assert got.status_code == 200, got.text
    assert got.json() == want
    both = client.post("/v1/niuniu/verify", json={"rows": rows, "out": True}).json()
    assert both == {"report": want, "out": [json.loads(x) for x in out.read_text().splitlines()]}


def test_the_trainer_deals_what_bull_drill_deals(client: TestClient, tables: str) -> None:
    import sys

    out = io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO("no bull\n1\n" * 30)  # answers enough for two deals or more
    try:
        main(["drill", "niuniu", "--hands", "3", "--seed", "42", "--tables", tables], out=out)
    finally:
        sys.stdin = stdin
    shown = [ln.split(": ", 1)[1] for ln in out.getvalue().splitlines() if ln.startswith("  hand")]
    got = [client.get(f"/v1/niuniu/deal?seed=42&hands=3&deal={k}").json()["hands"] for k in (1, 2)]
    assert len(shown) >= 6 and shown[:6] == got[0] + got[1]


def assert_error(r: Any, status: int, needle: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    assert "\n" not in r.text and "Traceback" not in r.text
    error = r.json()["error"]
    assert isinstance(error, str) and needle.lower() in error.lower(), error


@pytest.mark.parametrize(("game", "hands", "needle"), CASES)
def test_the_cli_bad_hand_catalogue_as_requests(
    client: TestClient, game: str, hands: list[str], needle: str
) -> None:
    assert_error(client.post(f"/v1/{game}/eval", json={"hands": hands}), 400, needle)
    if len(hands) == 1:
        r = client.post(f"/v1/{game}/compare", json={"player": hands[0], "banker": GOOD[game]})
        assert_error(r, 400, needle)
        r = client.post(f"/v1/{game}/rank", json={"hands": [GOOD[game], hands[0]]})
        assert_error(r, 400, needle)


RAW = "application/json"
BAD: list[tuple[str, str, Any, int, str]] = [
    ("post", "/v1/poker/eval", {"hands": ["KS 9H 8C 3D 7S"]}, 400, "unknown game 'poker'"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "hnads": 1}, 400, "unknown field 'hnads'"),
    ("post", "/v1/niuniu/eval", {}, 400, "missing field 'hands'"),
    ("post", "/v1/niuniu/eval", {"hands": "KS 9H 8C 3D 7S"}, 400, "'hands'"),
    ("post", "/v1/niuniu/eval", {"hands": [5]}, 400, "hands[0]"),
    ("post", "/v1/niuniu/eval", {"hands": []}, 400, "'hands'"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"] * 51}, 400, "at most 50"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S", "KS KS 8C 3D 7S"]}, 400, "hands[1]: duplicate card"),
    ("post", "/v1/niuniu/eval", {"hands": ["K" * 20_000]}, 400, "unknown card"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S\x00"]}, 400, ""),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "rules": "nosuch"}, 400, "unknown preset 'nosuch'"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "rules": 5}, 400, "'rules'"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "rules": {"game": "pokdeng"}}, 400, "pokdeng"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "commission": 2}, 400, "'commission'"),
    ("post", "/v1/niuniu/eval", {"hands": ["KS 9H 8C 3D 7S"], "bet": "triple"}, 400, "triple"),
    ("post", "/v1/taungau/eval", {"hands": [TN[0]], "bet": "double"}, 400, "does not apply to taungau"),
    ("post", "/v1/pokdeng/eval", {"hands": PD, "dealer_draws_at_most": 12}, 400, "dealer_draws_at_most"),
    ("post", "/v1/niuniu/advise", {"hand": NN[0]}, 400, "for pokdeng only"),
    ("post", "/v1/pokdeng/grab", {"hand": "7H 5D"}, 400, "for niuniu only"),
    ("post", "/v1/niuniu/compare", {"player": NN[0]}, 400, "'banker'"),
    ("post", "/v1/niuniu/compare", {"player": NN[0], "banker": NN[1], "pairs": [[NN[0], NN[1]]]}, 400, "exactly one"),
    ("post", "/v1/niuniu/compare", {"player": NN[0], "banker": "KS 2D 3D 4D 5X"}, 400, "5X"),
    ("post", "/v1/niuniu/compare", {"pairs": [[NN[0], NN[1]], [NN[0]]]}, 400, "pairs[1]"),
    ("post", "/v1/niuniu/rank", {"deals": [NN, [NN[0]]]}, 400, "deals[1]"),
    ("post", "/v1/niuniu/round", {"rounds": [[NN[0], NN[1]], [NN[0], "KS 2D 3D 4D"]]}, 400, "rounds[1]"),
    ("post", "/v1/niuniu/round", {"banker": NN[0]}, 400, "at least one"),
    ("post", "/v1/niuniu/verify", {"rows": [{"cards": NN[0]}]}, 400, "columns"),
    ("get", "/v1/niuniu/deal?hands=9", None, 400, "'hands'"),
    ("get", "/v1/niuniu/rules/nosuch", None, 400, "unknown preset 'nosuch'"),
    ("get", "/v1/niuniu/eval", None, 405, "use POST"),
    ("put", "/v1/niuniu/rules", None, 405, "not allowed"),
    ("get", "/v1/niuniu/nosuch", None, 404, "no such path"),
    ("get", "/static/nosuch.js", None, 404, "no such path"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "body", "status", "needle"), BAD)
def test_bad_requests_are_one_line_json_errors(
    client: TestClient, method: str, path: str, body: Any, status: int, needle: str
) -> None:
    r = (
        client.request(method, path, json=body)
        if body is not None
        else client.request(method, path)
    )
    assert_error(r, status, needle)


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b'{"hands": [', "not valid JSON"),
        (b"", "JSON object"),
        (b"[" * 100_000, ""),
        (b'{"hands": ["KS 9H 8C 3D 7S"]}\xff\xfe', ""),
        (b'"KS 9H 8C 3D 7S"', "JSON object"),
        (b"[1, 2]", "JSON object"),
        (b"\xef\xbb\xbf" + b'{"hands": ["KS 9H 8C 3D 7S"]}', ""),
    ],
)
def test_bodies_that_are_no_request(client: TestClient, raw: bytes, needle: str) -> None:
    r = client.post("/v1/niuniu/eval", content=raw, headers={"Content-Type": RAW})
    if r.status_code == 200:  # a BOM is tolerated by the JSON reader
        assert raw.startswith(b"\xef\xbb\xbf")
        return
    assert_error(r, 400, needle)


def test_a_body_over_the_limit_is_413_before_it_is_read(tables: str) -> None:
    with TestClient(create_app(ServeConfig(tables=tables, max_body=4096))) as c:
        r = c.post("/v1/niuniu/eval", json={"hands": ["KS 9H 8C 3D 7S"] * 400})
        assert_error(r, 413, "4,096 bytes")

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
            yield b'{"hands": ['
            for _ in range(400):
                yield b'"KS 9H 8C 3D 7S",'
            yield b'"KS 9H 8C 3D 7S"]}'

        r = c.post("/v1/niuniu/eval", content=chunks(), headers={"Content-Type": RAW})
        assert_error(r, 413, "--max-body")
        assert c.post("/v1/niuniu/eval", json={"hands": NN}).status_code == 200


def test_openapi_document_names_every_endpoint(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    paths = doc["paths"]
    for endpoint in ("eval", "compare", "rank", "round", "advise", "grab", "odds", "edge",
                     "verify", "strategy", "rules", "rules/{preset}", "deal"):  # fmt: skip
        assert f"/v1/{{game}}/{endpoint}" in paths, endpoint
    body = doc["components"]["schemas"]["EvalBody"]
    assert body["additionalProperties"] is False and "hands" in body["required"]


def test_the_pages_are_served_from_the_package(client: TestClient) -> None:
    home = client.get("/")
    assert home.status_code == 200 and "text/html" in home.headers["content-type"]
    for ref in ("/static/app.js", "/static/style.css"):
        assert ref in home.text
        r = client.get(ref)
        assert r.status_code == 200 and len(r.content) > 100
    for page in (home.text, client.get("/static/app.js").text):
        assert "http://" not in page and "https://" not in page  # no CDN, no internet


@pytest.fixture(scope="module")
def server(tables: str) -> Iterator[tuple[str, int]]:
    """A real uvicorn server on a free loopback port (a 1 s read timeout)."""
    import uvicorn

    app = create_app(ServeConfig(tables=tables, read_timeout=1.0))
    from solver.serve.protocol import HeadTimeout

    class Quick(HeadTimeout):
        head_timeout = 1.0

    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="error", lifespan="off", http=Quick
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(500):
        if srv.started:
            break
        time.sleep(0.01)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield "127.0.0.1", port
    srv.should_exit = True
    thread.join(5)


def _exchange(where: tuple[str, int], head: bytes, wait: float = 5.0) -> bytes:
    with socket.create_connection(where, timeout=wait) as s:
        s.sendall(head)
        got = b""
        while True:
            try:
                part = s.recv(65536)
            except TimeoutError:
                break
            if not part:
                break
            got += part
            if b"\r\n\r\n" in got and got.endswith(b"}"):
                break
    return got


def test_a_client_too_slow_to_send_its_body_gets_408(server: tuple[str, int]) -> None:
    head = (
        b"POST /v1/niuniu/eval HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 100\r\n\r\n{"hands": ['
    )
    got = _exchange(server, head)
    assert got.startswith(b"HTTP/1.1 408"), got
    assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"].startswith("the request body took")


def test_a_client_too_slow_to_send_its_request_head_gets_408(server: tuple[str, int]) -> None:
    """A request line and headers dribbled in (or nothing at all) are cut off after the
    read timeout (1 s here) with a one-line JSON 408, not held open for ever."""
    for head in (b"", b"POST /v1/niuniu/eval HTTP/1.1\r\nHost: x\r\n"):
        t0 = time.monotonic()
        got = _exchange(server, head, wait=10.0)
        assert got.startswith(b"HTTP/1.1 408"), got
        assert json.loads(got.split(b"\r\n\r\n", 1)[1])["error"].startswith("the request head")
        assert time.monotonic() - t0 < 8


def test_the_real_server_answers_keep_alive_requests(server: tuple[str, int]) -> None:
    import httpx

    with httpx.Client(base_url=f"http://{server[0]}:{server[1]}") as c:
        for _ in range(3):
            r = c.post("/v1/niuniu/eval", json={"hands": NN})
            assert r.status_code == 200 and len(r.json()) == 3


def test_the_real_server_sends_a_batch_answer_whole(server: tuple[str, int], tables: str) -> None:
    """Over uvicorn (the body in pieces, written as one): a batch answered by the
    vectorised path arrives byte for byte as the CLI prints it, as an array and as
    JSON Lines, twice on one connection."""
    import random

    import httpx

    rng = random.Random(9)
    deck = [r + s for s in "SHDC" for r in ["A", *"23456789", "10", "J", "Q", "K"]]
    hands = [" ".join(rng.sample(deck, 5)) for _ in range(300)]
    printed = cli(["eval", "niuniu", *hands], tables)
    with httpx.Client(base_url=f"http://{server[0]}:{server[1]}") as c:
        for _ in range(2):
            r = c.post("/v1/niuniu/eval", json={"hands": hands})
            assert r.status_code == 200
            assert r.content == b"[" + printed.encode().rstrip(b"\n").replace(b"\n", b",") + b"]"
            r = c.post("/v1/niuniu/eval", json={"hands": hands}, headers=NDJSON)
            assert r.text == printed


def _curl_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("curl ")]


def test_every_curl_example_answers(client: TestClient) -> None:
    """The ``curl`` lines of ``bull serve --help`` and of the README's serve section,
    sent to the app as written: each a 200 with JSON, and every endpoint shown."""
    import shlex

    from solver.serve.command import EXAMPLES

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Serving over HTTP", 1)[1].split("\n## ", 1)[0]
    for source, text in (("--help", EXAMPLES), ("README", section)):
        lines = _curl_lines(text)
        shown = set()
        for line in lines:
            words = shlex.split(line)
            assert words[:2] == ["curl", "-s"] and words[2].startswith("localhost:8000/"), line
            path = words[2].removeprefix("localhost:8000")
            rest = words[3:]
            body = None
            if "-d" in rest:
                body = rest[rest.index("-d") + 1]
                assert rest[rest.index("-H") + 1] == "Content-Type: application/json", line
            r = (
                client.post(path, content=body, headers={"Content-Type": RAW})
                if body
                else client.get(path)
            )
            assert r.status_code == 200, (source, line, r.text[:300])
            r.json()
            shown.add(path.split("?")[0].split("/")[3] if path.startswith("/v1/") else path)
        assert {"eval", "compare", "rank", "round", "advise", "grab", "odds", "edge", "strategy",
                "rules", "verify", "deal"} <= shown, (source, shown)  # fmt: skip
