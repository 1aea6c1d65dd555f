"""The clocks for a screen reader: the typed "clocks" command, the spoken low-time warning
and the loss on time (issue 19).

The timed game is the shortest custom control the site offers (0:15+0, as in
test_clocks.py): after both first moves (made in their grace period) White's clock runs
from 15 s, passes the 10 s warning about five seconds later and flags ten seconds after.
Everything the live region says is recorded as it is said, so a warning said twice or a
warning said on the wrong page is seen.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.app.helpers import MORRIS_WIN
from tests.e2e.play import join_match, play_line
from tests.e2e.test_accessible_play import new_match, type_text
from tests.e2e.test_clocks import create_timed
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: Every text the page's live region takes, in order (the region is emptied before each).
RECORD_SPEECH = """
document.addEventListener("DOMContentLoaded", () => {
  window.__said = [];
  const region = document.getElementById("announcer");
  if (!region) return;
  new MutationObserver(() => {
    if (region.textContent) window.__said.push(region.textContent);
  }).observe(region, { childList: true, characterData: true, subtree: true });
});
"""


def listening(context: BrowserContext, base: str, lang: str) -> Page:
    context.add_cookies([{"name": "lang", "value": lang, "url": base}])
    context.add_init_script(RECORD_SPEECH)
    return context.new_page()


def said(page: Page) -> list[str]:
    return page.evaluate("window.__said")


def test_clocks_command_warning_and_flag_are_spoken(server: LiveServer, browser, shots: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    contexts.append(browser.new_context(viewport={"width": 390, "height": 844}))
    alice = listening(contexts[0], server.url, "en")
    bob = listening(contexts[1], server.url, "es")
    carol = listening(contexts[2], server.url, "en")

    invite = create_timed(alice, server.url, "Alice", "rt:custom", minutes="0.25")
    join_match(bob, invite, "Bob")
    carol.goto(invite)
    type_text(alice, "clocks")
    expect(alice.locator("#typed-answer")).to_have_text(
        re.compile(
            r"White \(Alice\): 15 seconds; Black \(Bob\): 15 seconds\. White \(Alice\) to move; the clock"
            r" starts after the first move, due within [0-9]+ seconds\."
        )
    )
    play_line("morris", MORRIS_WIN[:2], (alice, bob), [carol])  # both first moves, in grace

    type_text(alice, "clocks")
    expect(alice.locator("#typed-answer")).to_have_text(
        re.compile(r"White \(Alice\): 1[0-5] seconds; Black \(Bob\): 15 seconds\. White \(Alice\) to move\.")
    )
    type_text(bob, "relojes")
    expect(bob.locator("#typed-answer")).to_have_text(
        re.compile(
            r"Blancas \(Alice\): (1[0-5]|[0-9]) segundos?; Negras \(Bob\): 15 segundos\."
            r" Le toca a Blancas \(Alice\)\."
        )
    )
    alice.locator("section.typed").screenshot(path=str(shots / "clocks-answer.png"))

    # Under 10 s the owner of the clock hears it, once; the opponent and the spectator do not.
    warning = "10 seconds left on your clock."
    expect(alice.locator("#announcer")).to_have_text(warning, timeout=12000)
    alice.screenshot(path=str(shots / "warning.png"))
    lost = "Game over: Black (Bob) wins, the time ran out."
    expect(alice.locator("#announcer")).to_have_text(lost, timeout=15000)
    expect(bob.locator("#announcer")).to_have_text(
        "Fin de la partida: gana Negras (Bob), se acabó el tiempo.", timeout=5000
    )
    expect(carol.locator("#announcer")).to_have_text(lost, timeout=5000)
    assert said(alice).count(warning) == 1, said(alice)
    for page in (bob, carol):
        assert not [text for text in said(page) if "reloj" in text or "clock" in text], said(page)
    type_text(alice, "c")
    expect(alice.locator("#typed-answer")).to_have_text(
        "White (Alice): 0 seconds; Black (Bob): 15 seconds. The game is over."
    )
    for context in contexts:
        context.close()


@pytest.mark.parametrize(
    ("lang", "command", "words"),
    [("en", "clocks", "This match has no clocks."), ("es", "relojes", "Esta partida no tiene relojes.")],
)
def test_an_untimed_match_answers_that_it_has_no_clock(
    server: LiveServer, browser, lang: str, command: str, words: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = listening(context, server.url, lang)
    new_match(page, server.url, "bashni", computer=False)
    type_text(page, command)
    expect(page.locator("#typed-answer")).to_have_text(words)
    context.close()
