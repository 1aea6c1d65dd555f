"""The rules pages with their figures, at both sizes in both languages: screenshots, no
sideways scroll, axe clean (issue 34, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import games
from tests.e2e.looks import look
from tests.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", games.names())
def test_rules_pages_with_figures(server: LiveServer, browser, shots: Path, name: str) -> None:
    def open_page(page: Page) -> None:
        page.goto(f"{server.url}/rules/{name}")
        figures = page.locator("figure.rule-figure")
        expect(figures.first).to_be_visible()
        for i in range(figures.count()):
            box = figures.nth(i).locator("svg").bounding_box()
            assert box is not None and 100 < box["width"] <= 241, box  # small, not a page-wide board
        figures.first.scroll_into_view_if_needed()  # the screenshot shows them

    look(browser, server.url, {}, f"rules-{name}", shots, open_page)
