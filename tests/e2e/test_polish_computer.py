"""The refusal of one game too many against the computer, in the browser: its list of
games, each with a resign button that works (issue 34, item 4)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from app.fairness import MAX_COMPUTER_GAMES
from tests.app.conftest import database_url
from tests.e2e.looks import look
from tests.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture
def full(tmp_path: Path) -> Iterator[tuple[LiveServer, dict[str, str], list[str]]]:
    url = database_url(tmp_path)
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    with httpx.Client(base_url=live.url, timeout=30) as player:
        made = [
            player.post(
                "/api/matches",
                json={"game": game, "name": "Ana", "side": "first", "opponent": {"level": level}},
            ).json()["id"]
            for game in ("morris", "bobail")
            for level in (1, 2, 3, 4, 1)
        ][:MAX_COMPUTER_GAMES]
        yield live, dict(player.cookies), made
    live.stop()


def refused_page(page: Page, base: str) -> None:
    page.goto(base + "/")
    # The lobby's computer form, posted as a person would (a sixth... eleventh game).
    with page.expect_navigation():
        page.evaluate(
            """() => { const f = document.createElement('form'); f.method = 'post'; f.action = '/matches';
              for (const [k, v] of [['game', 'morris'], ['name', 'Ana'], ['opponent', 'easy']]) {
                const i = document.createElement('input');
                i.type = 'hidden'; i.name = k; i.value = v; f.append(i); }
              document.body.append(f); f.submit(); }"""
        )


def test_the_refusal_lists_the_games_and_resigns_one(full, browser, shots: Path) -> None:
    live, cookies, made = full
    assert len(made) == MAX_COMPUTER_GAMES
    look(browser, live.url, cookies, "computer-refusal", shots, lambda page: refused_page(page, live.url))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": k, "value": v, "url": live.url} for k, v in cookies.items()])
    page = context.new_page()
    refused_page(page, live.url)
    items = page.locator(".running-games li")
    assert items.count() == MAX_COMPUTER_GAMES
    button = items.first.get_by_role("button", name="Resign")
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44
    with page.expect_navigation():
        button.click()
    assert "/matches/" in page.url
    assert page.locator("#live").inner_text().lower().count("resign") >= 1
    refused_page(page, live.url)
    assert "/matches/" in page.url and page.locator(".running-games").count() == 0  # room again
    context.close()
