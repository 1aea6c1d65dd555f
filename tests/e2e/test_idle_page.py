"""An idle match page asks the server for nothing (issue 28): its one event stream brings
what changes without a move too: the spectators' count and, for a signed-in player, the
header's challenges badge (a claim against an absent opponent: tests/e2e/test_polish_prompts.py)."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.e2e.test_chat import account
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: Longer than every poll a match page had (its view and its claim every 5 s, the header's
#: challenges every 10 s), so each would have asked at least once.
IDLE_SECONDS = 10.5


def test_an_idle_match_page_makes_no_request_and_still_hears_everything(server: LiveServer, browser) -> None:
    alice, bob = account(server, "Alice"), account(server, "Bob")
    body = {"game": "morris", "name": "Alice", "side": "first"}
    body["time_control"] = {"kind": "realtime", "initial_seconds": 600, "increment_seconds": 0}
    match_id = alice.post("/api/matches", json=body).json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200

    context = browser.new_context()
    context.add_cookies([{"name": k, "value": v, "url": server.url} for k, v in alice.cookies.items()])
    page = context.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("header .account-name")).to_have_text("Alice")
    expect(page.locator("#live .spectators")).to_have_text("0")
    page.wait_for_timeout(1000)  # what the page asks for once, as it loads
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    idle_from = time.monotonic()

    # Someone starts watching: the count changes on Alice's page.
    watcher = browser.new_context()
    watching = watcher.new_page()
    watching.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#live .spectators")).to_have_text("1")
    # Bob challenges Alice to another game: her header says so.
    sent = bob.post("/api/challenges", json={"to": "Alice", "game": "bashni"})
    assert sent.status_code == 201, sent.text
    expect(page.locator(".whoami .challenge-badge .nav-count")).to_have_text("1", timeout=15_000)
    watcher.close()
    expect(page.locator("#live .spectators")).to_have_text("0")

    left = IDLE_SECONDS - (time.monotonic() - idle_from)
    if left > 0:
        page.wait_for_timeout(left * 1000)
    assert asked == [], asked
    context.close()
