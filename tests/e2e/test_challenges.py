"""Challenges in the browser (issue 32, item 2): Ana (English, desktop) challenges Ben
from his profile; Ben (Spanish, phone) sees the count in his header on whatever page he
is, accepts on /challenges and is taken to the match; Ana, waiting on /challenges, is
sent there too. The challenges page at both sizes in both languages, axe clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.looks import look
from tests.e2e.test_ratings import sign_up
from tests.live import LiveServer

pytestmark = pytest.mark.browser


def open_form(page: Page, url: str) -> None:
    page.goto(url)
    page.locator(".challenge-form summary").click()


def test_a_challenge_from_a_profile_to_a_match(server: LiveServer, browser: Browser, shots: Path) -> None:
    base = server.url
    ana_context = browser.new_context(viewport={"width": 1280, "height": 800})
    ben_context = browser.new_context(viewport={"width": 390, "height": 844})
    ben_context.add_cookies([{"name": "lang", "value": "es", "url": base}])
    ana, ben = ana_context.new_page(), ben_context.new_page()
    sign_up(ana, base, "ana")
    sign_up(ben, base, "ben")
    ben.goto(base + "/rules/bobail")  # any page: the header tells him

    ana.goto(base + "/@/ben")
    ana.locator(".challenge-form summary").click()
    ana.select_option(".challenge-form select[name=game]", "bobail")
    ana.select_option(".challenge-form select[name=time_control]", "cd:3")
    ana.check(".challenge-form input[name=side][value=first]")
    ana.click(".challenge-form button[type=submit]")
    expect(ana.locator(".challenges.outgoing li")).to_contain_text("ben")

    badge = ben.locator("header .challenge-badge a")
    expect(badge).to_contain_text("Desafíos", timeout=15_000)  # polled every 10 s
    expect(badge.locator(".nav-count")).to_have_text("1")
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    ben.screenshot(path=str(shots / "badge-phone-es.png"))
    badge.click()
    incoming = ben.locator(".challenges.incoming li")
    expect(incoming).to_contain_text("ana")
    expect(incoming).to_contain_text("Bobail")
    ben.locator(".challenges.incoming summary").click()  # the reasons to decline, one a line
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    ben.screenshot(path=str(shots / "incoming-phone-es.png"), full_page=True)
    incoming.get_by_role("button", name="Aceptar").click()
    ben.wait_for_url("**/matches/*")
    # The challenges page's poll (every 3 s) sends her there. Not bound to 10 s: CI failed
    # it once at 10 s with four test processes on two cores (a poll, then a page load).
    ana.wait_for_url("**/matches/*", timeout=30_000)
    assert ana.url == ben.url
    expect(ana.locator("#live")).to_have_attribute("data-status", "playing")

    cookies = {c["name"]: c["value"] for c in ana_context.cookies() if c["name"] != "lang"}
    look(browser, base, cookies, "challenges", shots, lambda p: p.goto(base + "/challenges"))
    look(browser, base, cookies, "profile-challenge", shots, lambda p: open_form(p, base + "/@/ben"))
    ana_context.close()
    ben_context.close()
