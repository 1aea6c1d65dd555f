"""The settings page's email section (issue 32) at both sizes in both languages: no
sideways scroll, axe clean; the live server has SMTP_URL (a real aiosmtpd server here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from axe_playwright_python.sync_playwright import Axe

from tests.app.conftest import database_url
from tests.app.mail.conftest import Mailbox
from tests.e2e.looks import BLOCKING, SIZES
from tests.live import LiveServer, free_port

pytestmark = pytest.mark.browser


@pytest.fixture
def mail_server(tmp_path: Path) -> Iterator[tuple[LiveServer, Mailbox]]:
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    url = database_url(tmp_path)
    live = LiveServer(url, env={"SMTP_URL": f"smtp://127.0.0.1:{controller.port}"})
    live.start()
    yield live, box
    live.stop()
    controller.stop()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_the_email_section_looks_right(
    mail_server: tuple[LiveServer, Mailbox], browser, shots: Path, size: str, lang: str
) -> None:
    server, box = mail_server
    base = server.url  # PUBLIC_URL: the only host served, and the links' origin
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies([{"name": "lang", "value": lang, "url": base}])
    page = context.new_page()
    page.goto(base + "/signup")
    page.fill("input[name=username]", "ana")
    page.fill("input[name=password]", "correct horse battery")
    page.locator("form[action='/signup'] button[type=submit]").click()
    page.goto(base + "/account")
    page.fill("form[action='/account/email'] input[name=email]", "ana.maria.long.address@example.com")
    page.locator("form[action='/account/email'] button[type=submit]").click()
    page.wait_for_selector("#email-h")
    assert page.locator(".email-address").inner_text() == "ana.maria.long.address@example.com"
    assert len(box.wait_for(1)) == 1
    found = []
    for state in ("waiting", "verified"):
        if state == "verified":
            link = next(w for w in box.messages[0].get_content().split() if "/email/verify?token=" in w)
            assert link.startswith(base + "/email/verify?token=")
            page.goto(link)
            page.goto(base + "/account")
        page.locator("#email-h").scroll_into_view_if_needed()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= SIZES[size]["width"], f"{state}: scrolls sideways ({width}px)"
        page.locator("#email-h").locator("..").screenshot(
            path=str(shots / f"email-{state}-{size}-{lang}.png")
        )
        found += [
            f"{state} {v['id']} ({v['impact']}): {v['help']}"
            for v in Axe().run(page).response["violations"]
            if v["impact"] in BLOCKING
        ]
    assert page.locator("form[action='/account/email/digest'] input[name=digest]").count() == 1
    context.close()
    assert not found, found
