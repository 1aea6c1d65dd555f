"""A ladder run in the browser: beat opponent 1, see the score, find the run on the board."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

import games
from tests.app.conftest import database_url
from tests.e2e.play import wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: White's moves that beat the test opponent (it always plays the first legal move in
#: sorted order, see app/computer.py) in 29 plies.
WHITE = (
    "e3-d4 d4-c5 a3:c5 c5:a7 a7:c5 d2-e3 c5:a7 e3-d4 a7:c5 c5:e7:g5 g3:e5 e5-d6 c3:a5 d6:f8:h6 h6:f8"
).split()


@pytest.fixture
def ladder_server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    yield live
    live.stop()


def test_beat_opponent_one_and_reach_the_leaderboard(ladder_server: LiveServer, browser, shots: Path) -> None:
    bashni = games.get("bashni")
    context = browser.new_context(viewport={"width": 1200, "height": 950})
    page = context.new_page()
    page.goto(ladder_server.url + "/ladder")
    page.fill("input[name=name]", "Ladderer")
    page.click("text=Start a run")
    expect(page.locator(".run-header")).to_contain_text("opponent 1 of 18")
    expect(page.locator(".clock[data-running=true]")).to_have_count(1)
    page.screenshot(path=str(shots / "start.png"), full_page=True)

    state = bashni.initial()
    for i, text in enumerate(WHITE):
        wait_for_ply(page, 2 * i, timeout=15000)
        state = bashni.parse_position(page.locator("svg.board").get_attribute("data-position"))
        move = bashni.parse_move(state, text)
        for point in bashni.clicks(move):
            page.locator(f'#live [data-point="{point}"].target').click()
        if i == 3:
            page.screenshot(path=str(shots / "mid.png"), full_page=True)

    expect(page.locator(".banner.result")).to_contain_text("Ladderer wins", timeout=15000)
    next_link = page.locator(".run-next .next a")
    expect(next_link).to_contain_text("opponent 2")
    score = int(page.locator(".run-score").inner_text())
    assert 10000 < score <= 19999
    page.screenshot(path=str(shots / "won.png"), full_page=True)

    next_link.click()
    expect(page.locator(".run-header")).to_contain_text("opponent 2 of 18")
    # End the run by resigning the second game; the run then appears on the leaderboard.
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button[data-action=resign]")
    expect(page.locator(".run-next")).to_contain_text("The run is over")
    page.click("text=See the leaderboard")
    row = page.locator("table.leaderboard tr.mine")
    expect(row).to_contain_text("Ladderer")
    expect(row).to_contain_text(str(score))
    page.screenshot(path=str(shots / "leaderboard.png"), full_page=True)
    context.close()
