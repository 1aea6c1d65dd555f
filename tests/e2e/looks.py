"""Screenshots at both sizes in both languages, no sideways scrolling, axe clean: the
checks every page changed for issue 34 goes through (tests/e2e/test_*polish*)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LANGS = ("en", "es")
BLOCKING = ("serious", "critical")


def blocking(results: dict) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + repr([(n["target"], n["failureSummary"]) for n in v["nodes"][:3]])
        for v in results["violations"]
        if v["impact"] in BLOCKING
    ]


def look(
    browser: Browser,
    base_url: str,
    cookies: dict[str, str],
    name: str,
    shots: Path,
    open_page: Callable[[Page], None],
) -> None:
    """``open_page`` brings a fresh page to what is to be seen; then, at each size and in
    each language: a screenshot, no sideways scroll, no serious or critical axe finding."""
    problems = []
    for size, viewport in SIZES.items():
        for lang in LANGS:
            context = browser.new_context(viewport=viewport)
            context.add_cookies(
                [{"name": "lang", "value": lang, "url": base_url}]
                + [{"name": k, "value": v, "url": base_url} for k, v in cookies.items()]
            )
            page = context.new_page()
            open_page(page)
            page.screenshot(path=str(shots / f"{name}-{size}-{lang}.png"))
            wide = page.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            if wide > 0:
                problems.append(f"{size} {lang}: scrolls sideways by {wide}px")
            problems += [f"{size} {lang}: {p}" for p in blocking(Axe().run(page).response)]
            context.close()
    assert not problems, "\n".join(problems)
