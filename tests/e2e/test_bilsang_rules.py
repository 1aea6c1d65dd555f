"""The Bilsang rule options as a player sees them on the match page."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.play import create_match, join_match
from tests.live import LiveServer

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_default_rules_are_shown_and_free_pairs_warned(server: LiveServer, browser, shots: Path) -> None:
    context = browser.new_context(viewport=PHONE)
    alice = context.new_page()
    friend = browser.new_context(viewport=PHONE)
    bob = friend.new_page()

    create_match(alice, server.url, "bilsang", "Alice")
    rules = alice.locator("#live .rule-options")
    expect(rules).to_contain_text("same-line pairs")
    expect(rules).to_contain_text("300 plies")
    expect(alice.locator("#live .rule-options.warning")).to_have_count(0)
    assert alice.locator("svg.board").get_attribute("data-position").endswith(" line,quiet=300")
    alice.screenshot(path=str(shots / "default.png"))

    invite = create_match(alice, server.url, "bilsang", "Alice", rules="free")
    join_match(bob, invite, "Bob")
    for page in (alice, bob):
        warning = page.locator("#live .rule-options.warning")
        expect(warning).to_be_visible()
        expect(warning).to_contain_text("Free pairs")
        expect(warning).to_contain_text("almost every game is drawn")
        # in the first viewport, where a player looks before moving
        box = warning.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    bob.screenshot(path=str(shots / "free.png"))
    context.close()
    friend.close()
