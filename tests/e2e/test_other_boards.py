"""Bashni, Bobail and Bilsang played to the end by clicks in two browsers, watched by a third."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, bilsang_quiet_game
from tests.e2e.play import create_match, join_match, play_line, wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

GAMES = {
    "bashni": (BASHNI_WIN, "Alice wins", "no legal move left"),
    "bobail": (BOBAIL_WIN, "Alice wins", "the Neutron reached a home row"),
    # free pairs: the rules this random line is played by (nobody is blocked)
    "bilsang": (bilsang_quiet_game(), "Draw", "the limit of plies without a removal"),
}
RULES = {"bilsang": "free"}


def cookies_of(context: BrowserContext) -> dict[str, str]:
    return {c["name"]: c["value"] for c in context.cookies()}


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("game", list(GAMES))
def test_a_full_game_by_clicks(server: LiveServer, browser, shots: Path, game: str, viewport: dict) -> None:
    line, banner, reason = GAMES[game]
    contexts = [browser.new_context(viewport=viewport) for _ in range(3)]
    alice, bob, carol = (ctx.new_page() for ctx in contexts)
    invite = create_match(alice, server.url, game, "Alice", rules=RULES.get(game))
    join_match(bob, invite, "Bob")
    carol.goto(invite)
    wait_for_ply(alice, 0)
    alice.screenshot(path=str(shots / "start.png"), full_page=True)

    start_at = 0
    if game == "bilsang" and viewport is DESKTOP:
        # The phone plays all 100 plies by clicks; the desktop the last 20, after the
        # first 80 went through the API (2 minutes of clicks each, the suite's longest).
        start_at = len(line) - 20
        match_id = alice.url.split("/matches/", 1)[1].split("?")[0].split("/")[0]
        players = [httpx.Client(base_url=server.url, cookies=cookies_of(ctx)) for ctx in contexts[:2]]
        for ply, text in enumerate(line[:start_at]):
            moved = players[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
            assert moved.status_code == 200, moved.text
    play_line(game, line, (alice, bob), [carol], shots=shots, start_at=start_at)

    for page in (alice, bob, carol):
        expect(page.locator(".banner.result")).to_contain_text(banner)
        expect(page.locator(".banner.result")).to_contain_text(reason)
    positions = {page.locator("svg.board").get_attribute("data-position") for page in (alice, bob, carol)}
    assert len(positions) == 1
    alice.screenshot(path=str(shots / "end.png"), full_page=True)
    carol.screenshot(path=str(shots / "spectator.png"), full_page=True)
    for ctx in contexts:
        ctx.close()
