"""Premoves in a 1+0 game and move confirmation in correspondence (issue 34, item 7): a
premove played when the turn comes, one dropped because it became illegal, one
cancelled; a correspondence move confirmed, and one taken back before confirming."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.e2e.looks import look
from tests.live import LiveServer

pytestmark = pytest.mark.browser
ONE_PLUS_ZERO = {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}
CORRESPONDENCE = {"kind": "correspondence", "days": 3}
QUEUED = re.compile(r"\bpremove-queued\b")


def start(server: LiveServer, control: dict) -> tuple[str, httpx.Client, httpx.Client]:
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    body = {"game": "morris", "name": "Alice", "side": "first", "time_control": control}
    match_id = alice.post("/api/matches", json=body).json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    return match_id, alice, bob


@pytest.fixture
def contexts(browser) -> Iterator[list[BrowserContext]]:
    made: list[BrowserContext] = []
    yield made
    for context in made:
        context.close()


def open_as(
    browser, contexts, server: LiveServer, client: httpx.Client, match_id: str, lang: str = "en"
) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    contexts.append(context)
    context.add_cookies(
        [{"name": "lang", "value": lang, "url": server.url}]
        + [{"name": k, "value": v, "url": server.url} for k, v in client.cookies.items()]
    )
    page = context.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#live")).to_have_attribute("data-status", "playing")
    return page


def point(page: Page, name: str):
    return page.locator(f'#live svg.board [data-point="{name}"]')


def premove_ready(page: Page) -> None:
    """The premove paths have arrived (polled from here: the page's CSP forbids eval)."""
    for _ in range(100):
        if page.evaluate("() => !!(window.tableroPremove && window.tableroPremove.state().ready)"):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the premove paths never arrived")


def play_api(client: httpx.Client, match_id: str, move: str, ply: int) -> None:
    moved = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
    assert moved.status_code == 200, moved.text


def test_a_premove_is_played_when_the_turn_comes(server: LiveServer, browser, contexts) -> None:
    match_id, alice, bob = start(server, ONE_PLUS_ZERO)
    page = open_as(browser, contexts, server, bob, match_id)
    expect(page.locator("#live")).to_have_attribute("data-my-turn", "false")
    premove_ready(page)
    point(page, "d6").click()
    expect(point(page, "d6")).to_have_class(QUEUED)
    expect(page.locator("#premove-note")).to_contain_text("Premove: d6")
    play_api(alice, match_id, "d2", 0)
    # Nothing tapped after Alice's move: the page sends the premove itself.
    expect(page.locator("#live")).to_have_attribute("data-ply", "2", timeout=10000)
    assert bob.get(f"/api/matches/{match_id}").json()["moves"] == ["d2", "d6"]
    expect(page.locator("#premove-note")).to_contain_text("Premove played: d6")


def test_a_premove_made_illegal_is_dropped_and_said(server: LiveServer, browser, contexts) -> None:
    match_id, alice, bob = start(server, ONE_PLUS_ZERO)
    page = open_as(browser, contexts, server, bob, match_id, lang="es")
    premove_ready(page)
    point(page, "d6").click()
    expect(page.locator("#premove-note")).to_contain_text("Premovimiento: d6")
    play_api(alice, match_id, "d6", 0)  # Alice takes the very point
    expect(page.locator("#live")).to_have_attribute("data-ply", "1", timeout=10000)
    expect(page.locator("#premove-note")).to_contain_text("no era legal")
    expect(page.locator("#live")).to_have_attribute("data-my-turn", "true")
    page.wait_for_timeout(1000)
    assert bob.get(f"/api/matches/{match_id}").json()["ply"] == 1  # nothing was played for Bob


def test_a_premove_is_cancelled_by_escape_and_by_a_tap(server: LiveServer, browser, contexts) -> None:
    match_id, alice, bob = start(server, ONE_PLUS_ZERO)
    page = open_as(browser, contexts, server, bob, match_id)
    premove_ready(page)
    point(page, "d6").click()
    expect(point(page, "d6")).to_have_class(QUEUED)
    page.keyboard.press("Escape")
    expect(page.locator("#premove-note")).to_contain_text("Premove cancelled")
    expect(page.locator("#live svg.board .premove-queued")).to_have_count(0)
    point(page, "b6").click()
    expect(point(page, "b6")).to_have_class(QUEUED)
    point(page, "f6").click()  # a tap on the board drops the queued one (one at a time)
    expect(page.locator("#live svg.board .premove-queued")).to_have_count(0)
    play_api(alice, match_id, "d2", 0)
    expect(page.locator("#live")).to_have_attribute("data-my-turn", "true", timeout=10000)
    page.wait_for_timeout(1000)
    assert bob.get(f"/api/matches/{match_id}").json()["ply"] == 1


def test_a_correspondence_move_waits_for_confirm(server: LiveServer, browser, contexts) -> None:
    match_id, alice, bob = start(server, CORRESPONDENCE)
    page = open_as(browser, contexts, server, alice, match_id)
    expect(page.locator("#live")).to_have_attribute("data-my-turn", "true")
    point(page, "d2").click()
    bar = page.locator("#confirm-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Play d2?")
    page.wait_for_timeout(500)
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == 0  # shown, not sent
    bar.locator("[data-action=confirm-move]").click()
    expect(page.locator("#live")).to_have_attribute("data-ply", "1", timeout=10000)
    expect(bar).to_be_hidden()
    # Bob takes his first choice back before confirming: nothing is sent.
    other = open_as(browser, contexts, server, bob, match_id)
    point(other, "d6").click()
    other_bar = other.locator("#confirm-bar")
    expect(other_bar).to_be_visible()
    other_bar.locator("[data-action=takeback-move]").click()
    expect(other_bar).to_be_hidden()
    other.wait_for_timeout(500)
    assert bob.get(f"/api/matches/{match_id}").json()["ply"] == 1
    point(other, "f6").click()
    expect(other_bar).to_contain_text("Play f6?")
    other_bar.locator("[data-action=confirm-move]").click()
    expect(other.locator("#live")).to_have_attribute("data-ply", "2", timeout=10000)
    assert bob.get(f"/api/matches/{match_id}").json()["moves"] == ["d2", "f6"]


def test_real_time_moves_are_not_held(server: LiveServer, browser, contexts) -> None:
    match_id, alice, _bob = start(server, ONE_PLUS_ZERO)
    page = open_as(browser, contexts, server, alice, match_id)
    point(page, "d2").click()
    expect(page.locator("#live")).to_have_attribute("data-ply", "1", timeout=10000)
    assert page.locator("#confirm-bar").count() == 0


def test_premove_and_confirm_screens(server: LiveServer, browser, shots: Path) -> None:
    match_id, _alice, bob = start(server, ONE_PLUS_ZERO)

    def premove(page: Page) -> None:
        page.goto(f"{server.url}/matches/{match_id}")
        premove_ready(page)
        point(page, "d6").click()
        expect(page.locator("#premove-note")).to_be_visible()

    look(browser, server.url, dict(bob.cookies), "premove", shots, premove)
    corr_id, alice, _ = start(server, CORRESPONDENCE)

    def confirm(page: Page) -> None:
        page.goto(f"{server.url}/matches/{corr_id}")
        point(page, "d2").click()
        expect(page.locator("#confirm-bar")).to_be_visible()

    look(browser, server.url, dict(alice.cookies), "confirm", shots, confirm)
