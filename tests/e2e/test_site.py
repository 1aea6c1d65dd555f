"""Every page but the match page, as a phone and a desktop show it, in English and Spanish.

No page scrolls sideways; the home page's three ways to start are in the first
viewport; /docs and /redoc load their assets from the site itself under its CSP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.app.conftest import database_url
from tests.e2e.conftest import OUTPUT
from tests.live import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
LONG_NAME = "Maximiliano Fernández-Villaverde"  # 32 characters, the most a name may have


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with something on every page: open, played and finished public matches, runs."""
    url = database_url(tmp_path_factory.mktemp("site"))
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal"})
    live.start()
    with httpx.Client(base_url=live.url) as ann, httpx.Client(base_url=live.url) as ben:

        def public_match(game: str) -> str:
            body = {"game": game, "name": LONG_NAME, "side": "first", "public": True}
            return ann.post("/api/matches", json=body).json()["id"]

        public_match("bilsang")  # stays open
        playing = public_match("bashni")
        ben.post(f"/api/matches/{playing}/join", json={"name": "Beatriz de la Concepción Ruiz"})
        ann.post(f"/api/matches/{playing}/moves", json={"move": "c3-d4", "ply": 0})
        finished = public_match("morris")
        ben.post(f"/api/matches/{finished}/join", json={"name": "Ben"})
        ann.post(f"/api/matches/{finished}/resign")
        runs = []
        for name in (LONG_NAME, "Quique", "Ana"):
            run = ann.post("/api/ladder/runs", json={"name": name}).json()
            ann.post(f"/api/matches/{run['match_id']}/resign")
            runs.append(run["id"])
    yield {"url": live.url, "run": runs[0]}
    live.stop()


def paths(site: dict[str, Any]) -> dict[str, str]:
    return {
        "home": "/",
        "ladder": "/ladder",
        "leaderboard": "/ladder/leaderboard",
        "run": f"/ladder/runs/{site['run']}",
        "rules-bashni": "/rules/bashni",
        "rules-morris": "/rules/morris",
        "rules-bobail": "/rules/bobail",
        "rules-bilsang": "/rules/bilsang",
        "error-404": "/no/such/page",
        "error-match": "/matches/nosuchmatch",
        "docs": "/docs",
    }


def new_context(browser: Browser, site: dict[str, Any], size: str, lang: str) -> BrowserContext:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "lang", "value": lang, "url": site["url"]}])
    return context


def sideways_overflow(page: Page) -> int:
    """How many CSS pixels the page is wider than the window (0: no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_no_page_scrolls_sideways(browser: Browser, site: dict[str, Any], size: str, lang: str) -> None:
    context = new_context(browser, site, size, lang)
    page = context.new_page()
    folder = OUTPUT / "site" / f"{size}-{lang}"
    folder.mkdir(parents=True, exist_ok=True)
    wide = {}
    for label, path in paths(site).items():
        page.goto(site["url"] + path)
        if label == "docs":
            expect(page.locator(".opblock").first).to_be_visible(timeout=15000)
        if label != "docs":  # Swagger UI speaks English only
            assert page.locator("html").get_attribute("lang") == lang
        page.screenshot(path=str(folder / f"{label}.png"), full_page=True)
        if (extra := sideways_overflow(page)) > 0:
            wide[label] = extra
    context.close()
    assert not wide, f"pages wider than the {size} window, by px: {wide}"


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_three_ways_to_start_are_in_the_first_viewport(
    browser: Browser, site: dict[str, Any], size: str, lang: str
) -> None:
    context = new_context(browser, site, size, lang)
    page = context.new_page()
    page.goto(site["url"] + "/")
    height = SIZES[size][1]
    for choice in ("#friend", "#computer", "#ladder"):
        button = page.locator(f"{choice} button[type=submit]")
        box = button.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (choice, box)
        heading = page.locator(f"{choice} h2").bounding_box()
        assert heading is not None and heading["y"] >= 0
    context.close()


def test_the_form_shows_only_the_options_that_apply(browser: Browser, site: dict[str, Any]) -> None:
    context = new_context(browser, site, "phone", "en")
    page = context.new_page()
    page.goto(site["url"] + "/")
    form = page.locator("#friend")
    form.locator("details.more-options summary").click()
    # The rules' select and its hint (issue 34) show and hide together.
    custom, rules = form.locator(".time-control-custom"), form.locator("label.bilsang-rules")
    hint = form.locator("p.bilsang-rules")
    form.locator("select[name=time_control]").select_option("")
    form.locator("select[name=game]").select_option("morris")
    expect(custom).to_be_hidden()
    expect(rules).to_be_hidden()
    expect(hint).to_be_hidden()
    form.locator("select[name=time_control]").select_option("rt:custom")
    expect(custom).to_be_visible()
    form.locator("select[name=game]").select_option("bilsang")
    expect(rules).to_be_visible()
    expect(hint).to_be_visible()
    context.close()


def test_play_the_computer_from_the_home_page(browser: Browser, site: dict[str, Any]) -> None:
    context = new_context(browser, site, "phone", "es")
    page = context.new_page()
    page.goto(site["url"] + "/")
    form = page.locator("#computer form")
    form.locator("select[name=game]").select_option("bobail")
    form.locator("input[name=name]").fill("Sola")
    form.locator("select[name=opponent]").select_option("hard")
    form.locator("button[type=submit]").click()
    # The computer's seat is named by its strength, in Spanish, in the title too.
    expect(page.locator(".player-top")).to_contain_text("Computadora (difícil)")
    assert "Computadora (difícil)" in page.title()
    context.close()


def test_only_public_matches_are_listed(browser: Browser, site: dict[str, Any]) -> None:
    with httpx.Client(base_url=site["url"]) as cid, httpx.Client(base_url=site["url"]) as dee:
        hidden = cid.post("/api/matches", json={"game": "morris", "name": "Private Cid"}).json()["id"]
        dee.post(f"/api/matches/{hidden}/join", json={"name": "Dee"})
    context = new_context(browser, site, "desktop", "en")
    page = context.new_page()
    page.goto(site["url"] + "/")
    expect(page.locator(".lists")).to_contain_text("Beatriz de la Concepción Ruiz")
    expect(page.locator(".lists")).not_to_contain_text("Private Cid")
    context.close()


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_api_docs_render_from_the_site_itself(browser: Browser, site: dict[str, Any], path: str) -> None:
    context = new_context(browser, site, "desktop", "en")
    page = context.new_page()
    foreign: list[str] = []
    refused: list[str] = []
    own = ("data:", "blob:", site["url"])
    # Anything from elsewhere must be stopped by the CSP before it leaves the browser.
    page.on("requestfinished", lambda r: None if r.url.startswith(own) else foreign.append(r.url))
    page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(site["url"] + path)
    if path == "/docs":
        # Swagger UI lists the operations of the OpenAPI document.
        expect(page.locator(".opblock-summary-path", has_text="/api/matches/{match_id}/moves")).to_be_visible(
            timeout=15000
        )
    else:
        expect(page.get_by_text("/api/matches/{match_id}/moves").first).to_be_attached(timeout=15000)
        expect(page.locator("h1").first).to_contain_text("Tablero")
    page.screenshot(path=str(OUTPUT / "site" / f"api{path.replace('/', '-')}.png"))
    assert not foreign, foreign
    # ReDoc hard-wires its maker's logo from their CDN (and hides it when it fails): the
    # CSP refusing that is expected; nothing else may be refused.
    assert [m for m in refused if "cdn.redoc.ly/redoc/logo-mini.svg" not in m] == [], refused
    context.close()
