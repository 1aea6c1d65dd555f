"""Your turning point in the browser (issue 29): the loser finds the link on the finished
match page, solves the position by taps on a phone, and the page stays axe clean and
without sideways scroll at both sizes."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.app.learn.test_turning_point import GAME, INITIAL, PLAYED, results_for
from tests.app.reviewed import store_results
from tests.e2e.test_axe import SIZES, blocking
from tests.live import LiveServer

pytestmark = pytest.mark.browser

NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth"


def test_the_loser_solves_the_turning_point_by_taps(server: LiveServer, browser, shots: Path) -> None:
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    api = page.request  # Alice: the browser's own cookie
    match_id = api.post(
        f"{server.url}/api/matches", data={"game": "morris", "name": "Alice", "side": "first"}
    ).json()["id"]
    with httpx.Client(base_url=server.url) as bob:
        assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
        for ply, move in enumerate(PLAYED):
            body = {"move": move, "ply": ply}
            if ply % 2 == 0:
                assert api.post(f"{server.url}/api/matches/{match_id}/moves", data=body).ok
            else:
                assert bob.post(f"/api/matches/{match_id}/moves", json=body).status_code == 200
    assert api.post(f"{server.url}/api/matches/{match_id}/resign").ok
    results = results_for(PLAYED, {4: (22.0, False)})
    store_results(server.database_url, "morris", INITIAL, PLAYED, results)
    best = results[4]["best"]  # type: ignore[index]

    page.goto(f"{server.url}/matches/{match_id}")
    page.locator('a[data-link="turning-point"]').click()
    expect(page.locator("h1")).to_have_text("Your turning point")
    page.screenshot(path=str(shots / "phone-start.png"))
    state = GAME.parse_position(page.locator("#live svg.board").get_attribute("data-position") or "")
    for point in GAME.clicks(GAME.parse_move(state, PLAYED[4])):
        page.locator(f'#live svg.board [data-point="{point}"]').click()
    expect(page.locator(".feedback.wrong")).to_contain_text("That is the move you played.")
    for point in GAME.clicks(GAME.parse_move(state, best)):
        page.locator(f'#live svg.board [data-point="{point}"]').click()
    expect(page.locator(".feedback.good")).to_contain_text("Solved!")
    page.screenshot(path=str(shots / "phone-solved.png"))
    problems = []
    for size in ("phone", "desktop"):
        page.set_viewport_size(SIZES[size])
        page.goto(f"{server.url}/matches/{match_id}/turning-point")
        assert page.evaluate(NO_SIDEWAYS), f"sideways scroll at {size}"
        problems += blocking(Axe().run(page).response)
    page.screenshot(path=str(shots / "desktop-start.png"))
    context.close()
    assert not problems, problems
