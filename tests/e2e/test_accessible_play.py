"""Playing by keyboard only, by typed moves, and hearing what happens (issue 19).

No mouse event is sent in these tests: matches are created through the JSON API from the
page's own browser context (so the seat cookie is the page's), the board is reached with
Tab, the cursor is moved with the arrow keys along the map the server sent, and points are
tapped with Enter or Space.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import games
from tests.app.conftest import database_url
from tests.e2e.play import wait_for_ply
from tests.e2e.test_ladder import WHITE as BASHNI_WHITE
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: White's moves that beat the first-legal test opponent at Morris in 29 plies (found with
#: games.ai level 2 against app.computer.first_legal).
MORRIS_WHITE = ("g4 g1 g7xa4 a7 d7xa4 d6 d5xb4 b6 f6xa4 d5-e5 e5-d5xa4 g4-f4 f4-g4xd1 b6-b4 b4-b6xc3").split()

KEYS = {"up": "ArrowUp", "right": "ArrowRight", "down": "ArrowDown", "left": "ArrowLeft"}
ACTIVE_POINT = (
    "(() => { const p = document.activeElement.closest('svg.board [data-point]');"
    " return p ? p.dataset.point : null; })()"
)


@pytest.fixture
def solo_server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    yield live
    live.stop()


def new_match(page: Page, base: str, game: str, computer: bool = True) -> str:
    body = {"game": game, "name": "Keys", "side": "first", "public": False}
    if computer:
        body["opponent"] = {"level": 1}
    response = page.request.post(base + "/api/matches", data=body)
    assert response.status == 201, response.text()
    match_id = response.json()["id"]
    page.goto(f"{base}/matches/{match_id}")
    return match_id


def tab_to_board(page: Page) -> int:
    """Press Tab from the top of the page until a point of the board has focus."""
    for presses in range(1, 40):
        page.keyboard.press("Tab")
        if page.evaluate(ACTIVE_POINT):
            return presses
    raise AssertionError("Tab never reached the board")


def path_keys(page: Page, start: str, goal: str) -> list[str]:
    """The arrow keys from ``start`` to ``goal`` along the server's map (breadth first)."""
    nav = json.loads(page.locator("#live svg.board").get_attribute("data-nav") or "{}")
    came: dict[str, tuple[str, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            break
        for direction, there in zip(("up", "right", "down", "left"), nav[here], strict=True):
            if there is not None and there not in came:
                came[there] = (here, direction)
                queue.append(there)
    assert goal in came, f"{goal} cannot be reached from {start} with the arrow keys"
    keys = []
    point = goal
    while came[point] is not None:
        point, direction = came[point]
        keys.append(KEYS[direction])
    return keys[::-1]


def key_tap(page: Page, point: str, key: str = "Enter") -> None:
    start = page.evaluate(ACTIVE_POINT)
    assert start is not None, "the focus left the board"
    for key_name in path_keys(page, start, point):
        page.keyboard.press(key_name)
    assert page.evaluate(ACTIVE_POINT) == point
    page.keyboard.press(key)


def play_by_keyboard(page: Page, game_name: str, white: list[str], shots: Path) -> None:
    game = games.get(game_name)
    presses = tab_to_board(page)
    assert presses <= 15, f"{presses} Tab presses to reach the board"
    for i, text in enumerate(white):
        wait_for_ply(page, 2 * i, timeout=15000)
        state = game.parse_position(page.locator("#live svg.board").get_attribute("data-position"))
        move = game.parse_move(state, text)
        for n, point in enumerate(game.clicks(move)):
            # Enter and Space both tap; alternate so both are used.
            key_tap(page, point, "Enter" if n % 2 == 0 else " ")
        last = i == len(white) - 1
        if not last:
            wait_for_ply(page, 2 * i + 2, timeout=15000)
            # The computer's reply came in through a refresh: the focus is still on the board.
            expect(page.locator("#live svg.board [data-point]:focus")).to_have_count(1)
        if i == 2:
            page.screenshot(path=str(shots / "keyboard.png"))
    expect(page.locator(".banner.result")).to_contain_text("Keys wins", timeout=15000)
    expect(page.locator("#announcer")).to_contain_text("Game over: White (Keys) wins")
    expect(page.locator("#live svg.board [data-point]:focus")).to_have_count(1)


def no_mouse(page: Page) -> None:
    """Record every mouse or pointer event the page receives (a keyboard click has detail 0)."""
    page.evaluate(
        """window.__mouse = [];
        for (const kind of ["mousedown", "mouseup", "click", "pointerdown", "pointerup"])
          document.addEventListener(kind, (e) => {
            if (e.isTrusted && !(kind === "click" && e.detail === 0)) window.__mouse.push(kind);
          }, true);"""
    )


@pytest.mark.parametrize(("game_name", "white"), [("morris", MORRIS_WHITE), ("bashni", BASHNI_WHITE)])
def test_a_whole_game_by_keyboard_only(
    solo_server: LiveServer, browser, shots: Path, game_name: str, white: list[str]
) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    new_match(page, solo_server.url, game_name)
    no_mouse(page)
    play_by_keyboard(page, game_name, white, shots)
    # Enter on a point is a keyboard click (detail 0), never a mouse event.
    assert page.evaluate("window.__mouse") == []
    context.close()


def test_the_cursor_names_each_point_and_escape_clears(solo_server: LiveServer, browser) -> None:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    new_match(page, solo_server.url, "bashni")
    tab_to_board(page)
    key_tap(page, "c3")
    point = page.locator('#live [data-point="c3"]')
    expect(point).to_have_attribute("aria-label", "c3, white man, selected")
    d4 = page.locator('#live [data-point="d4"]')
    expect(d4).to_have_attribute("aria-label", "d4, empty, can be tapped")
    expect(page.locator("#announcer")).to_have_text("c3, white man, selected")
    page.keyboard.press("Escape")
    expect(page.locator("#live .point.chosen")).to_have_count(0)
    expect(point).to_have_attribute("aria-label", "c3, white man, can be tapped")
    # One tab stop: every other point is out of the tab order.
    expect(page.locator('#live svg.board [data-point][tabindex="0"]')).to_have_count(1)
    context.close()


def test_the_live_region_speaks_the_opponents_move(solo_server: LiveServer, browser) -> None:
    alice = browser.new_context(viewport={"width": 1200, "height": 900})
    bob = browser.new_context(viewport={"width": 390, "height": 844})
    alice.add_cookies([{"name": "lang", "value": "es", "url": solo_server.url}])
    page_a, page_b = alice.new_page(), bob.new_page()
    match_id = new_match(page_a, solo_server.url, "morris", computer=False)
    joined = page_b.request.post(f"{solo_server.url}/api/matches/{match_id}/join", data={"name": "Bob"})
    assert joined.status == 200
    wait_for_ply(page_a, 0)
    expect(page_a.locator("#live")).to_have_attribute("data-status", "playing")
    tab_to_board(page_a)
    key_tap(page_a, "a1")
    wait_for_ply(page_a, 1)
    played = page_b.request.post(
        f"{solo_server.url}/api/matches/{match_id}/moves", data={"move": "d2", "ply": 1}
    )
    assert played.status == 200, played.text()
    wait_for_ply(page_a, 2)
    expect(page_a.locator("#announcer")).to_have_text(
        "Negras (Bob) jugó d2: puso una pieza en d2. Te toca.", timeout=5000
    )
    expect(page_a.locator("#live svg.board [data-point]:focus")).to_have_count(1)
    alice.close()
    bob.close()


def type_text(page: Page, text: str) -> None:
    page.locator("#typed-text").fill(text)
    page.locator("#typed-text").press("Enter")


def test_a_whole_game_by_typed_moves_and_commands(solo_server: LiveServer, browser, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    new_match(page, solo_server.url, "morris")
    answer = page.locator("#typed-answer")
    type_text(page, "moves")
    expect(answer).to_contain_text("Legal moves: a1, a4, a7")
    expect(page.locator("#legal-moves option")).to_have_count(24)
    type_text(page, "a3-b4")
    expect(answer).to_have_text("a3-b4 is not a legal move here; type “moves” to hear them.")
    for i, text in enumerate(MORRIS_WHITE):
        wait_for_ply(page, 2 * i, timeout=15000)
        type_text(page, text)
        if i < len(MORRIS_WHITE) - 1:
            wait_for_ply(page, 2 * i + 2, timeout=15000)
            expect(page.locator("#typed-text")).to_be_focused()
        if i == 1:
            type_text(page, "l")
            expect(answer).to_have_text("Black (the computer) played a4: placed a piece on a4.")
            type_text(page, "s g1")
            expect(answer).to_have_text("g1, white piece")
            type_text(page, "t")
            expect(answer).to_have_text("Your move (White (Keys)).")
            page.screenshot(path=str(shots / "typed.png"))
    expect(page.locator(".banner.result")).to_contain_text("Keys wins", timeout=15000)
    type_text(page, "o")
    expect(answer).to_contain_text("Black (the computer): ")
    context.close()
