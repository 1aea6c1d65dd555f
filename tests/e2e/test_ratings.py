"""Ratings in the browser (issue 31): two accounts play a rated game made with the
lobby's toggle, see each other's ratings on the match page and the change at the end,
then the profile's history chart, the lobby and the boards at both sizes, in both
languages, with no sideways scroll and axe clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.looks import look
from tests.e2e.play import join_match, open_options, play_line, wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery staple"


def sign_up(page: Page, base: str, username: str) -> None:
    page.goto(base + "/signup")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("form[action='/signup'] button[type=submit]").click()
    expect(page.locator("header .account-name")).to_have_text(username)  # the codes page, signed in


def test_a_rated_game_from_the_toggle_to_the_profile_chart(
    server: LiveServer, browser: Browser, shots: Path
) -> None:
    base = server.url
    ana_context = browser.new_context(viewport={"width": 1280, "height": 800})
    ben_context = browser.new_context(viewport={"width": 390, "height": 844})
    ben_context.add_cookies([{"name": "lang", "value": "es", "url": base}])
    ana, ben = ana_context.new_page(), ben_context.new_page()
    sign_up(ana, base, "ana")
    sign_up(ben, base, "ben")

    # The toggle: offered to an account, with a time control.
    ana.goto(base + "/")
    ana.select_option("#friend select[name=game]", "morris")
    open_options(ana)
    ana.select_option("#friend select[name=time_control]", "rt:300:3")
    ana.check("#friend input[name=rated]")
    ana.check("#friend input[name=side][value=first]")
    ana.click("#friend button[type=submit]")
    expect(ana.locator("#invite-url")).to_be_visible()
    invite = ana.input_value("#invite-url")
    join_match(ben, invite, "Ben")
    wait_for_ply(ana, 0)

    # Both pages say rated, show both ratings (new: 1500?) and no takeback.
    expect(ana.locator(".rated-mark")).to_have_text("Rated game")
    expect(ben.locator(".rated-mark")).to_have_text("Partida puntuada")
    for page in (ana, ben):
        expect(page.locator("#live .player .rating")).to_have_text(["1500?", "1500?"])
    play_line("morris", ["c5", "a7"], (ana, ben), [])
    expect(ben.locator("button", has_text="Pedir deshacer")).to_have_count(0)  # Ben moved last
    ana.screenshot(path=str(shots / "rated-ana-desktop-en.png"))
    ben.screenshot(path=str(shots / "rated-ben-phone-es.png"))

    # Ben resigns: each side's change appears on both pages without a reload.
    ben.on("dialog", lambda dialog: dialog.accept())
    ben.locator("form[action$='/act'] button", has_text="Abandonar").click()
    for page in (ana, ben):
        expect(page.locator("#live")).to_have_attribute("data-status", "finished")
        changes = page.locator("#live .player .rating-change")
        expect(changes).to_have_count(2)
        texts = changes.all_inner_texts()
        assert any(t.startswith("+") for t in texts) and any(t.startswith("\u2212") for t in texts), texts
    ana.screenshot(path=str(shots / "finished-ana-desktop-en.png"))
    ben.screenshot(path=str(shots / "finished-ben-phone-es.png"))

    # The profile's chart takes the phone's width without spilling over.
    ben.goto(base + "/@/ana")
    chart = ben.locator(".rating-chart svg")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box is not None and 300 <= box["width"] <= 390, box
    expect(ben.locator(".recent-games .rating-delta")).to_contain_text("puntuada +")
    ben.locator(".rating-chart summary").click()
    expect(ben.locator(".rating-history tbody tr")).to_have_count(1)

    cookies = {c["name"]: c["value"] for c in ana_context.cookies() if c["name"] != "lang"}
    for name, path in (
        ("profile", "/@/ana"),
        ("lobby", "/"),
        ("boards", "/leaderboard"),
        ("board", "/leaderboard/morris"),
    ):
        look(browser, base, cookies, name, shots, lambda p, path=path: p.goto(base + path))
    ana_context.close()
    ben_context.close()
