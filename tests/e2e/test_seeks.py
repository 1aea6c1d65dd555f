"""Two browsers find each other through "Play anyone" on the home page (issue 32, item 1),
at desktop and phone sizes, in English and Spanish; the home page with an open seek is axe
clean and photographed."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.e2e.test_axe import blocking
from tests.live import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
WAITING = {"en": "Waiting for an opponent", "es": "Esperando a un rival"}
PLAY = {"en": "Play", "es": "Jugar"}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_two_browsers_pair_through_a_seek(
    server: LiveServer, browser, size: str, lang: str, shots: Path
) -> None:
    contexts = []
    pages = []
    for _ in range(2):
        context = browser.new_context(viewport=SIZES[size])
        context.add_cookies([{"name": "lang", "value": lang, "url": server.url}])
        contexts.append(context)
        pages.append(context.new_page())
    ana, bo = pages
    ana.goto(server.url + "/")
    ana.locator("#anyone [name=name]").fill("Ana")
    ana.locator("#anyone button[type=submit]").click()
    ana.locator("[data-seek-status]").get_by_text(WAITING[lang]).wait_for()

    bo.goto(server.url + "/")
    bo.locator("#anyone [name=name]").fill("Bo")
    answer = bo.locator("[data-seek-answer]")
    answer.wait_for(timeout=10_000)  # the panel shows Ana's seek
    assert answer.inner_text() == PLAY[lang]
    assert "Ana" in bo.locator(".open-seeks").inner_text()
    bo.locator("#anyone").scroll_into_view_if_needed()
    bo.screenshot(path=str(shots / f"home-{size}-{lang}.png"))
    assert bo.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    problems = blocking(Axe().run(bo).response)
    assert not problems, problems

    answer.click()
    bo.wait_for_url("**/matches/*", timeout=10_000)
    ana.wait_for_url("**/matches/*", timeout=10_000)  # told through the seek's event stream
    assert ana.url == bo.url
    ana.locator(".board").first.wait_for()
    names = ana.locator("body").inner_text()
    assert "Ana" in names and "Bo" in names
    for context in contexts:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_two_accounts_pair_through_a_rated_seek_with_a_range(
    server: LiveServer, browser, size: str, shots: Path
) -> None:
    """Issue 31 with 32: Ana (English) seeks a rated 5+3 with a range that admits a
    newcomer; Ben (Spanish) answers it; both land in a rated match."""
    from tests.e2e.test_ratings import sign_up

    pages = []
    contexts = []
    for lang, username in (("en", "ana"), ("es", "ben")):
        context = browser.new_context(viewport=SIZES[size])
        context.add_cookies([{"name": "lang", "value": lang, "url": server.url}])
        contexts.append(context)
        page = context.new_page()
        sign_up(page, server.url, username)
        pages.append(page)
    ana, ben = pages
    ana.goto(server.url + "/")
    ana.check("#anyone [data-seek-rated]")
    ana.fill("#anyone [name=range_min]", "1200")
    ana.fill("#anyone [name=range_max]", "1800")
    ana.locator("#anyone button[type=submit]").click()
    ana.locator("[data-seek-status]").get_by_text(WAITING["en"]).wait_for()

    ben.goto(server.url + "/")
    answer = ben.locator('[data-seek-answer][data-rated="true"]')
    answer.wait_for(timeout=10_000)
    assert "Puntuada" in ben.locator(".open-seeks").inner_text()
    ben.locator("#anyone").scroll_into_view_if_needed()
    ben.screenshot(path=str(shots / f"rated-seek-{size}-es.png"))
    assert ben.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    problems = blocking(Axe().run(ben).response)
    assert not problems, problems
    answer.click()
    ben.wait_for_url("**/matches/*", timeout=10_000)
    ana.wait_for_url("**/matches/*", timeout=10_000)
    assert ana.url == ben.url
    ana.locator(".rated-mark").wait_for()
    assert ben.locator(".rated-mark").inner_text() == "Partida puntuada"
    for context in contexts:
        context.close()


def test_a_guest_and_an_account_pair_through_a_casual_seek(server: LiveServer, browser) -> None:
    """Issue 32's acceptance: a guest (Spanish, phone) and an account (English, desktop)
    find each other through a seek; the account's seat carries its name and mark."""
    from tests.e2e.test_ratings import sign_up

    account = browser.new_context(viewport=SIZES["desktop"])
    guest = browser.new_context(viewport=SIZES["phone"])
    guest.add_cookies([{"name": "lang", "value": "es", "url": server.url}])
    ana, bo = account.new_page(), guest.new_page()
    sign_up(ana, server.url, "ana")
    ana.goto(server.url + "/")
    assert ana.locator("#anyone [name=name]").input_value() == "ana"
    ana.locator("#anyone button[type=submit]").click()
    ana.locator("[data-seek-status]").get_by_text(WAITING["en"]).wait_for()

    bo.goto(server.url + "/")
    bo.locator("#anyone [name=name]").fill("Bo")
    answer = bo.locator('[data-seek-answer][data-rated="false"]')
    answer.wait_for(timeout=10_000)
    answer.click()
    bo.wait_for_url("**/matches/*", timeout=10_000)
    ana.wait_for_url("**/matches/*", timeout=10_000)
    assert ana.url == bo.url
    bo.locator(".board").first.wait_for()
    assert bo.locator('#live a[href="/@/ana"]').count() >= 1  # the account, marked and linked
    assert "Bo" in ana.locator("#live").inner_text()
    account.close()
    guest.close()
