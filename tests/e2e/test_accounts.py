"""Accounts in Chromium (issue 30): passkeys through the DevTools protocol's virtual
WebAuthn authenticator, an anonymous game claimed mid-game, the account pages' looks.

The site is opened as http://localhost:PORT (not 127.0.0.1): a passkey's RP id is a
host name, and localhost is a secure context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import BrowserContext, Page, expect

from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.e2e.play import create_match, join_match, play_line, wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """The site as http://localhost:PORT: PUBLIC_URL names the passkeys' RP, and only its
    host is served (a passkey's RP id must be a host name, never 127.0.0.1)."""
    url = database_url(tmp_path)
    live = LiveServer(url)
    live.env = {"PUBLIC_URL": live.url.replace("127.0.0.1", "localhost")}
    live.start()
    yield live
    live.stop()


SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def local(server: LiveServer) -> str:
    return server.url.replace("127.0.0.1", "localhost")


def authenticator(context: BrowserContext, page: Page) -> tuple[object, str]:
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    found = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, found["authenticatorId"]


def test_sign_up_with_a_passkey_then_sign_in_with_it_elsewhere(server: LiveServer, browser) -> None:
    base = local(server)
    first = browser.new_context()
    page = first.new_page()
    page.goto(base + "/signup")
    cdp, auth = authenticator(first, page)
    page.fill("input[name=username]", "Ana")
    page.click("[data-passkey=signup]")
    expect(page.locator("[data-codes-panel]")).to_be_visible()
    expect(page.locator("[data-new-codes] li")).to_have_count(10)
    page.goto(base + "/account")
    expect(page.locator("header .account-name")).to_have_text("Ana")
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]  # type: ignore[attr-defined]
    assert len(credentials) == 1 and credentials[0]["isResidentCredential"]
    page.click("form[action='/signout'] button")
    expect(page.locator("header a[href='/signup']")).to_be_visible()

    # Another device whose authenticator holds the same (synced) passkey.
    second = browser.new_context()
    other = second.new_page()
    other.goto(base + "/signin")
    cdp2, auth2 = authenticator(second, other)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": credentials[0]})  # type: ignore[attr-defined]
    other.click("[data-passkey=signin]")
    expect(other).to_have_url(base + "/games")
    expect(other.locator("header .account-name")).to_have_text("Ana")
    assert other.context.request.get(base + "/api/account").json()["username"] == "Ana"
    # Closing the account is confirmed with the passkey (this account has no password).
    other.goto(base + "/account")
    expect(other.locator("form[action='/account/close']")).to_have_count(0)
    other.click("[data-passkey=close]")
    expect(other).to_have_url(base + "/")
    assert other.context.request.get(base + "/api/users/Ana").status == 404
    first.close()
    second.close()


def test_sign_up_in_the_middle_of_a_game_and_finish_it_without_a_reload(
    server: LiveServer, browser, shots: Path
) -> None:
    base = local(server)
    ana_ctx, bob_ctx = browser.new_context(), browser.new_context()
    # Every event stream Ana's pages open, to see which are still open.
    ana_ctx.add_init_script(
        "(() => { const Native = window.EventSource; window.streams = [];"
        " window.EventSource = class extends Native {"
        " constructor(...args) { super(...args); window.streams.push(this); } }; })()"
    )
    ana, bob = ana_ctx.new_page(), bob_ctx.new_page()
    invite = create_match(ana, base, "morris", "Ana")
    join_match(bob, invite, "Bob")
    wait_for_ply(ana, 0)
    half = 6
    play_line("morris", MORRIS_WIN[:half], (ana, bob), [])
    ana.evaluate("window.stillTheSamePage = true")
    # Sign up in another tab of the same browser, as the header's link opens it.
    tab = ana_ctx.new_page()
    tab.goto(base + "/signup")
    tab.fill("input[name=username]", "ana")
    tab.fill("input[name=password]", "correct horse battery")
    tab.click("button[type=submit]:has-text('password')")
    expect(tab.locator("ol.codes li")).to_have_count(10)
    answer = tab.request.put(
        base + "/api/account/preferences", data={"dark": "dark", "large_board": True, "flip": True}
    )
    assert answer.ok, answer.text()
    tab.close()
    # The game's own page heard of it from the other tab: its header names the account
    # (before, it said "Sign up" until a reload), and the page is still the same one.
    expect(ana.locator("header .account-name")).to_have_text("ana")
    expect(ana.locator("header a[href='/signup']")).to_have_count(0)
    # Its event stream was opened again as the account: the one opened as the guest would
    # have sent Ana views rendered for a browser without her seat (no targets), which
    # failed this game at its next move. The old stream is closed, not left open beside it.
    ana.wait_for_function(
        """() => window.streams.length === 2 && window.streams[0].readyState === EventSource.CLOSED
        && window.streams[1].readyState !== EventSource.CLOSED"""
    )
    play_line("morris", MORRIS_WIN, (ana, bob), [], start_at=half)
    expect(ana.locator("#live")).to_have_attribute("data-status", "finished")
    assert ana.evaluate("window.stillTheSamePage") is True
    ana.screenshot(path=str(shots / "finished.png"))

    # On another device, signed in: the game is on the profile and in My games.
    phone_ctx = browser.new_context(viewport=SIZES["phone"])
    phone = phone_ctx.new_page()
    phone.goto(base + "/signin")
    phone.fill("form:has(input[name=password]) input[name=username]", "ana")
    phone.fill("input[name=password]", "correct horse battery")
    phone.click("form:has(input[name=password]) button[type=submit]")
    expect(phone).to_have_url(base + "/games")
    match_id = invite.rstrip("/").rsplit("/", 1)[-1]
    expect(phone.locator(f"a[href*='{match_id}']").first).to_be_visible()
    phone.screenshot(path=str(shots / "my-games-phone.png"), full_page=True)
    # The account's preferences came with it to this device.
    expect(phone.locator("html")).to_have_attribute("data-theme", "dark")
    assert phone.evaluate("localStorage.getItem('tablero-large-board')") == "1"
    # ... and so did "board flip": a match never flipped on this device shows it turned.
    phone.goto(base + f"/matches/{match_id}")
    expect(phone.locator(".match-page")).to_have_class(re.compile(r"\bflipped\b"))
    phone.goto(base + "/@/ana")
    expect(phone.locator(".profile-games tr:has-text('Morris') td").nth(1)).to_have_text("1")
    expect(phone.locator(".profile-games tr:has-text('Morris') td").nth(2)).to_have_text("1")
    expect(phone.locator(f".recent-games a[href='/matches/{match_id}']")).to_be_visible()
    for ctx in (ana_ctx, bob_ctx, phone_ctx):
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_account_pages_look_right(server: LiveServer, browser, shots: Path, size: str, lang: str) -> None:
    base = local(server)
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies([{"name": "lang", "value": lang, "url": base}])
    page = context.new_page()
    axe = Axe()
    found = {}
    pages = ["/signup", "/signin", "/account", "/@/ana", "/ladder/leaderboard?accounts=true", "/"]
    for n, path in enumerate(pages):
        if path == "/account":
            page.goto(base + "/signup")
            page.fill("input[name=username]", "ana")
            page.fill("input[name=password]", "correct horse battery")
            page.locator("form[action='/signup'] button[type=submit]").click()
            page.screenshot(path=str(shots / f"codes-{size}-{lang}.png"), full_page=True)
        page.goto(base + path)
        page.wait_for_load_state("domcontentloaded")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= SIZES[size]["width"], f"{path} scrolls sideways ({width}px)"
        page.screenshot(path=str(shots / f"{n}-{size}-{lang}.png"), full_page=True)
        problems = [
            f"{v['id']} ({v['impact']}): {v['help']} {[n['target'] for n in v['nodes'][:3]]}"
            for v in axe.run(page).response["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if problems:
            found[path] = problems
    context.close()
    assert not found, found
