"""Two browsers play a full game of Nine Men's Morris by clicks; a third watches."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.app.helpers import MORRIS_WIN
from tests.e2e.play import create_match, join_match, play_line, wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser


def test_two_friends_play_morris_to_a_win_while_a_spectator_watches(
    server: LiveServer, browser, shots: Path
) -> None:
    alice_ctx, bob_ctx, carol_ctx = (
        browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(3)
    )
    alice, bob, carol = alice_ctx.new_page(), bob_ctx.new_page(), carol_ctx.new_page()

    invite = create_match(alice, server.url, "morris", "Alice")
    expect(alice.locator(".banner")).to_contain_text("Waiting for an opponent")
    join_match(bob, invite, "Bob")
    carol.goto(invite)
    expect(carol.locator("#join")).to_have_count(0)  # both seats taken: a spectator
    wait_for_ply(alice, 0)
    expect(alice.locator(".banner")).to_contain_text("Your move")
    alice.screenshot(path=str(shots / "start.png"), full_page=True)

    play_line("morris", MORRIS_WIN, (alice, bob), [carol], shots=shots)

    for page in (alice, bob, carol):
        expect(page.locator(".banner.result")).to_contain_text("Alice wins")
        expect(page.locator(".banner.result")).to_contain_text("fewer than three pieces")
    final = [page.locator("svg.board").get_attribute("data-position") for page in (alice, bob, carol)]
    assert final[0] == final[1] == final[2] is not None
    alice.screenshot(path=str(shots / "end.png"), full_page=True)
    carol.screenshot(path=str(shots / "spectator-end.png"), full_page=True)
    for ctx in (alice_ctx, bob_ctx, carol_ctx):
        ctx.close()


def test_a_reload_a_crash_and_a_restart_in_the_middle_lose_nothing(server: LiveServer, browser) -> None:
    contexts = [browser.new_context(viewport={"width": 390, "height": 844}) for _ in range(3)]
    alice, bob, carol = (ctx.new_page() for ctx in contexts)
    invite = create_match(alice, server.url, "morris", "Alice")
    join_match(bob, invite, "Bob")
    carol.goto(invite)

    half = len(MORRIS_WIN) // 2
    play_line("morris", MORRIS_WIN[:half], (alice, bob), [carol])
    bob.reload()
    wait_for_ply(bob, half)
    server.stop(kill=True)  # SIGKILL: no chance to flush anything
    server.start()
    # Everyone's event stream reconnects by itself; play simply goes on.
    later = half + len(MORRIS_WIN) // 4
    play_line("morris", MORRIS_WIN[:later], (alice, bob), [carol], start_at=half)
    # A deploy's restart: SIGTERM ends every stream at once (app/draining.py), and the
    # pages reconnect to the server started again.
    server.stop()
    server.start()
    play_line("morris", MORRIS_WIN, (alice, bob), [carol], start_at=later)
    for page in (alice, bob, carol):
        expect(page.locator(".banner.result")).to_contain_text("Alice wins")
    for ctx in contexts:
        ctx.close()
