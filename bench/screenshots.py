"""Screenshots of the match page for looking at (and for docs/screenshots/).

Every game while playing (a piece selected), waiting, finished and in replay, at 1280×800
and 390×844, in English and Spanish, into test-output/screenshots/. Matches are built
through the JSON API, then opened in headless Chromium.

    .venv/bin/python bench/screenshots.py [--only desktop-en]
"""

from __future__ import annotations

import argparse

import httpx
from harness import ROOT, served  # bench/ is on sys.path; it puts the checkout there too
from playwright.sync_api import sync_playwright

import games
from app.services.tokens import PLAYER_COOKIE
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, bilsang_quiet_game
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

OUT = ROOT / "test-output" / "screenshots"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LINES = {
    "bashni": (BASHNI_WIN, 12),
    "morris": (MORRIS_WIN, 18),
    "bobail": (BOBAIL_WIN, 1),
    "bilsang": (bilsang_quiet_game(), 11),
}


def build(url: str, game: str, moves: list[str], join: bool = True) -> tuple[str, list[str]]:
    clients = [httpx.Client(base_url=url), httpx.Client(base_url=url)]
    body: dict[str, object] = {"game": game, "name": "Alice", "side": "first"}
    if game == "bilsang":
        body["options"] = {}  # free pairs: the rules bilsang_quiet_game is played by
    created = clients[0].post("/api/matches", json=body)
    match_id = created.json()["id"]
    if join:
        clients[1].post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).raise_for_status()
    for ply, text in enumerate(moves):
        answer = clients[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
        answer.raise_for_status()
    tokens = [c.cookies.get(PLAYER_COOKIE, "") for c in clients]
    for c in clients:
        c.close()
    return match_id, tokens


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with served() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for size, viewport in SIZES.items():
            for lang in ("en", "es"):
                if args.only and args.only != f"{size}-{lang}":
                    continue
                shoot(browser, server.url, size, viewport, lang)
        browser.close()


def shoot(browser, base: str, size: str, viewport: dict[str, int], lang: str) -> None:
    def page_for(token: str):
        ctx = browser.new_context(viewport=viewport)
        cookies = [{"name": "lang", "value": lang, "url": base}]
        if token:
            cookies.append({"name": PLAYER_COOKIE, "value": token, "url": base})
        ctx.add_cookies(cookies)
        return ctx.new_page()

    for game, (line, middle) in LINES.items():
        tag = f"{game}-{size}-{lang}"
        match_id, tokens = build(base, game, line[:middle])
        page = page_for(tokens[middle % 2])
        page.goto(f"{base}/matches/{match_id}")
        engine = games.get(game)
        state = engine.initial()
        for text in line[:middle]:
            state = engine.play(state, text)
        first = engine.clicks(engine.parse_move(state, line[middle]))
        for point in first[: max(1, len(first) - 1)]:
            page.locator(f'#live [data-point="{point}"]').click()
        page.wait_for_timeout(150)
        page.screenshot(path=str(OUT / f"{tag}-playing.png"))
        page.goto(f"{base}/matches/{match_id}?at=3")
        page.screenshot(path=str(OUT / f"{tag}-replay.png"))
        page.context.close()
        done_id, done_tokens = build(base, game, line)
        page = page_for(done_tokens[0])
        page.goto(f"{base}/matches/{done_id}")
        page.screenshot(path=str(OUT / f"{tag}-finished.png"))
        page.context.close()
    waiting_id, waiting_tokens = build(base, "bashni", [], join=False)
    page = page_for(waiting_tokens[0])
    page.goto(f"{base}/matches/{waiting_id}")
    page.screenshot(path=str(OUT / f"waiting-{size}-{lang}.png"))
    page.context.close()
    page = page_for("")
    page.goto(f"{base}/matches/{waiting_id}")
    page.screenshot(path=str(OUT / f"join-{size}-{lang}.png"))
    page.context.close()


if __name__ == "__main__":
    main()
