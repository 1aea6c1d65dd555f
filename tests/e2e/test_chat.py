"""Match chat in Chromium (issue 33): two players exchange phrases, each page in its own
language (English and Spanish), and free text; a spectator without an account cannot
write; reporting a line and the moderation page; both sizes; axe.

Free text needs accounts older than a day: the test's accounts are made through the API
and their creation moved two days back in the server's database (the one thing the
browser cannot wait for); their three finished games are played through the API.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from app.manage import grant_moderator
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.live import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PASSWORD = "a long enough password"
SHOTS = Path("/tmp/chat-shots")
BLOCKING = ("serious", "critical")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)
    live = LiveServer(url)
    live.start()
    yield live
    live.stop()


def account(server: LiveServer, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=30)
    made = client.post("/api/account", json={"username": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    return client


def established(server: LiveServer, a: httpx.Client, b: httpx.Client) -> None:
    """Three finished games between the two, and both accounts two days old."""
    for _ in range(3):
        match_id = a.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).json()["id"]
        assert b.post(f"/api/matches/{match_id}/join", json={"name": "B"}).status_code == 200
        for ply, move in enumerate(MORRIS_WIN[:2]):
            mover = a if ply % 2 == 0 else b
            assert (
                mover.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}).status_code
                == 200
            )
        assert a.post(f"/api/matches/{match_id}/resign").status_code == 200
    path = server.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE accounts SET created_at = datetime(created_at, '-2 days')")
    db.close()


def browse(browser: Browser, server: LiveServer, client: httpx.Client | None, lang: str, size: str) -> Page:
    context = browser.new_context(viewport=SIZES[size])
    cookies = [{"name": "lang", "value": lang, "url": server.url}]
    if client is not None:
        cookies += [{"name": k, "value": v, "url": server.url} for k, v in client.cookies.items()]
    context.add_cookies(cookies)
    return context.new_page()


def serious(page: Page) -> list[str]:
    results = Axe().run(page).response
    return [
        f"{v['id']} ({v['impact']}): {v['help']} {[n['target'] for n in v['nodes'][:3]]}"
        for v in results["violations"]
        if v["impact"] in BLOCKING
    ]


def no_sideways_scroll(page: Page) -> None:
    wide = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    assert wide <= 1, f"the page scrolls sideways by {wide}px"


@pytest.mark.parametrize("size", list(SIZES))
def test_two_players_chat_each_in_their_language(browser: Browser, server: LiveServer, size: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ana, bo = account(server, "ana"), account(server, "bo")
    established(server, ana, bo)
    match_id = ana.post("/api/matches", json={"game": "morris", "name": "Ana", "side": "first"}).json()["id"]
    assert bo.post(f"/api/matches/{match_id}/join", json={"name": "Bo"}).status_code == 200
    english = browse(browser, server, ana, "en", size)
    spanish = browse(browser, server, bo, "es", size)
    english.goto(f"{server.url}/matches/{match_id}")
    spanish.goto(f"{server.url}/matches/{match_id}")
    for page in (english, spanish):
        expect(page.locator("#live")).to_be_visible()
        page.wait_for_timeout(300)  # the event stream connects

    # A phrase by keyboard: each reader sees it in its own language.
    english.locator("button[value='good-luck']").focus()
    english.keyboard.press("Enter")
    expect(english.locator("#chat-rooms")).to_contain_text("Good luck")
    expect(spanish.locator("#chat-rooms")).to_contain_text("Buena suerte", timeout=5000)
    spanish.get_by_role("button", name="Gracias").click()
    expect(english.locator("#chat-rooms")).to_contain_text("Thanks", timeout=5000)
    # The opponent's line is said in the live region (it is on by default).
    expect(english.locator("#announcer")).to_contain_text("bo: Thanks", timeout=5000)

    # Free text, typed and sent with Enter; shown as typed, never as markup.
    hostile = "<b>gg</b> 🎉 漢字"
    english.locator("#chat-text-input").fill(hostile)
    english.locator("#chat-text-input").press("Enter")
    expect(spanish.locator("#chat-rooms")).to_contain_text(hostile, timeout=5000)
    expect(english.locator("#chat-text-input")).to_have_value("")
    assert spanish.locator("#chat-rooms b").count() == 0
    expect(spanish.locator("#announcer")).to_contain_text("gg", timeout=5000)

    # The reader can switch the announcements off (kept in the browser).
    spanish.locator("#chat-speak").uncheck()
    english.get_by_role("button", name="Well played").click()
    expect(spanish.locator("#chat-rooms")).to_contain_text("Bien jugado", timeout=5000)
    expect(spanish.locator("#announcer")).not_to_contain_text("Bien jugado")

    for page, who in ((english, "en"), (spanish, "es")):
        no_sideways_scroll(page)
        page.screenshot(path=str(SHOTS / f"players-{who}-{size}.png"), full_page=True)
        if size == "phone":
            board = page.locator(".board").first.bounding_box()
            chat = page.locator("#chat").bounding_box()
            assert board and chat and chat["y"] >= board["y"] + board["height"], "the chat covers the board"
        assert not serious(page), serious(page)

    # A line reported from its menu, in Spanish.
    line = spanish.locator("#chat-rooms li", has_text="<b>gg</b>")
    line.locator("summary").click()
    line.get_by_label("¿Por qué denuncias esta línea?").fill("etiquetas")
    line.get_by_role("button", name="Denunciar").click()
    expect(spanish.locator("#chat-rooms")).to_contain_text("Denunciado", timeout=5000)


def test_a_guest_spectator_reads_but_cannot_write(browser: Browser, server: LiveServer) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ana = account(server, "ana")
    guest = httpx.Client(base_url=server.url, timeout=30)
    match_id = ana.post("/api/matches", json={"game": "morris", "name": "Ana", "side": "first"}).json()["id"]
    assert guest.post(f"/api/matches/{match_id}/join", json={"name": "Guest"}).status_code == 200
    dave = account(server, "dave")
    assert (
        dave.post(
            f"/api/matches/{match_id}/chat", json={"room": "spectators", "phrase": "nice-move"}
        ).status_code
        == 201
    )
    for size, (key, words) in zip(SIZES, [("oops", "Oops"), ("well-played", "Well played")], strict=True):
        watcher = browse(browser, server, None, "en", size)
        watcher.goto(f"{server.url}/matches/{match_id}")
        chat = watcher.locator("#chat")
        expect(chat).to_contain_text("Nice move")
        expect(chat).to_contain_text("Spectators with an account can write here.")
        assert chat.locator("button[name='phrase']").count() == 0
        assert chat.locator("#chat-text-input").count() == 0
        no_sideways_scroll(watcher)
        watcher.screenshot(path=str(SHOTS / f"spectator-{size}.png"), full_page=True)
        assert not serious(watcher), serious(watcher)
        # A line said now arrives without a reload.
        watcher.wait_for_timeout(300)  # the event stream connects
        said = dave.post(f"/api/matches/{match_id}/chat", json={"room": "spectators", "phrase": key})
        assert said.status_code == 201
        expect(chat).to_contain_text(words, timeout=5000)


def test_the_moderation_page(browser: Browser, server: LiveServer) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ana, bo = account(server, "ana"), account(server, "bo")
    established(server, ana, bo)
    match_id = ana.post("/api/matches", json={"game": "morris", "name": "Ana", "side": "first"}).json()["id"]
    assert bo.post(f"/api/matches/{match_id}/join", json={"name": "Bo"}).status_code == 200
    bo.post(f"/api/matches/{match_id}/chat", json={"room": "players", "phrase": "hello"})
    line = ana.post(
        f"/api/matches/{match_id}/chat", json={"room": "players", "text": "<script>bad()</script>"}
    )
    assert line.status_code == 201
    report = bo.post(
        "/api/reports", json={"username": "ana", "reason": "a script", "line_id": line.json()["id"]}
    )
    assert report.status_code == 201
    mo = account(server, "mo")
    grant_moderator("mo", server.database_url)
    for size in ("phone", "desktop"):  # the phone sees the open report; the desktop decides it
        page = browse(browser, server, mo, "en", size)
        page.goto(f"{server.url}/moderation")
        expect(page.locator(".report")).to_contain_text("<script>bad()</script>")
        expect(page.locator(".report")).to_contain_text("Hello")
        no_sideways_scroll(page)
        page.screenshot(path=str(SHOTS / f"moderation-{size}.png"), full_page=True)
        assert not serious(page), serious(page)
        if size == "desktop":
            page.get_by_role("button", name="Time out for 15 minutes").click()
            expect(page.locator(".moderation-log")).to_contain_text("mo")
            expect(page.locator(".moderation-log")).to_contain_text("Time out for 15 minutes")
            expect(page.locator("body")).to_contain_text("No open reports.")
    out = ana.post(f"/api/matches/{match_id}/chat", json={"room": "players", "phrase": "sorry"})
    assert out.status_code == 403
