"""A game's record travels: exported in one browser, imported in another, stepped through, and
played on from ply 10 against the computer."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games import records
from tests.app.helpers import BASHNI_WIN
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: How long the review may take to reach a position on a loaded machine (the server's
#: progress, not the page's), and how long the page, which polls every 2 s, may take to show it.
REVIEW_PROGRESS_MS = 180_000
PAGE_POLLS = 15_000
#: The panel shows at least ``n`` positions reviewed, or the finished review.
SHOWN = (
    "n => { const p = document.querySelector('#review-panel');"
    " const b = p && p.querySelector('progress');"
    " return p && (p.dataset.status === 'done' || (b && Number(b.value) >= n)); }"
)

#: The positions the panel shows reviewed (all of them once the review is done).
SHOWN_COUNT = (
    "total => { const p = document.querySelector('#review-panel');"
    " const b = p.querySelector('progress');"
    " return p.dataset.status === 'done' || !b ? total : Number(b.value); }"
)


def reviewed(page, url: str, at_least: int) -> dict:
    """The review's state once it has ``at_least`` positions (or is done), read from the API."""
    stop = time.monotonic() + REVIEW_PROGRESS_MS / 1000
    while True:
        state = page.request.get(url).json()
        if state["status"] == "done" or state["done"] >= at_least:
            return state
        assert state["status"] in ("queued", "running"), state
        assert time.monotonic() < stop, f"the review stood at {state['done']} of {state['total']}"
        time.sleep(0.25)


def test_export_import_step_and_play_from_ply_10(
    server: LiveServer, browser, shots: Path, tmp_path: Path
) -> None:
    alice_ctx = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    bob_ctx = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    carol_ctx = browser.new_context(viewport={"width": 390, "height": 844})
    alice, bob, carol = alice_ctx.new_page(), bob_ctx.new_page(), carol_ctx.new_page()

    # Alice and Bob play a whole Bashni game (through the JSON API, with their cookies).
    match_id = play_bashni_win(server, alice, bob)

    # Export from the match page.
    alice.goto(f"{server.url}/matches/{match_id}")
    expect(alice.locator(".banner.result")).to_contain_text("Alice wins")
    with alice.expect_download() as info:
        alice.click("[data-download=record]")
    download = info.value
    assert download.suggested_filename.startswith("tablero-bashni-")
    assert download.suggested_filename.endswith(f"{match_id}.pdn")
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert records.parse(saved.read_text(encoding="utf-8")).moves == tuple(BASHNI_WIN)
    with alice.expect_download() as picture:
        alice.click("[data-download=svg]")
    assert picture.value.suggested_filename.endswith(".svg")
    with alice.expect_download() as raster:
        alice.click("[data-download=png]")
    assert raster.value.suggested_filename == picture.value.suggested_filename.removesuffix(".svg") + ".png"
    png = tmp_path / raster.value.suggested_filename
    raster.value.save_as(png)
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    alice.locator(".record-links").scroll_into_view_if_needed()
    alice.screenshot(path=str(shots / "match-record-links.png"))

    # Carol, in another browser, imports the file and steps through the game.
    carol.goto(server.url + "/records/import")
    carol.set_input_files("input[name=file]", str(saved))
    carol.click("[data-action=import]")
    expect(carol).to_have_url(re.compile(r"/records/[\w-]+$"))
    expect(carol.locator("h1")).to_contain_text("Alice")
    expect(carol.locator(".analysis-steps .where")).to_contain_text("29 of 29")
    carol.click("[data-step=first]")
    for ply in range(1, 11):
        carol.click("[data-step=next]")
        expect(carol.locator(".analysis-steps .where")).to_have_attribute("data-at", str(ply))
    ply10 = carol.locator("#analysis-board").get_attribute("data-position")
    assert ply10 == records.parse(" ".join(BASHNI_WIN), "bashni").positions[10]
    carol.screenshot(path=str(shots / "imported-ply10.png"))
    assert carol.evaluate("document.documentElement.scrollWidth") <= 390

    # ... and starts a game against the computer from there.
    carol.fill("#play input[name=name]", "Carol")
    carol.select_option("#play select[name=opponent]", "easy")
    carol.click("[data-action=play-from-here]")
    expect(carol.locator(".panel")).to_contain_text("Computer (")
    expect(carol.locator(".panel")).to_contain_text("Carol")
    new_match = carol.url.rsplit("/", 1)[1]
    state = carol.request.get(f"{server.url}/api/matches/{new_match}").json()
    assert state["position"] == ply10 and state["ply"] == 0 and state["to_move"] == "w"
    assert (
        carol.request.get(f"{server.url}/api/matches/{new_match}/record")
        .text()
        .count(f'[Position "{ply10}"]')
        == 1
    )
    expect(carol.locator(".banner.mine")).to_have_count(1, timeout=30000)  # Carol (White) to move at ply 10
    carol.screenshot(path=str(shots / "from-ply10.png"))


def play_bashni_win(server: LiveServer, alice, bob) -> str:  # type: ignore[no-untyped-def]
    created = alice.request.post(
        server.url + "/api/matches", data={"game": "bashni", "name": "Alice", "side": "first"}
    )
    match_id = created.json()["id"]
    assert bob.request.post(server.url + f"/api/matches/{match_id}/join", data={"name": "Bob"}).ok
    for ply, move in enumerate(BASHNI_WIN):
        player = alice if ply % 2 == 0 else bob
        answer = player.request.post(
            server.url + f"/api/matches/{match_id}/moves", data={"move": move, "ply": ply}
        )
        assert answer.ok, answer.text()
    return match_id


def test_the_review_shows_its_progress_in_the_first_viewport(
    server: LiveServer, browser, shots: Path
) -> None:
    alice_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    bob_ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
    match_id = play_bashni_win(server, alice, bob)
    total = len(BASHNI_WIN) + 1

    alice.goto(f"{server.url}/matches/{match_id}/analysis")
    alice.click("[data-action=review]")
    line = alice.locator("#review-panel .progress-line")
    expect(line).to_be_visible()
    bar = line.locator("progress")
    assert bar.get_attribute("max") == str(total)
    box = bar.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800  # seen without scrolling
    # The panel polls: the count of reviewed positions grows while the page is left alone.
    # The test waits on what it means, the server's review reaching its first position
    # (reviews make progress on a busy machine: issue 27), then gives the page a few polls.
    review_url = f"{server.url}/api/matches/{match_id}/review"
    reviewed(alice, review_url, at_least=1)
    alice.wait_for_function(SHOWN, arg=1, timeout=PAGE_POLLS)
    first = alice.evaluate(SHOWN_COUNT, total)
    alice.screenshot(path=str(shots / "review-running.png"))
    reviewed(alice, review_url, at_least=min(first + 1, total))
    alice.wait_for_function(SHOWN, arg=min(first + 1, total), timeout=PAGE_POLLS)
    assert alice.evaluate("document.documentElement.scrollWidth") <= 1280
