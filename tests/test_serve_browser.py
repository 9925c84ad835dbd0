"""The web trainer, lookup and charts of ``bull serve``, driven in a real browser
(headless Chromium through Selenium): three trainer deals played by clicking (right and
wrong answers, each wrong one explained), the lookup page used by typing and by
clicking cards, the charts checked cell by cell against the rule text, and a
screenshot of every page checked not blank.

Chromium missing is a failure, not a skip: CI (``.ci/run``) installs Debian's
``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import itertools
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from solver.serve.app import ServeConfig, create_app

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = "chromedriver"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


@pytest.fixture(scope="module")
def base(niuniu_tables: Path, taungau_tables: Path, pokdeng_tables: Path) -> Iterator[str]:
    """A real uvicorn server on a free loopback port."""
    import uvicorn

    if len({niuniu_tables, taungau_tables, pokdeng_tables}) != 1:
        pytest.skip("the games' tables are in different directories")
    app = create_app(ServeConfig(tables=str(niuniu_tables)))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="off")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if srv.started:
            break
        time.sleep(0.01)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    binary = next((p for p in map(shutil.which, CHROMIUM) if p), None)
    driver_path = shutil.which(CHROMEDRIVER)
    if binary is None or driver_path is None:
        pytest.fail(
            "the browser tests need Chromium and its driver: apt-get install -y chromium "
            "chromium-driver (.ci/run installs them)",
            pytrace=False,
        )
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=390,1600", "--disable-extensions", "--no-first-run"):  # fmt: skip
        opts.add_argument(arg)  # a phone's width: the pages must work there
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: WebDriver, css: str, seconds: float = 15) -> WebElement:
    found: WebElement = WebDriverWait(driver, seconds, poll_frequency=0.05).until(
        ec.visibility_of_element_located((By.CSS_SELECTOR, css))
    )
    return found


def not_blank(path: Path) -> int:
    """How many distinct colours the screenshot has (a blank page has one or two)."""
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(str(path))
    pixels = (np.asarray(img)[..., :3] * 255).astype(np.uint8).reshape(-1, 3)
    return len(np.unique(pixels, axis=0))


def shot(driver: WebDriver, where: Path, name: str) -> None:
    path = where / f"{name}.png"
    assert driver.save_screenshot(str(path)), name
    assert not_blank(path) > 20, f"the {name} screenshot is blank"


# -- an independent Niu Niu solver from the rule text (classic preset): A=1, 2-10 their
# pips, J/Q/K = 10; a bull is three cards totalling a multiple of 10; the points are the
# other two's total mod 10, 0 counting as 10 (niu niu).
def value(card: str) -> int:
    rank = card[:-1]
    return 1 if rank == "A" else 10 if rank in ("J", "Q", "K") else int(rank)


def tile_value(tile: str, values: dict[str, int]) -> int:
    """A tile's pips, [4:2] and [2:1] worth 3 or 6 as chosen (3 when not stated)."""
    if tile in ("[4:2]", "[2:1]"):
        return values.get(tile, 3)
    return int(tile[1]) + int(tile[3])


def best_bull(hand: list[str]) -> tuple[list[str], int] | None:
    best: tuple[list[str], int] | None = None
    for three in itertools.combinations(hand, 3):
        if sum(map(value, three)) % 10:
            continue
        rest = [c for c in hand if c not in three]
        points = sum(map(value, rest)) % 10 or 10
        if best is None or points > best[1]:
            best = (list(three), points)
    return best


def deal(driver: WebDriver, game: str, hands: int, seed: int) -> list[WebElement]:
    Select(driver.find_element(By.ID, "t-game")).select_by_value(game)
    Select(driver.find_element(By.ID, "t-hands")).select_by_value(str(hands))
    seed_box = driver.find_element(By.ID, "t-seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    seed_box.send_keys(Keys.ENTER)  # the deal form submits on Enter
    WebDriverWait(driver, 15, poll_frequency=0.05).until(
        lambda d: (
            d.find_element(By.ID, "t-check").is_enabled()
            and d.find_element(By.ID, "t-check").is_displayed()
            and len(d.find_elements(By.CSS_SELECTOR, ".deal-hand")) == hands
            and f"Seed {seed}," in d.find_element(By.ID, "t-hands-area").text
        )
    )
    return driver.find_elements(By.CSS_SELECTOR, ".deal-hand")


def tokens_of(box: WebElement) -> list[str]:
    return [
        b.get_attribute("data-token") or "" for b in box.find_elements(By.CSS_SELECTOR, ".pick")
    ]


def click_bull(box: WebElement, three: list[str], points: int) -> None:
    for b in box.find_elements(By.CSS_SELECTOR, ".pick"):
        if b.get_attribute("data-token") in three:
            b.click()
    Select(box.find_element(By.CSS_SELECTOR, ".points")).select_by_value(str(points))


def check(driver: WebDriver) -> None:
    driver.find_element(By.ID, "t-check").click()
    WebDriverWait(driver, 15, poll_frequency=0.05).until(
        lambda d: d.find_element(By.ID, "t-check").get_attribute("disabled") is not None
    )


def verdict(box: WebElement) -> tuple[str, str]:
    classes = (box.get_attribute("class") or "").split()
    kind = "right" if "right" in classes else "wrong" if "wrong" in classes else "none"
    return kind, box.find_element(By.CSS_SELECTOR, ".explain").text


def test_the_trainer_played_by_clicking(browser: WebDriver, base: str, tmp_path: Path) -> None:
    browser.get(base + "/")
    wait(browser, "#deal-form")
    # deal 1, Niu Niu: hand 1 answered right, hand 2 wrong ("no bull" when it has one,
    # or the wrong bull when it has none), hand 3 right; the winner the worst hand
    seed = next(s for s in range(1, 200) if _niuniu_seed_fits(base, s))
    boxes = deal(browser, "niuniu", 3, seed)
    hands = [tokens_of(b) for b in boxes]
    answers = [best_bull(h) for h in hands]
    for k in (0, 2):
        ans = answers[k]
        if ans is None:
            boxes[k].find_element(By.CSS_SELECTOR, ".nobull").click()
        else:
            click_bull(boxes[k], *ans)
    wrong = answers[1]
    if wrong is not None:
        boxes[1].find_element(By.CSS_SELECTOR, ".nobull").click()
    else:
        click_bull(boxes[1], hands[1][:3], 5)
    rank = _api(base, "/v1/niuniu/rank", {"hands": [" ".join(h) for h in hands]})
    loser = rank["hands"][-1]["position"] + 1
    browser.find_element(By.CSS_SELECTOR, f"input[name=winner][value='{loser}']").click()
    shot(browser, tmp_path, "trainer-answered")
    check(browser)
    assert verdict(boxes[0])[0] == "right" and verdict(boxes[2])[0] == "right"
    kind, line = verdict(boxes[1])
    assert kind == "wrong" and line.startswith("✗")
    if wrong is not None:  # the right bull is named and highlighted
        assert "is a bull" in line and "points" in line, line
        lit = [
            b.get_attribute("data-token") or ""
            for b in boxes[1].find_elements(By.CSS_SELECTOR, ".pick.bull")
        ]
        assert len(lit) == 3 and sum(value(c) for c in lit) % 10 == 0
    winner_line = browser.find_element(By.CSS_SELECTOR, "#t-result .winner").text
    top = rank["hands"][0]
    assert (
        winner_line.startswith("✗")
        and f"hand {top['position'] + 1} wins ({top['reason']})" in winner_line
    )
    stats = browser.find_element(By.ID, "t-stats").text
    assert stats.startswith("Accuracy 2/4 (50.0%)") and "this deal" in stats, stats
    shot(browser, tmp_path, "trainer-checked")

    # deal 2, Tau Ngau: hand 1 with its bull, 3/6 values and score when it has one (the
    # bull checked here by the rule text's arithmetic), else "no bull"; hand 2 "no bull":
    # right exactly when it has none
    boxes = deal(browser, "taungau", 2, seed)
    tiles = [tokens_of(b) for b in boxes]
    recs = _api(base, "/v1/taungau/eval", {"hands": ["".join(t) for t in tiles]})
    first = recs[0]
    if first["has_bull"]:
        worth = {t: tile_value(t, first["values"]) for t in tiles[0]}
        assert sum(worth[t] for t in first["bull"]) % 10 == 0
        assert (sum(worth[t] for t in first["rest"]) % 10 or 10) == first["points"]  # macau
        for sel in boxes[0].find_elements(By.CSS_SELECTOR, ".value"):
            tile = sel.get_attribute("data-tile") or ""
            Select(sel).select_by_value(str(first["values"].get(tile, 3)))
        click_bull(boxes[0], first["bull"], first["points"])
    else:
        boxes[0].find_element(By.CSS_SELECTOR, ".nobull").click()
    boxes[1].find_element(By.CSS_SELECTOR, ".nobull").click()
    browser.find_element(By.CSS_SELECTOR, "input[name=winner][value='1']").click()
    check(browser)
    assert verdict(boxes[0])[0] == "right", verdict(boxes[0])
    kind, line = verdict(boxes[1])
    assert kind == ("wrong" if recs[1]["has_bull"] else "right"), (recs[1], line)
    if recs[1]["has_bull"]:
        assert "claimed no bull" in line and f"best {recs[1]['points']}" in line, line

    # deal 3, Pok Deng: draw with every hand; right exactly where the total is under 4
    # (a 2-card total of 0-3 always draws, 6-7 always stands: the rule text's chart ends)
    boxes = deal(browser, "pokdeng", 2, seed)
    for k, _ in enumerate(boxes, 1):
        browser.find_element(By.CSS_SELECTOR, f"input[name=action-{k}][value=draw]").click()
    check(browser)
    for b in boxes:
        kind, line = verdict(b)
        total = sum(value(c) for c in tokens_of(b) or _hand_tokens(b)) % 10
        assert kind in ("right", "wrong") and (kind == "right" or "EV draw" in line), line
        if total <= 3:
            assert kind == "right", line
        if total >= 6:
            assert kind == "wrong" and line.startswith("✗ stand"), line
    stats = browser.find_element(By.ID, "t-stats").text
    assert "over 3 deals" in stats, stats
    shot(browser, tmp_path, "trainer-pokdeng")


def _hand_tokens(box: WebElement) -> list[str]:
    row = box.find_element(By.CSS_SELECTOR, ".hand")
    return (row.get_attribute("aria-label") or "").split()


def _api(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    import httpx

    r = httpx.post(base + path, json=body) if body is not None else httpx.get(base + path)
    assert r.status_code == 200, r.text
    return r.json()


def _niuniu_seed_fits(base: str, seed: int) -> bool:
    """Deal 1 of ``seed`` has a hand with a bull in second place, no five-face hand, and
    a strict last hand (so answering it as winner is wrong)."""
    hands = _api(base, f"/v1/niuniu/deal?seed={seed}&hands=3")["hands"]
    cards = [h.split() for h in hands]
    if any(all(c[:-1] in ("J", "Q", "K") for c in h) for h in cards):
        return False
    recs = _api(base, "/v1/niuniu/eval", {"hands": hands})
    for h, rec in zip(cards, recs, strict=True):  # the independent solver agrees
        mine = best_bull(h)
        assert rec["has_bull"] == (mine is not None) and rec["points"] == (mine[1] if mine else 0)
    rank = _api(base, "/v1/niuniu/rank", {"hands": hands})
    return (
        bool(recs[1]["has_bull"]) and rank["hands"][0]["strength"] != rank["hands"][-1]["strength"]
    )


def test_the_lookup_page_typed_and_clicked(browser: WebDriver, base: str, tmp_path: Path) -> None:
    browser.get(base + "/#lookup")
    box = wait(browser, "#l-hand")
    box.send_keys("KS 9H 8C 3D 7S", Keys.ENTER)
    facts = wait(browser, "#l-result .facts")
    text = facts.text
    # 3+7+K = 20, 8+9 = 17: niu 7 (the rule text's arithmetic)
    assert "niu_7" in text and "Points 7" in text, text
    assert "P(win)" in text and "80.0%" in text, text  # 53336/66693, checked in test_serve
    lit = browser.find_elements(By.CSS_SELECTOR, "#l-result .hand .mark")
    assert len(lit) == 3
    shot(browser, tmp_path, "lookup-typed")
    browser.find_element(By.ID, "l-clear").click()
    for token in ("JS", "QS", "KS", "5H", "5D"):  # clicked from the picker
        browser.find_element(By.CSS_SELECTOR, f"#l-picker [data-token='{token}']").click()
    assert box.get_attribute("value") == "JS QS KS 5H 5D"
    browser.find_element(By.ID, "l-go").click()
    WebDriverWait(browser, 15, poll_frequency=0.05).until(
        lambda d: "niu_niu" in d.find_element(By.ID, "l-result").text
    )
    box.clear()
    box.send_keys("KS 9H 8C 3D ZZ", Keys.ENTER)
    err = wait(browser, "#l-result .error")
    assert "ZZ" in err.text  # the server's one-line error, shown as it is
    Select(browser.find_element(By.ID, "l-game")).select_by_value("pokdeng")
    box.send_keys("7H 5D", Keys.ENTER)
    WebDriverWait(browser, 15, poll_frequency=0.05).until(
        lambda d: "Best play" in d.find_element(By.ID, "l-result").text
    )
    assert "draw" in browser.find_element(By.ID, "l-result").text
    shot(browser, tmp_path, "lookup-pokdeng")


def test_the_charts_as_the_rule_text_says(browser: WebDriver, base: str, tmp_path: Path) -> None:
    browser.get(base + "/")
    wait(browser, "#tab-charts").click()
    table = wait(browser, "#taungau-chart", 30)
    rows = table.find_elements(By.CSS_SELECTOR, "tr")[1:]
    assert len(rows) == 10
    for row in rows:  # macau, banker first: decline exactly when b - p > 4
        p = int(row.find_element(By.CSS_SELECTOR, "th").text)
        marks = [td.text for td in row.find_elements(By.CSS_SELECTOR, "td")]
        assert marks == ["X" if b - p > 4 else "·" for b in range(1, 11)], (p, marks)
    chart = wait(browser, "#pokdeng-chart", 30)
    cells = chart.find_elements(By.CSS_SELECTOR, "td")
    assert len(cells) == 13 * 13 and {c.text for c in cells} == {"D", "S", "P"}
    body = chart.find_elements(By.CSS_SELECTOR, "tr")[1:]
    # A-A totals 2: always draw; 3-4 suited or not totals 7: always stand; a two-card
    # 8 or 9 is pok, and every pok cell is one: 8 or 9 in two cards, nothing else
    values = {r: min(i + 1, 10) for i, r in enumerate(RANKS)}
    for r, row in zip(RANKS, body, strict=True):
        for c, td in zip(RANKS, row.find_elements(By.CSS_SELECTOR, "td"), strict=True):
            assert (td.text == "P") == ((values[r] + values[c]) % 10 >= 8), (r, c, td.text)
    assert body[0].find_elements(By.CSS_SELECTOR, "td")[0].text == "D"
    assert body[2].find_elements(By.CSS_SELECTOR, "td")[3].text == "S"
    assert body[3].find_elements(By.CSS_SELECTOR, "td")[2].text == "S"
    shot(browser, tmp_path, "charts")
