"""The match page as a player meets it: what is in the first viewport, taps that light up at
once with no request, drag and drop, the move list of a long game, browsing by keyboard,
offers in the banner, the rematch, sounds and the tab title. 1280×800 and 390×844, en and es."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

import games
from app.i18n import LANG_COOKIE
from app.services.tokens import PLAYER_COOKIE
from tests.app.conftest import database_url
from tests.e2e.play import wait_for_ply
from tests.live import LiveServer

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}

#: White's moves that beat the first-legal test opponent at Bashni (see test_ladder.py).
BASHNI_WHITE = (
    "e3-d4 d4-c5 a3:c5 c5:a7 a7:c5 d2-e3 c5:a7 e3-d4 a7:c5 c5:e7:g5 g3:e5 e5-d6 c3:a5 d6:f8:h6 h6:f8"
).split()


@pytest.fixture
def computer_server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    yield live
    live.stop()


def context(browser, server: LiveServer, size: str, lang: str, token: str | None = None) -> BrowserContext:
    ctx = browser.new_context(viewport=SIZES[size])
    cookies = [{"name": LANG_COOKIE, "value": lang, "url": server.url}]
    if token is not None:
        cookies.append({"name": PLAYER_COOKIE, "value": token, "url": server.url})
    ctx.add_cookies(cookies)
    return ctx


def in_first_viewport(page: Page, selector: str) -> None:
    """The element is on screen without scrolling (its whole box inside the viewport)."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    size = page.viewport_size
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 0.5, (selector, box)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (selector, box)


def no_sideways_scroll(page: Page) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), page.url


def api_game(server: LiveServer, game_name: str, moves: list[str]) -> tuple[str, str, str]:
    """A match between two API clients with ``moves`` played; their player tokens."""
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    created = alice.post("/api/matches", json={"game": game_name, "name": "Alice", "side": "first"})
    match_id = created.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).raise_for_status()
    for ply, text in enumerate(moves):
        answer = (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
        answer.raise_for_status()
    tokens = alice.cookies[PLAYER_COOKIE], bob.cookies[PLAYER_COOKIE]
    alice.close()
    bob.close()
    return match_id, *tokens


def long_bashni_line(plies: int) -> list[str]:
    """A seeded random Bashni game still going after ``plies`` plies."""
    bashni = games.get("bashni")
    for seed in range(100):
        rng, state, line = random.Random(seed), bashni.initial(), []
        while len(line) < plies and bashni.outcome(state) is None:
            move = rng.choice(sorted(bashni.legal_moves(state), key=bashni.format_move))
            line.append(bashni.format_move(move))
            state = bashni.apply(state, move)
        if len(line) == plies and bashni.outcome(state) is None:
            return line
    raise AssertionError("no seed gave a long enough game")


def position_after(game_name: str, line: list[str]) -> str:
    game = games.get(game_name)
    state = game.initial()
    for text in line:
        state = game.play(state, text)
    return game.format_position(state)


WORDS = {
    "en": {"waiting": "Waiting for an opponent", "offers": "offers a draw", "lapsed": "lapsed"},
    "es": {"waiting": "Esperando rival", "offers": "ofrece tablas", "lapsed": "decayó"},
}


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_what_matters_now_is_in_the_first_viewport(
    server: LiveServer, browser, shots: Path, size: str, lang: str
) -> None:
    words = WORDS[lang]
    contexts = [context(browser, server, size, lang) for _ in range(3)]
    alice, bob, carol = (ctx.new_page() for ctx in contexts)
    alice.goto(server.url + "/")
    alice.select_option("select[name=game]", "morris")
    alice.fill("form.stack input[name=name]", "Alice")
    alice.check("input[name=side][value=first]")
    alice.click("form.stack button[type=submit]")
    expect(alice.locator(".banner")).to_contain_text(words["waiting"])
    for selector in ("#invite-url", "[data-copy='#invite-url']", ".qr-box svg"):
        in_first_viewport(alice, selector)
    no_sideways_scroll(alice)
    alice.screenshot(path=str(shots / "waiting.png"))
    invite = alice.input_value("#invite-url")

    bob.goto(invite)
    in_first_viewport(bob, "#join input[name=name]")
    in_first_viewport(bob, "#join button[type=submit]")
    no_sideways_scroll(bob)
    bob.screenshot(path=str(shots / "join.png"))
    bob.fill("#join input[name=name]", "Bob")
    bob.click("#join button[type=submit]")
    expect(alice.locator("#live")).to_have_attribute("data-status", "playing")
    expect(alice.locator("#invite-url")).to_have_count(0)  # both seats taken: no invite any more
    carol.goto(invite)

    board = alice.locator("svg.board").bounding_box()
    if size == "desktop":
        assert board["height"] >= 0.85 * DESKTOP["height"], board
    else:
        assert board["width"] >= PHONE["width"] - 12, board  # the full width, less a small margin
    in_first_viewport(alice, "svg.board")
    for page in (alice, bob, carol):
        no_sideways_scroll(page)

    # A draw offer shows in the other side's banner with its buttons on screen ...
    alice.locator('#live [data-point="d1"].target').click()
    wait_for_ply(bob, 1)
    alice.click("button[data-action=draw-offer]")
    offer = bob.locator(".banner-box .offer[data-offer=draw]")
    expect(offer).to_contain_text(words["offers"])
    in_first_viewport(bob, ".banner-box button[data-action=draw-accept]")
    in_first_viewport(bob, ".banner-box button[data-action=draw-decline]")
    expect(carol.locator(".banner-box")).to_contain_text(words["offers"])
    # ... and a move instead of an answer declines it, and both are told.
    bob.locator('#live [data-point="a1"].target').click()
    wait_for_ply(alice, 2)
    expect(bob.locator("[data-note=draw]")).to_be_visible()
    expect(alice.locator("[data-note=draw]")).to_be_visible()
    expect(alice.locator("[data-note=draw]")).to_contain_text(words["lapsed"])
    expect(bob.locator(".offer[data-offer=draw]")).to_have_count(0)
    alice.screenshot(path=str(shots / "playing.png"))

    alice.once("dialog", lambda dialog: dialog.accept())
    alice.click("button[data-action=resign]")
    expect(bob.locator(".banner.result")).to_be_visible()
    in_first_viewport(bob, "button[data-action=rematch-offer]")
    bob.click("button[data-action=rematch-offer]")
    in_first_viewport(alice, "button[data-action=rematch-accept]")
    alice.screenshot(path=str(shots / "finished-rematch-offer.png"))
    old = alice.url
    alice.click("button[data-action=rematch-accept]")
    # Both players and the spectator are taken to the rematch.
    for page in (alice, bob, carol):
        expect(page).not_to_have_url(old)
        expect(page.locator("#live")).to_have_attribute("data-status", "playing")
    assert alice.url == bob.url == carol.url
    for ctx in contexts:
        ctx.close()


def test_a_tap_lights_its_targets_at_once_with_no_request(server: LiveServer, browser, shots: Path) -> None:
    match_id, alice_token, bob_token = api_game(server, "bashni", [])
    ctx = context(browser, server, "desktop", "en", alice_token)
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page).to_have_title("(your move) Bashni · Alice – Bob · Tablero")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.wait_for_timeout(300)  # let the event stream settle
    requests.clear()
    # The test's own clock, in the page: from the tap to the targets being lit.
    elapsed = page.evaluate(
        """() => {
            const piece = document.querySelector('#live [data-point="c3"]');
            const start = performance.now();
            piece.dispatchEvent(new MouseEvent("click", {bubbles: true}));
            const lit = [...document.querySelectorAll('#live .point.target')].map(p => p.dataset.point);
            return {ms: performance.now() - start, lit: lit.sort()};
        }"""
    )
    page.wait_for_timeout(200)
    assert elapsed["lit"] == ["b4", "d4"]
    assert elapsed["ms"] < 50, elapsed
    assert [url for url in requests if "/events" not in url] == []
    expect(page.locator('[data-point="c3"]')).to_have_class("point chosen")
    # Another own piece re-selects; the same piece again puts it down.
    page.locator('[data-point="e3"]').click()
    expect(page.locator("#live .point.target")).to_have_count(2)
    expect(page.locator('[data-point="f4"]')).to_have_class("point target")
    page.locator('[data-point="e3"]').click()
    expect(page.locator("#live .point.chosen")).to_have_count(0)
    assert [url for url in requests if "/events" not in url] == []

    page.locator('[data-point="e3"]').click()
    page.locator('[data-point="d4"]').click()
    wait_for_ply(page, 1)
    posts = [url for url in requests if url.endswith("/moves")]
    assert posts == [f"{server.url}/matches/{match_id}/moves"]  # the whole move, once
    # The move's own event finds its version shown already (the post's answer): no /live.
    page.wait_for_timeout(1000)
    assert [url for url in requests if "/live" in url] == []
    expect(page).to_have_title("Bashni · Alice – Bob · Tablero")
    # The opponent's reply: it is my turn again, with a sound and the title saying so. The
    # view comes inside the event (issue 28): no request is made for it.
    httpx.post(
        f"{server.url}/api/matches/{match_id}/moves",
        json={"move": "f6-g5", "ply": 1},
        cookies={PLAYER_COOKIE: bob_token},
    ).raise_for_status()
    wait_for_ply(page, 2)
    expect(page).to_have_title("(your move) Bashni · Alice – Bob · Tablero")
    assert [url for url in requests if "/live" in url] == []
    sounds = {url.rsplit("/", 1)[1] for url in requests if "/static/sounds/" in url}
    assert {"move.wav", "turn.wav"} <= sounds, sounds
    page.screenshot(path=str(shots / "after-reply.png"))
    # Muted, the sound button still says so in the next view the event brings (Bob's
    # draw offer): every swap applies the page's tool state, not only htmx's own.
    sound_button = page.locator("#live [data-tool=sound]")
    sound_button.click()
    expect(sound_button).to_have_attribute("aria-pressed", "false")
    httpx.post(
        f"{server.url}/api/matches/{match_id}/draw",
        json={"action": "offer"},
        cookies={PLAYER_COOKIE: bob_token},
    ).raise_for_status()
    expect(page.locator("#live")).to_have_attribute("data-draw-offer", "b")
    expect(sound_button).to_have_attribute("aria-pressed", "false")
    ctx.close()


def centre(page: Page, point: str) -> tuple[float, float]:
    box = page.locator(f'#live [data-point="{point}"]').bounding_box()
    assert box is not None, point
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def mouse_drag(page: Page, start: str, end: str, shot: Path | None = None) -> None:
    page.mouse.move(*centre(page, start))
    page.mouse.down()
    page.mouse.move(*centre(page, end), steps=6)
    if shot is not None:
        page.screenshot(path=str(shot))
    page.mouse.up()


def point_classes(page: Page) -> dict[str, list[str]]:
    """The board's selected and lit points, and whether anything is still being carried."""
    return page.evaluate(
        """() => ({
            chosen: [...document.querySelectorAll('#live .point.chosen')].map(p => p.dataset.point),
            target: [...document.querySelectorAll('#live .point.target')].map(p => p.dataset.point).sort(),
            carried: [...document.querySelectorAll('#live .drag-ghost, #live .lifted, #live .carried')]
                .map(el => el.getAttribute('class')),
        })"""
    )


#: The moves of BASHNI_WHITE (by index) whose further jumps are tapped; the others' are dragged.
JUMPS_BY_TAPS = {9}


def test_a_whole_game_by_drag_and_drop(computer_server: LiveServer, browser, shots: Path) -> None:
    ctx = context(browser, computer_server, "desktop", "en")
    page = ctx.new_page()
    page.goto(computer_server.url + "/")
    form = page.locator("#computer form")
    form.locator("select[name=game]").select_option("bashni")
    form.locator("input[name=name]").fill("Dana")
    form.locator("input[name=side][value=first]").check()
    form.locator("select[name=opponent]").select_option("easy")
    form.locator("button[type=submit]").click()
    expect(page.locator(".player-top")).to_contain_text("Computer (level 1)")
    # Dropped on a point that is not lit: the piece goes back and stays selected. The
    # page's scripts are deferred: on a loaded machine (CI, 2 cores busy) a drag made
    # before they ran did nothing, so wait for the load event, then for the selection.
    wait_for_ply(page, 0)
    page.wait_for_load_state("load")
    mouse_drag(page, "e3", "e5")
    expect(page.locator('#live [data-point="e3"]')).to_have_class(re.compile(r"\bchosen\b"))
    assert point_classes(page) == {"chosen": ["e3"], "target": ["d4", "f4"], "carried": []}
    bashni = games.get("bashni")
    further = {"tapped": 0, "dragged": 0}
    for i, text in enumerate(BASHNI_WHITE):
        wait_for_ply(page, 2 * i, timeout=15000)
        state = bashni.parse_position(page.locator("svg.board").get_attribute("data-position"))
        points = bashni.clicks(bashni.parse_move(state, text))
        shot = shots / "dragging.png" if i == 4 else None
        mouse_drag(page, points[0], points[1], shot)
        for before, point in pairwise(points[1:]):
            expect(page.locator(f'#live [data-point="{point}"]')).to_have_class(re.compile(r"\btarget\b"))
            if i in JUMPS_BY_TAPS:
                page.locator(f'#live [data-point="{point}"].target').click()
                further["tapped"] += 1
            else:  # the piece is shown at the landing it reached: dragged on from there
                mouse_drag(page, before, point, shots / "dragging-on.png")
                further["dragged"] += 1
    assert further["tapped"] >= 1 and further["dragged"] >= 1, further
    expect(page.locator(".banner.result")).to_contain_text("Dana wins", timeout=15000)
    page.screenshot(path=str(shots / "won.png"))
    ctx.close()


def touch(cdp, kind: str, at: tuple[float, float] | None = None) -> None:
    points = [] if at is None else [{"x": at[0], "y": at[1]}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def touch_drag(page: Page, cdp, start: str, end: str) -> None:
    """A finger on ``start``, slid to ``end`` in small steps, lifted: Chromium's own touch input."""
    (x0, y0), (x1, y1) = centre(page, start), centre(page, end)
    touch(cdp, "touchStart", (x0, y0))
    for step in range(1, 9):
        touch(cdp, "touchMove", (x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8))
    touch(cdp, "touchEnd")


def test_a_move_dragged_by_touch_on_a_phone(server: LiveServer, browser, shots: Path) -> None:
    match_id, alice_token, _bob = api_game(server, "bashni", [])
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    ctx.add_cookies(
        [
            {"name": LANG_COOKIE, "value": "en", "url": server.url},
            {"name": PLAYER_COOKIE, "value": alice_token, "url": server.url},
        ]
    )
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    expect(page.locator("#live")).to_have_class("live status-playing my-turn")
    page.evaluate(
        """() => {
            window.__pointers = [];
            document.addEventListener('pointerdown', (e) => window.__pointers.push(e.pointerType), true);
            window.__scrolled = 0;
            window.addEventListener('scroll', () => { window.__scrolled += 1; });
        }"""
    )
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    cdp = ctx.new_cdp_session(page)

    # A tap with the finger (down and up in place) selects, as a click does.
    at = centre(page, "c3")
    touch(cdp, "touchStart", at)
    touch(cdp, "touchEnd")
    expect(page.locator('#live [data-point="c3"]')).to_have_class(re.compile(r"\bchosen\b"))
    assert point_classes(page) == {"chosen": ["c3"], "target": ["b4", "d4"], "carried": []}
    # Slid onto a point that is not lit: the piece goes back and stays selected.
    touch_drag(page, cdp, "c3", "c5")
    assert point_classes(page) == {"chosen": ["c3"], "target": ["b4", "d4"], "carried": []}
    assert [url for url in requests if url.endswith("/moves")] == []
    # Another piece slid onto one of its lit points: the move is played, posted once.
    touch_drag(page, cdp, "e3", "f4")
    wait_for_ply(page, 1)
    expect(page.locator(".move-list .mv").last).to_have_text("e3-f4")
    assert [url for url in requests if url.endswith("/moves")] == [f"{server.url}/matches/{match_id}/moves"]
    assert page.evaluate("window.__pointers") == ["touch"] * 3
    assert page.evaluate("window.__scrolled") == 0  # the finger moved the piece, not the page
    # The keyboard's focus ring is for keyboard players: none on the board after a finger.
    assert page.evaluate("document.querySelector('#live .point:focus-visible')") is None
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / "dragged-by-touch.png"))
    ctx.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_long_game_shows_its_last_move_and_replays_by_keyboard(
    server: LiveServer, browser, shots: Path, size: str
) -> None:
    line = long_bashni_line(120)
    match_id, alice_token, _bob = api_game(server, "bashni", line)
    ctx = context(browser, server, size, "en", alice_token)
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    last = page.locator(".move-list .mv").last
    expect(last).to_have_text(line[-1])
    expect(last).to_have_class("mv current")
    box, frame = last.bounding_box(), page.locator(".move-list").bounding_box()
    assert frame["y"] - 1 <= box["y"] and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1
    if size == "desktop":
        in_first_viewport(page, ".move-list .mv >> nth=-1")
    page.screenshot(path=str(shots / "long-game.png"))

    page.evaluate("window.__samePage = true")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.locator("body").press("ArrowLeft")
    page.locator("body").press("ArrowLeft")
    live = page.locator("#live")
    expect(live).to_have_attribute("data-shown-ply", "118")
    assert page.url.endswith("?at=118")
    assert page.locator("svg.board").get_attribute("data-position") == position_after("bashni", line[:118])
    expect(page.locator(".browse .ply-counter")).to_have_text("Ply 118 of 120")
    expect(page.locator(".move-list .mv.current")).to_have_text(line[117])
    expect(page.locator(".banner.browsing")).to_contain_text("after ply 118 of 120")
    page.locator("body").press("Home")
    expect(live).to_have_attribute("data-shown-ply", "0")
    page.locator("body").press("ArrowRight")
    expect(live).to_have_attribute("data-shown-ply", "1")
    page.screenshot(path=str(shots / "replay.png"))
    page.locator(".browse [data-step=last]").click()
    expect(live).to_have_attribute("data-shown-ply", "120")
    assert "at=" not in page.url
    entry = page.locator('.move-list .mv[data-at="60"]')
    expect(entry).to_have_text(line[59])
    entry.click()
    expect(live).to_have_attribute("data-shown-ply", "60")
    assert page.evaluate("window.__samePage === true")  # no page load on the way
    assert not [url for url in requests if "/matches/" in url and "/live" not in url and "/events" not in url]
    # The shown ply is in the address, so it survives a language switch.
    page.click("nav.lang a[hreflang=es]")
    expect(page.locator("#live")).to_have_attribute("data-shown-ply", "60")
    assert page.url.endswith("?at=60")
    expect(page.locator(".browse .ply-counter")).to_have_text("Jugada 60 de 120")
    no_sideways_scroll(page)
    ctx.close()


def test_browsing_a_live_game_and_coming_back(server: LiveServer, browser) -> None:
    line = ["c5", "a7", "d5", "e5"]
    match_id, alice_token, _bob = api_game(server, "morris", line)
    ctx = context(browser, server, "desktop", "en", alice_token)
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    page.locator("body").press("ArrowLeft")
    expect(page.locator("#live")).to_have_attribute("data-shown-ply", "3")
    httpx.post(
        f"{server.url}/api/matches/{match_id}/moves",
        json={"move": "a1", "ply": 4},
        cookies={PLAYER_COOKIE: alice_token},
    ).raise_for_status()
    # The game goes on under the browsing view; the view stays where it was.
    expect(page.locator("#live")).to_have_attribute("data-ply", "5")
    expect(page.locator("#live")).to_have_attribute("data-shown-ply", "3")
    back = page.locator(".back-live")
    in_first_viewport(page, ".back-live")
    back.click()
    expect(page.locator("#live")).to_have_attribute("data-shown-ply", "5")
    expect(page.locator(".banner.turn")).to_contain_text("Bob to move")
    ctx.close()


def test_the_flip_and_theme_switches_are_remembered(server: LiveServer, browser) -> None:
    match_id, _alice, _bob = api_game(server, "bobail", [])
    ctx = context(browser, server, "phone", "en")  # a spectator may flip too
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    page.click("[data-tool=flip]")
    expect(page.locator(".match-page")).to_have_class("match-page flipped")
    top = page.locator(".player-top").bounding_box()["y"]
    bottom = page.locator(".player-bottom").bounding_box()["y"]
    assert bottom < top  # the players follow the board
    page.click("[data-tool=theme]")
    theme = page.evaluate("document.documentElement.dataset.theme")
    assert theme in ("dark", "light")
    page.click("[data-tool=sound]")
    page.reload()
    expect(page.locator(".match-page")).to_have_class("match-page flipped")
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    expect(page.locator("[data-tool=sound]")).to_have_attribute("aria-pressed", "false")
    ctx.close()


@pytest.mark.parametrize(("size", "lang"), [("desktop", "en"), ("phone", "es")])
def test_without_javascript_a_typed_move_plays(
    server: LiveServer, browser, shots: Path, size: str, lang: str
) -> None:
    match_id, alice_token, _ = api_game(server, "morris", [])
    ctx = browser.new_context(viewport=SIZES[size], java_script_enabled=False)
    ctx.add_cookies(
        [
            {"name": LANG_COOKIE, "value": lang, "url": server.url},
            {"name": PLAYER_COOKIE, "value": alice_token, "url": server.url},
        ]
    )
    page = ctx.new_page()
    page.goto(f"{server.url}/matches/{match_id}")
    field = page.locator("input[name=move]")
    expect(field).to_be_visible()
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / f"no-script-{size}-{lang}.png"), full_page=True)
    field.fill("D1")
    field.press("Enter")
    page.wait_for_url(f"{server.url}/matches/{match_id}")
    assert httpx.get(f"{server.url}/api/matches/{match_id}").json()["moves"] == ["d1"]
    # Not Alice's move any more: no form.
    expect(page.locator("input[name=move]")).to_have_count(0)
    ctx.close()
