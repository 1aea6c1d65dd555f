"""A real-time game where one side lets the clock run out: both players and a spectator
see the flag within a second of the deadline; then "My games" lists the right order.

The control is the shortest custom one the site offers, 0:15+0 (15 minutes would be a
long test): chosen on the form like any other.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.app.helpers import MORRIS_WIN
from tests.e2e.play import join_match, open_options, play_line
from tests.live import LiveServer

pytestmark = pytest.mark.browser


def create_timed(
    page: Page, base: str, name: str, choice: str, minutes: str = "15", side: str = "first"
) -> str:
    page.goto(base + "/")
    page.select_option("select[name=game]", "morris")
    page.fill("form.stack input[name=name]", name)
    page.check(f"input[name=side][value={side}]")
    open_options(page)
    page.select_option("#friend select[name=time_control]", choice)
    if choice == "rt:custom":
        page.fill("#friend input[name=initial_minutes]", minutes)
        page.fill("#friend input[name=increment_seconds]", "0")
    page.click("form.stack button[type=submit]")
    expect(page.locator("#invite-url")).to_be_visible()
    return page.input_value("#invite-url")


def test_the_flag_reaches_everyone_within_a_second(server: LiveServer, browser, shots: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    contexts.append(browser.new_context(viewport={"width": 390, "height": 844}))
    alice, bob, carol = (ctx.new_page() for ctx in contexts)

    invite = create_timed(alice, server.url, "Alice", "rt:custom", minutes="0.25")
    match_id = invite.rstrip("/").rsplit("/", 1)[-1]
    join_match(bob, invite, "Bob")
    carol.goto(invite)
    for page in (alice, bob, carol):
        expect(page.locator(".side-w .game-clock")).to_have_text("0:15")
        expect(page.locator(".grace-note")).to_be_visible()
    play_line("morris", MORRIS_WIN[:2], (alice, bob), [carol])  # both first moves, in grace

    state = httpx.get(f"{server.url}/api/matches/{match_id}").json()
    assert state["clock_running"] == "w" and not state["grace"]
    deadline = datetime.fromisoformat(state["deadline"])
    clock = alice.locator(".side-w .game-clock")
    expect(clock).to_have_attribute("data-running", "true")
    first = clock.inner_text()
    time.sleep(1.2)
    assert clock.inner_text() != first  # it ticks between server updates
    expect(clock).to_have_class("game-clock running low", timeout=8000)  # under 10 s: warned
    alice.screenshot(path=str(shots / "low-time.png"))
    carol.screenshot(path=str(shots / "spectator-low-time.png"))

    # Each page notes the moment the result appears itself (the same machine's clock as the
    # server's deadline): the test's own round trips to three pages in turn, tens of
    # milliseconds each on a loaded machine, are not counted as the flag's delay.
    pages = {"alice": alice, "bob": bob, "carol": carol}
    for page in pages.values():
        page.evaluate(
            """() => {
                window.__flagAt = null;
                const check = () => {
                    const shown = document.querySelector('.banner.result');
                    if (window.__flagAt === null && shown) window.__flagAt = Date.now();
                };
                new MutationObserver(check).observe(document.body, {childList: true, subtree: true});
                check();
            }"""
        )
    seen: dict[str, datetime] = {}
    for who, page in pages.items():
        page.wait_for_function("() => window.__flagAt !== null", timeout=20_000)
        seen[who] = datetime.fromtimestamp(page.evaluate("window.__flagAt") / 1000, UTC)
    for who, at in seen.items():
        print(f"\n{who} saw the flag {(at - deadline).total_seconds() * 1000:.0f} ms after the deadline")
        assert (at - deadline).total_seconds() < 1.0
    for page in pages.values():
        expect(page.locator(".banner.result")).to_contain_text("Bob wins")
        expect(page.locator(".banner.result")).to_contain_text("the time ran out")
        expect(page.locator(".side-w .game-clock")).to_have_text("0:00.0")
    alice.screenshot(path=str(shots / "flag.png"))
    carol.screenshot(path=str(shots / "spectator-flag.png"))

    # My games: Alice's move first, then her waiting seek, then the finished game; the
    # header counts the one where it is her move. The form remembers her last choice.
    alice.goto(server.url + "/")
    assert alice.locator("#friend select[name=time_control]").input_value() == "rt:custom"
    waiting = create_timed(alice, server.url, "Alice", "").rsplit("/", 1)[-1]
    mine = create_timed(bob, server.url, "Bob", "cd:3", side="second")
    join_match(alice, mine, "Alice")
    alice.goto(server.url + "/games")
    order = alice.locator(".my-games li").evaluate_all("items => items.map(i => i.dataset.match)")
    assert order == [mine.rsplit("/", 1)[-1], waiting, match_id]
    expect(alice.locator(".my-games li").first).to_contain_text("Your move")
    expect(alice.locator(".my-games-link .nav-count")).to_have_text("1")
    alice.screenshot(path=str(shots / "my-games.png"), full_page=True)
    alice.set_viewport_size({"width": 390, "height": 844})
    alice.goto(server.url + "/")
    alice.locator("#friend select[name=time_control]").scroll_into_view_if_needed()
    alice.screenshot(path=str(shots / "form-390.png"))
    assert alice.evaluate("document.documentElement.scrollWidth") <= 390
    for ctx in contexts:
        ctx.close()


def seconds_shown(page: Page, side: str) -> int:
    minutes, seconds = page.locator(f".side-{side} .game-clock").inner_text().split(":")
    return int(minutes) * 60 + int(seconds)


def test_a_view_that_comes_late_shows_the_clock_as_it_is_now(server: LiveServer, browser) -> None:
    """A view is rendered once per version and sent again to a stream that connects later
    (a reconnection catching up): its clock figure was measured when it was rendered, and
    the page counts on from that moment (data-at, on the server's time), not from the
    view's arrival. Dave's stream is held back while White moves and let through four
    seconds later; his page must then show Black's clock as Carol's, who got the view at
    once, shows it."""
    alice, bob, carol, dave = (browser.new_context().new_page() for _ in range(4))
    invite = create_timed(alice, server.url, "Alice", "rt:custom", minutes="5")
    join_match(bob, invite, "Bob")
    carol.goto(invite)
    play_line("morris", MORRIS_WIN[:2], (alice, bob), [carol])  # both first moves: the clocks run

    held: list[Any] = []
    dave.route("**/events?*", lambda route: held.append(route))  # his stream waits here
    dave.goto(invite)
    expect(dave.locator("#live")).to_have_attribute("data-ply", "2")
    dave.wait_for_timeout(300)  # the page has asked for its stream by now…
    assert len(held) == 1  # …and it is held

    play_line("morris", MORRIS_WIN[:3], (alice, bob), [carol], start_at=2)  # White's move
    expect(carol.locator(".side-b .game-clock")).to_have_attribute("data-running", "true")
    time.sleep(4)
    held[0].continue_()  # the stream catches up: the view Carol's stream was sent
    expect(dave.locator("#live")).to_have_attribute("data-ply", "3")
    expect(dave.locator(".side-b .game-clock")).to_have_attribute("data-running", "true")
    dave.wait_for_timeout(300)  # a few ticks of clocks.js
    carol_sees, dave_sees = seconds_shown(carol, "b"), seconds_shown(dave, "b")
    assert carol_sees < 5 * 60 - 3  # the clock has run for the four seconds
    assert abs(dave_sees - carol_sees) <= 1, (carol_sees, dave_sees)
