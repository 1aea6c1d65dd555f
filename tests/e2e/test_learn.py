"""Lessons and puzzles in the browser (issue 29): a whole lesson of each game by taps, a
lesson by keyboard only, a puzzle of each game by taps, both sizes and both languages, and
axe on these pages.

The moves tapped are the server's own hints (POST …/hint): the test knows no lesson's
answer, and the server judges every tap sequence it receives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

import games
from games import lessons
from games.puzzles import store
from tests.app.conftest import database_url
from tests.e2e.test_accessible_play import key_tap, no_mouse, tab_to_board
from tests.e2e.test_axe import SIZES, blocking
from tests.live import LiveServer

pytestmark = pytest.mark.browser

#: (game, lesson, size, language): every game once, each size and language twice.
RUNS = [
    ("bashni", "capture", "desktop", "en"),
    ("morris", "reopen", "phone", "es"),
    ("bobail", "their-row", "desktop", "es"),
    ("bilsang", "pairs", "phone", "en"),
]
NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth"
WRONG = {"en": "Legal, but not the goal", "es": "Legal, pero no es el objetivo"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("learn")
    url = database_url(folder)
    live = LiveServer(url)
    live.start()
    yield live
    live.stop()


def open_context(browser, live: LiveServer, size: str, lang: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    return context


def line_of(page: Page) -> list[str]:
    return json.loads(page.locator("#live").get_attribute("data-moves") or "[]")


def hint_clicks(page: Page, base: str, game_name: str, lesson_id: str, step: int) -> tuple[str, ...]:
    """The taps of the server's hint for the learner's next move, on the board shown."""
    moves = line_of(page)
    path = f"{base}/api/lessons/{game_name}/{lesson_id}/{step}/hint"
    answer = page.request.post(path, data={"moves": moves})
    assert answer.status == 200, answer.text()
    game = games.get(game_name)
    state = game.parse_position(page.locator("#live svg.board").get_attribute("data-position") or "")
    return game.clicks(game.parse_move(state, answer.json()["move"]))


def wrong_clicks(page: Page, base: str, game_name: str, lesson_id: str, step: int) -> tuple[str, ...]:
    """The taps of a legal move the server refuses at the step's start."""
    game = games.get(game_name)
    state = game.parse_position(page.locator("#live svg.board").get_attribute("data-position") or "")
    for text in game.move_texts(state):
        verdict = page.request.post(
            f"{base}/api/lessons/{game_name}/{lesson_id}/{step}", data={"moves": [text]}
        ).json()
        if not verdict["ok"]:
            return game.clicks(game.parse_move(state, text))
    raise AssertionError("no wrong move")


def tap(page: Page, points: tuple[str, ...]) -> None:
    for point in points:
        page.locator(f'#live svg.board [data-point="{point}"]').click()


@pytest.mark.parametrize(("game_name", "lesson_id", "size", "lang"), RUNS)
def test_a_whole_lesson_by_taps(
    site: LiveServer, browser, shots: Path, game_name: str, lesson_id: str, size: str, lang: str
) -> None:
    context = open_context(browser, site, size, lang)
    page = context.new_page()
    page.goto(f"{site.url}/learn")
    page.locator(f'a[href="/learn/{game_name}/{lesson_id}"]').click()
    expect(page.locator(".learn-live")).to_have_attribute("data-step", "1")
    lesson = lessons.lesson(game_name, lesson_id)
    for number, step in enumerate(lesson.steps, start=1):
        expect(page.locator(".learn-live")).to_have_attribute("data-step", str(number))
        if number == 1:
            # A legal move that misses the goal: refused with why, and the step stays as it was.
            tap(page, wrong_clicks(page, site.url, game_name, lesson_id, number))
            expect(page.locator(".feedback.wrong")).to_contain_text(WRONG[lang])
            assert line_of(page) == []
            page.screenshot(path=str(shots / f"{game_name}-{size}-{lang}-wrong.png"))
        for turn in range(step.turns):
            tap(page, hint_clicks(page, site.url, game_name, lesson_id, number))
            if turn < step.turns - 1:
                expect(page.locator("#live")).to_have_attribute("data-ply", str(2 * turn + 2))
        expect(page.locator("#live")).to_have_attribute("data-done", "true")
        expect(page.locator(".feedback.good")).to_be_visible()
        page.screenshot(path=str(shots / f"{game_name}-{size}-{lang}-step{number}.png"))
        page.locator("[data-action=next]").click()
    page.goto(f"{site.url}/learn")
    item = page.locator(f'li[data-lesson="{lesson_id}"][data-game="{game_name}"]')
    expect(item.locator(".lesson-done")).to_be_visible()
    page.screenshot(path=str(shots / f"index-{size}-{lang}.png"), full_page=True)
    assert page.evaluate(NO_SIDEWAYS), "the page scrolls sideways"
    context.close()


def test_a_lesson_by_keyboard_only(site: LiveServer, browser, shots: Path) -> None:
    context = open_context(browser, site, "desktop", "en")
    page = context.new_page()
    page.goto(f"{site.url}/learn/morris/reopen")
    no_mouse(page)
    tab_to_board(page)
    for turn in range(2):
        for n, point in enumerate(hint_clicks(page, site.url, "morris", "reopen", 1)):
            key_tap(page, point, "Enter" if n % 2 == 0 else " ")
        if turn == 0:
            expect(page.locator("#live")).to_have_attribute("data-ply", "2")
            # The reply came with the new board; the focus is still on the board.
            expect(page.locator("#live svg.board [data-point]:focus")).to_have_count(1)
            expect(page.locator("#announcer")).to_contain_text("a7-a4")
    expect(page.locator("#live")).to_have_attribute("data-done", "true")
    expect(page.locator("#announcer")).to_contain_text("The same mill made again removed another piece.")
    page.screenshot(path=str(shots / "keyboard.png"))
    assert page.evaluate("window.__mouse") == []
    context.close()


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_axe_on_the_lesson_pages(site: LiveServer, browser, shots: Path, size: str, lang: str) -> None:
    context = open_context(browser, site, size, lang)
    page = context.new_page()
    axe = Axe()
    found = {}
    paths = ["/learn", "/"] + [f"/learn/{g}/{lessons.lessons(g)[0].id}" for g in games.names()]
    for path in paths:
        response = page.goto(site.url + path)
        assert response is not None and response.status == 200, path
        problems = blocking(axe.run(page).response)
        if problems:
            found[path] = problems
        assert page.evaluate(NO_SIDEWAYS), path
    # After a hint: the board with the hinted points and the panel's message.
    page.goto(f"{site.url}/learn/bilsang/switch")
    page.locator("[data-action=hint]").click()
    expect(page.locator(".feedback")).to_be_visible()
    page.screenshot(path=str(shots / f"hint-{size}-{lang}.png"))
    problems = blocking(axe.run(page).response)
    if problems:
        found["hint"] = problems
    context.close()
    assert not found, found


PUZZLE_RUNS = [
    ("bashni", "phone", "es"),
    ("morris", "desktop", "en"),
    ("bobail", "phone", "en"),
    ("bilsang", "desktop", "es"),
]
SOLVED = {"en": "Solved!", "es": "¡Resuelto!"}


@pytest.mark.parametrize(("game_name", "size", "lang"), PUZZLE_RUNS)
def test_a_puzzle_by_taps(
    site: LiveServer, browser, shots: Path, game_name: str, size: str, lang: str
) -> None:
    if not store.load(game_name):
        pytest.skip(f"no {game_name} puzzles shipped")
    context = open_context(browser, site, size, lang)
    page = context.new_page()
    page.goto(f"{site.url}/puzzles")
    page.locator(f'a[href="/puzzles/{game_name}"]').click()
    submit = page.locator(".learn-page").get_attribute("data-submit") or ""
    puzzle_id = submit.split("/")[2]
    line = page.request.get(f"{site.url}/api/puzzles/{puzzle_id}/solution").json()["line"]
    game = games.get(game_name)
    page.screenshot(path=str(shots / f"{game_name}-{size}-{lang}-start.png"))
    for index in range(0, len(line), 2):
        state = game.parse_position(page.locator("#live svg.board").get_attribute("data-position") or "")
        tap(page, game.clicks(game.parse_move(state, line[index])))
        if index < len(line) - 1:
            expect(page.locator("#live")).to_have_attribute("data-ply", str(index + 2))
    expect(page.locator(".feedback.good")).to_contain_text(SOLVED[lang])
    page.screenshot(path=str(shots / f"{game_name}-{size}-{lang}-solved.png"))
    assert page.evaluate(NO_SIDEWAYS)
    problems = blocking(Axe().run(page).response)
    page.goto(f"{site.url}/puzzles")
    problems += blocking(Axe().run(page).response)
    context.close()
    assert not problems, problems
