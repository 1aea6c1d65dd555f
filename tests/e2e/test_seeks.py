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
