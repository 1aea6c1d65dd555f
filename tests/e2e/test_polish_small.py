"""The smaller defects of issue 34 (item 8) in the browser, at 1280x800 and 390x844, in
English and Spanish: the ladder's runs in progress and a finished game's result before the
way on, "Start a match from here" at the first click, selects a phone shows whole, and the
import page's file picker in the page's language."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.app.conftest import database_url
from tests.e2e.looks import LANGS, SIZES, look
from tests.e2e.test_ladder import WHITE
from tests.live import LiveServer

pytestmark = pytest.mark.browser

RECORD = '[Variant "Bashni"]\n[Result "*"]\n\n1. c3-d4 f6-g5 *\n'
GUEST = {"en": "Guest", "es": "Invitado"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = database_url(tmp_path_factory.mktemp("small"))
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    yield live
    live.stop()


def fresh(browser: Browser, live: LiveServer, size: str, lang: str) -> BrowserContext:
    """A browser that has never been here: no name remembered, no player cookie."""
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    return context


def imported_record(live: LiveServer) -> str:
    with httpx.Client(base_url=live.url) as somebody:
        made = somebody.post("/api/records", content=RECORD.encode(), headers={"content-type": "text/plain"})
        assert made.status_code == 201, made.text
        return made.json()["id"]


def test_start_a_match_from_here_at_the_first_click(site: LiveServer, browser: Browser) -> None:
    """The analysis page's form, never filled in by this browser, starts the match at once
    (before: an empty required name, so the first click only brought the browser's bubble)."""
    record_id = imported_record(site)
    for size in SIZES:
        for lang in LANGS:
            context = fresh(browser, site, size, lang)
            page = context.new_page()
            page.goto(f"{site.url}/records/{record_id}")
            page.locator("[data-action=play-from-here]").click()
            page.wait_for_url("**/matches/*", timeout=15000)
            expect(page.locator(".player:has(.you) .name")).to_have_text(GUEST[lang])
            context.close()


#: Every shown select's options measured in its own font: each must fit inside the select
#: (its padding and Chromium's arrow, 20 px, left out) and the select inside the page.
CUT_OPTIONS = """() => {
  const found = [], pen = document.createElement('canvas').getContext('2d');
  const width = document.documentElement.clientWidth;
  for (const select of document.querySelectorAll('select')) {
    const box = select.getBoundingClientRect();
    if (!box.width) continue;  // not shown (Bilsang's rules while another game is chosen)
    const style = getComputedStyle(select);
    pen.font = style.font;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    if (box.left < 0 || box.right > width) found.push(`${select.name}: outside the page`);
    for (const option of select.options) {
      const needed = pen.measureText(option.text).width;
      if (needed > room)
        found.push(`${select.name}: "${option.text}" needs ${Math.ceil(needed)} px of ${Math.floor(room)}`);
    }
  }
  const wide = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  if (wide > 0) found.push(`the page scrolls sideways by ${wide} px`);
  return found;
}"""


def test_selects_show_their_options_whole(site: LiveServer, browser: Browser) -> None:
    """The new-match forms (options unfolded, Bilsang's rules shown), "Play anyone", and the
    play-from forms of the analysis and import pages (before: Bilsang's rules, the friend and
    master choices and the correspondence times were cut on a phone)."""
    record_id = imported_record(site)
    problems = []
    for size in SIZES:
        for lang in LANGS:
            context = fresh(browser, site, size, lang)
            page = context.new_page()
            for path in ("/", f"/records/{record_id}", "/records/import"):
                page.goto(site.url + path)
                if path == "/":
                    page.locator("details.more-options").evaluate_all(
                        "all => all.forEach(d => { d.open = true; })"
                    )
                    for game in page.locator("form.new-match select[name=game]").all():
                        game.select_option("bilsang")
                    expect(page.locator("select[name=rules]").first).to_be_visible()
                problems += [f"{size} {lang} {path}: {problem}" for problem in page.evaluate(CUT_OPTIONS)]
            context.close()
    assert not problems, "\n".join(problems)


def test_the_file_picker_in_the_page_s_words_by_keyboard(
    site: LiveServer, browser: Browser, tmp_path
) -> None:
    """The import page's file picker: our words in both languages (before: the browser's own
    English "Choose File / No file chosen"), the input out of sight but reached by Tab with a
    visible ring, opened by Enter, the chosen file's name shown, and the file imported."""
    record = tmp_path / "partida.pdn"
    record.write_text(RECORD)
    words = {"en": ("Choose a file", "No file chosen"), "es": ("Elegir un archivo", "Ningún archivo elegido")}
    for size in SIZES:
        for lang in LANGS:
            context = fresh(browser, site, size, lang)
            page = context.new_page()
            # Listening from the start turns Playwright's interception of the chooser on before
            # the key is pressed (turned on by expect_file_chooser alone it can come too late).
            page.on("filechooser", lambda _chooser: None)
            page.goto(f"{site.url}/records/import")
            choose, none = words[lang]
            button = page.locator(".file-pick label[for=record-file]")
            expect(button).to_have_text(choose)
            expect(button).to_be_visible()
            expect(page.locator("#record-file-name")).to_have_text(none)
            box = page.locator("input[type=file][name=file]").bounding_box()
            assert box is not None and box["width"] <= 1 and box["height"] <= 1, (
                "the browser's own button shows"
            )
            page.locator("textarea[name=text]").focus()
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.id") == "record-file"
            ring = button.evaluate("b => getComputedStyle(b).outlineStyle")
            assert ring != "none", "the focus is not seen on the picker"
            with page.expect_file_chooser() as chooser:
                page.keyboard.press("Enter")
            chooser.value.set_files(str(record))
            expect(page.locator("#record-file-name")).to_have_text("partida.pdn")
            page.locator("[data-action=import]").click()
            page.wait_for_url("**/records/*")
            expect(page.locator(".analysis-page")).to_be_visible()
            context.close()


def wait_for(client: httpx.Client, match_id: str, ply: int, status: str = "playing") -> dict:
    """The match state once it reaches ``ply`` (the test opponent answers within moments)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = client.get(f"/api/matches/{match_id}").json()
        if state["ply"] >= ply and state["status"] == status:
            return state
        time.sleep(0.05)
    raise AssertionError(f"the match did not reach ply {ply} ({status})")


def test_runs_in_progress_and_a_won_ladder_game_s_way_on(
    site: LiveServer, browser: Browser, shots: Path
) -> None:
    """A run with a score while it goes on is on the leaderboard, marked in progress (before:
    "No finished runs yet"); its won game says the result first, then "Next: opponent 2"."""
    with httpx.Client(base_url=site.url, timeout=30) as player:
        run = player.post("/api/ladder/runs", json={"name": "Lía"}).json()
        won = run["match_id"]
        for i, move in enumerate(WHITE):
            wait_for(player, won, 2 * i)
            assert (
                player.post(f"/api/matches/{won}/moves", json={"move": move, "ply": 2 * i}).status_code == 200
            )
        assert wait_for(player, won, 0, "finished")["result"]["winner"] == "w"
        cookies = dict(player.cookies)
    going = {
        "en": ("Runs in progress", "in progress", "opponent 2 of 18"),
        "es": ("Escaladas en curso", "en curso", "rival 2 de 18"),
    }

    def leaderboard(page: Page) -> None:
        page.goto(f"{site.url}/ladder/leaderboard")
        title, mark, reached = going[page.locator("html").get_attribute("lang") or "en"]
        row = page.locator(".runs-going tr", has_text="Lía")
        expect(page.locator(".runs-going h2")).to_have_text(title)
        expect(row.locator(".going-mark")).to_have_text(mark)
        expect(row).to_contain_text(reached)
        assert int(row.locator("td.num").last.inner_text()) > 10000  # the score so far
        expect(page.locator("main")).not_to_contain_text("No finished runs yet")
        expect(page.locator("main")).not_to_contain_text("Todavía no hay escaladas")

    def won_game(page: Page) -> None:
        page.goto(f"{site.url}/matches/{won}")
        result = page.locator(".banner.result").bounding_box()
        way_on = page.locator('.banner-box a.button[href^="/ladder/runs/"]').bounding_box()
        assert result is not None and way_on is not None
        assert result["y"] + result["height"] <= way_on["y"], "the way on is above the game's result"

    look(browser, site.url, cookies, "leaderboard-in-progress", shots, leaderboard)
    look(browser, site.url, cookies, "ladder-game-won", shots, won_game)
