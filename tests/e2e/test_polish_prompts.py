"""The claim prompt reaches the banner when the opponent leaves, with a sound and the tab's
title, at both sizes and in both languages (issue 34, item 2)."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect
from sqlalchemy import create_engine, update

from app.models import Match, Seat
from tests.app.helpers import MORRIS_WIN
from tests.e2e.looks import SIZES, look
from tests.live import LiveServer

pytestmark = pytest.mark.browser
TITLES = {"en": "❗ Your opponent left · ", "es": "❗ Tu rival se fue · "}

#: Real seconds for the server's heartbeat (every 1 s) to flush the presence it noted.
FLUSHED = 1.6


def started(server: LiveServer) -> tuple[str, dict[str, str]]:
    """A 10+0 Morris game, three plies in, Bob (never on the page) to move: Alice's cookies."""
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    body = {"game": "morris", "name": "Alice", "side": "first"}
    body["time_control"] = {"kind": "realtime", "initial_seconds": 600, "increment_seconds": 0}
    match_id = alice.post("/api/matches", json=body).json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    for ply, client in enumerate((alice, bob, alice)):
        moved = client.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[ply], "ply": ply})
        assert moved.status_code == 200, moved.text
    return match_id, dict(alice.cookies)


def bob_leaves(server: LiveServer, match_id: str) -> None:
    """As if Bob's turn began two minutes ago and his page has not been open since.

    Every request of a player counts as presence (issue 27), noted in memory and written
    on the next beat: Bob's last move must be written before it is erased here, or the
    flush would bring his presence back after the edit."""
    time.sleep(FLUSHED)
    engine = create_engine(server.database_url)
    with engine.begin() as db:
        since, deadline = db.execute(
            Match.__table__.select()
            .with_only_columns(Match.clock_since, Match.deadline)
            .where(Match.id == match_id)
        ).one()
        db.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(clock_since=since - timedelta(minutes=2), deadline=deadline - timedelta(minutes=2))
        )
        db.execute(update(Seat).where(Seat.match_id == match_id).values(last_seen_at=None))
    engine.dispose()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_claim_prompt_comes_to_the_banner(server: LiveServer, browser, size: str, lang: str) -> None:
    match_id, cookies = started(server)
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies(
        [{"name": "lang", "value": lang, "url": server.url}]
        + [{"name": k, "value": v, "url": server.url} for k, v in cookies.items()]
    )
    page = context.new_page()
    sounds: list[str] = []
    page.on("request", lambda r: sounds.append(r.url) if "/static/sounds/" in r.url else None)
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator(".banner.turn")).to_be_visible()
    assert page.locator("[data-prompt]").count() == 0
    plain_title = page.title()
    # Alice's own page stays open: only Bob's absence is faked. The polled slot shows it.
    bob_leaves(server, match_id)
    prompt = page.locator("[data-prompt^='claim:']")
    expect(prompt).to_be_visible(timeout=8000)
    expect(page).to_have_title(TITLES[lang] + plain_title)
    assert any("/static/sounds/prompt." in url for url in sounds), sounds
    # Where the eyes are: above the banner's turn line, and in the first screen.
    box, turn = prompt.bounding_box(), page.locator(".banner.turn").bounding_box()
    assert box is not None and turn is not None
    assert box["y"] < turn["y"] and box["y"] + box["height"] <= SIZES[size]["height"]
    if size == "phone":
        board = page.locator(".board-wrap").bounding_box()
        assert board is not None and box["y"] < board["y"]
    # Answering it ends the match, and the title and the question go.
    with page.expect_response(lambda r: r.url.endswith("/act")):
        prompt.locator("[data-action=claim-win]").click()
    expect(page.locator("#live")).to_have_attribute("data-status", "finished")
    expect(page).not_to_have_title(TITLES[lang] + plain_title)
    assert not page.title().startswith("❗")
    context.close()


def test_prompt_screens(server: LiveServer, browser, shots: Path) -> None:
    match_id, cookies = started(server)
    bob_leaves(server, match_id)

    def open_page(page):
        page.goto(f"{server.url}/matches/{match_id}")
        expect(page.locator("[data-prompt^='claim:']")).to_be_visible()

    look(browser, server.url, cookies, "claim-prompt", shots, open_page)
