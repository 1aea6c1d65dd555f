"""The analysis and record pages by keyboard: arrow keys and Home/End step, the move list
keeps the current move in sight, the evaluation bar stands beside the board and the best
move is drawn as an arrow (issue 34, item 3)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

import games
from tests.app.helpers import BASHNI_WIN
from tests.app.reviewed import store_review
from tests.e2e.looks import look
from tests.live import LiveServer

pytestmark = pytest.mark.browser
LINE = tuple(BASHNI_WIN[:21])


def finished(server: LiveServer) -> tuple[str, dict[str, str]]:
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    match_id = alice.post("/api/matches", json={"game": "bashni", "name": "Ana", "side": "first"}).json()[
        "id"
    ]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bo"}).status_code == 200
    for ply, move in enumerate(LINE):
        client = alice if ply % 2 == 0 else bob
        assert (
            client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}).status_code == 200
        )
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    return match_id, dict(alice.cookies)


@pytest.fixture
def reviewed(server: LiveServer) -> tuple[str, dict[str, str], list[dict]]:
    match_id, cookies = finished(server)
    game = games.get("bashni")
    results = store_review(server.database_url, "bashni", game.format_position(game.initial()), LINE)
    return match_id, cookies, results


def at_of(page: Page) -> int:
    return int(page.locator(".analysis-page").get_attribute("data-at") or -1)


def current_is_seen(page: Page) -> bool:
    return page.evaluate(
        """() => { const list = document.querySelector('.analysis-move-list .move-list');
          const cur = list.querySelector('.current'); if (!cur) return false;
          const a = list.getBoundingClientRect(), b = cur.getBoundingClientRect();
          return b.top >= a.top - 1 && b.bottom <= a.bottom + 1; }"""
    )


def test_the_analysis_page_by_keyboard(server: LiveServer, browser, reviewed) -> None:
    match_id, _cookies, _results = reviewed
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{server.url}/matches/{match_id}/analysis?at=3")
    assert at_of(page) == 3
    for key, expected in (
        ("ArrowRight", 4),
        ("ArrowRight", 5),
        ("ArrowLeft", 4),
        ("Home", 0),
        ("End", len(LINE)),
    ):
        with page.expect_navigation():
            page.keyboard.press(key)
        assert at_of(page) == expected, key
        assert f"at={expected}" in page.url
        current = page.locator(".analysis-move-list .mv.current")
        if expected:
            expect(current).to_have_attribute("data-at", str(expected))
            assert current_is_seen(page), f"the move after ply {expected} is scrolled out of the list"
        else:
            assert current.count() == 0
    # Beyond the end nothing happens; a key typed into a field is the field's.
    page.keyboard.press("ArrowRight")
    assert at_of(page) == len(LINE)
    page.locator(".play-from input[name=name]").fill("Ana")
    page.locator(".play-from input[name=name]").press("ArrowLeft")
    assert at_of(page) == len(LINE)
    context.close()


def test_the_bar_beside_the_board_and_the_best_move_s_arrow(server: LiveServer, browser, reviewed) -> None:
    match_id, _cookies, results = reviewed
    at = next(i for i, r in enumerate(results) if r["best"] and r["chance"] not in (0, 100) and i > 2)
    for viewport in ({"width": 1280, "height": 800}, {"width": 390, "height": 844}):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(f"{server.url}/matches/{match_id}/analysis?at={at}")
        bar = page.locator(".eval-bar svg").bounding_box()
        board = page.locator("#analysis-board svg.board").bounding_box()
        assert bar is not None and board is not None
        assert bar["x"] + bar["width"] <= board["x"] + 1  # beside it, to its left
        assert bar["y"] < board["y"] + board["height"] and board["y"] < bar["y"] + bar["height"]
        assert bar["height"] > board["height"] * 0.6
        share = page.locator(".eval-bar rect.first").get_attribute("height")
        assert abs(float(share or 0) - results[at]["chance"]) < 0.1
        arrow = page.locator("svg.board .best-arrow line")
        expect(arrow).to_have_count(1)
        squares = results[at]["best"].replace(":", "-").split("-")
        ends = page.evaluate(
            """([from, to]) => { const c = (n) => {
                 const b = document.querySelector(`[data-point="${n}"] .hit`).getBBox();
                 return [b.x + b.width / 2, b.y + b.height / 2]; };
               const l = document.querySelector('.best-arrow line');
               return { a: c(from), b: c(to), x1: +l.getAttribute('x1'), y1: +l.getAttribute('y1'),
                        x2: +l.getAttribute('x2'), y2: +l.getAttribute('y2') }; }""",
            [squares[0], squares[-1]],
        )
        assert abs(ends["x1"] - ends["a"][0]) < 0.01 and abs(ends["y1"] - ends["a"][1]) < 0.01
        assert abs(ends["x2"] - ends["b"][0]) < 0.3 and abs(ends["y2"] - ends["b"][1]) < 0.3
        context.close()


def test_analysis_and_record_screens(server: LiveServer, browser, reviewed, shots: Path) -> None:
    match_id, cookies, _results = reviewed
    record = httpx.get(f"{server.url}/api/matches/{match_id}/record").text
    imported = httpx.post(
        f"{server.url}/api/records", content=record.encode(), headers={"content-type": "text/plain"}
    ).json()["id"]

    def analysis(page: Page) -> None:
        page.goto(f"{server.url}/matches/{match_id}/analysis?at=12")
        expect(page.locator(".eval-bar")).to_be_visible()

    def record_page(page: Page) -> None:
        page.goto(f"{server.url}/records/{imported}?at=7")
        expect(page.locator(".eval-bar")).to_be_visible()  # the same review: same line of play
        page.keyboard.press("End")
        page.wait_for_url(f"**at={len(LINE)}")

    look(browser, server.url, cookies, "analysis", shots, analysis)
    look(browser, server.url, cookies, "record", shots, record_page)
