"""Screenshots of every page for looking at (and for docs/screenshots/).

Every game while playing (a piece selected), waiting, finished and in replay, and every
other page (home, the new-match form unfolded, ladder, a run, leaderboard, rules, my games,
import, a review, a missing page), at 1280×800 and 390×844, in English and Spanish, into
test-output/screenshots/. Matches are built through the JSON API, then opened in headless
Chromium. The other pages are shot whole, with a red line where the first screen ends;
overflow.txt lists every page wider than its window.

    .venv/bin/python bench/screenshots.py [--only desktop-en,phone-es] [--docs]

``--docs`` also refreshes the few pictures the README shows, in docs/screenshots/.
"""

from __future__ import annotations

import argparse
import shutil

import httpx
from harness import ROOT, served  # bench/ is on sys.path; it puts the checkout there too
from playwright.sync_api import sync_playwright

import games
from app.services.tokens import PLAYER_COOKIE
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, bilsang_quiet_game
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

OUT = ROOT / "test-output" / "screenshots"
DOCS = ROOT / "docs" / "screenshots"
#: The README's pictures: (file in docs/screenshots/, the shot it copies).
DOC_SHOTS = {
    "home-desktop-en.png": "site-home-desktop-en-top.png",
    "home-phone-es.png": "site-home-phone-es-top.png",
    "ladder-leaderboard-phone-es.png": "site-leaderboard-phone-es-top.png",
    "rules-morris-desktop-es.png": "site-rules-morris-desktop-es-top.png",
    "match-bashni-desktop.png": "bashni-desktop-en-playing.png",
    "match-morris-phone-es.png": "morris-phone-es-playing.png",
    "match-invite-phone-es.png": "waiting-phone-es.png",
}
#: Drawn over a whole-page shot at the height of the window: what is above it needs no scrolling.
FOLD = """(height) => {
    const line = document.createElement("div");
    line.style.cssText = `position:absolute;left:0;right:0;top:${height}px;z-index:9999;`
        + "border-top:2px dashed red;pointer-events:none";
    document.body.appendChild(line);
}"""
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
    parser.add_argument("--docs", action="store_true", help="refresh docs/screenshots/ too")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    overflow: list[str] = []
    with served() as server, sync_playwright() as p:
        site = site_fixtures(server.url)
        built = matches(server.url)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for size, viewport in SIZES.items():
            for lang in ("en", "es"):
                if args.only and f"{size}-{lang}" not in args.only.split(","):
                    continue
                overflow += shoot_site(browser, server.url, site, size, viewport, lang)
                shoot(browser, server.url, built, size, viewport, lang)
        browser.close()
    (OUT / "overflow.txt").write_text("".join(f"{line}\n" for line in overflow))
    print("\n".join(overflow) or "no page scrolls sideways")
    if args.docs:
        for name, shot in DOC_SHOTS.items():
            if (OUT / shot).exists():
                shutil.copyfile(OUT / shot, DOCS / name)


def site_fixtures(url: str) -> dict[str, str]:
    """Something on every page: a finished match with its review asked for, a run, an import."""
    with httpx.Client(base_url=url, timeout=30) as ann, httpx.Client(base_url=url) as ben:
        created = ann.post(
            "/api/matches", json={"game": "bashni", "name": "Ana", "side": "first", "public": True}
        )
        finished = created.json()["id"]
        ben.post(f"/api/matches/{finished}/join", json={"name": "Benito"}).raise_for_status()
        for ply, text in enumerate(BASHNI_WIN):
            (ann, ben)[ply % 2].post(f"/api/matches/{finished}/moves", json={"move": text, "ply": ply})
        ann.post(f"/matches/{finished}/review", headers={"HX-Request": "true"})
        waiting = ann.post(
            "/api/matches", json={"game": "morris", "name": "Ana", "side": "first", "public": True}
        )
        playing = ann.post(
            "/api/matches", json={"game": "bobail", "name": "Ana", "side": "first", "public": True}
        )
        ben.post(f"/api/matches/{playing.json()['id']}/join", json={"name": "Benito"})
        assert waiting.status_code == 201
        run = ann.post("/api/ladder/runs", json={"name": "Ana"}).json()
        ann.post(f"/api/matches/{run['match_id']}/resign")
        imported = ann.post(
            "/records/import", data={"text": " ".join(BASHNI_WIN), "game": "bashni"}, follow_redirects=False
        )
        return {
            "token": ann.cookies.get(PLAYER_COOKIE, ""),
            "run": run["id"],
            "review": f"/matches/{finished}/analysis",
            "record": imported.headers.get("location", "/records/import"),
        }


def shoot_site(
    browser, base: str, site: dict[str, str], size: str, viewport: dict[str, int], lang: str
) -> list[str]:
    ctx = browser.new_context(viewport=viewport)
    ctx.add_cookies(
        [
            {"name": "lang", "value": lang, "url": base},
            {"name": PLAYER_COOKIE, "value": site["token"], "url": base},
        ]
    )
    page = ctx.new_page()
    pages = {
        "home": "/",
        "new-match": "/",
        "ladder": "/ladder",
        "run": f"/ladder/runs/{site['run']}",
        "leaderboard": "/ladder/leaderboard",
        **{f"rules-{game}": f"/rules/{game}" for game in LINES},
        "games": "/games",
        "import": "/records/import",
        "review": site["review"],
        "record": site["record"],
        "404": "/no/such/page",
        "match-404": "/matches/nosuchmatch",
    }
    wide = []
    for label, path in pages.items():
        page.goto(base + path)
        if label == "new-match":
            for details in page.locator("details.more-options").all():
                details.locator("summary").click()
        page.wait_for_timeout(150)
        extra = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if extra > 0:
            wide.append(f"{label}-{size}-{lang}: {extra} px wider than the window")
        page.screenshot(path=str(OUT / f"site-{label}-{size}-{lang}-top.png"))
        page.evaluate(FOLD, viewport["height"])
        page.screenshot(path=str(OUT / f"site-{label}-{size}-{lang}.png"), full_page=True)
    ctx.close()
    return wide


def matches(base: str) -> dict[str, tuple[str, list[str]]]:
    """The matches every (size, language) pair is shot on, built once: taps in a page post nothing."""
    built = {}
    for game, (line, middle) in LINES.items():
        built[f"{game}-playing"] = build(base, game, line[:middle])
        built[f"{game}-finished"] = build(base, game, line)
    built["waiting"] = build(base, "bashni", [], join=False)
    return built


def shoot(browser, base: str, built: dict, size: str, viewport: dict[str, int], lang: str) -> None:
    def page_for(token: str):
        ctx = browser.new_context(viewport=viewport)
        cookies = [{"name": "lang", "value": lang, "url": base}]
        if token:
            cookies.append({"name": PLAYER_COOKIE, "value": token, "url": base})
        ctx.add_cookies(cookies)
        return ctx.new_page()

    for game, (line, middle) in LINES.items():
        tag = f"{game}-{size}-{lang}"
        match_id, tokens = built[f"{game}-playing"]
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
        done_id, done_tokens = built[f"{game}-finished"]
        page = page_for(done_tokens[0])
        page.goto(f"{base}/matches/{done_id}")
        page.screenshot(path=str(OUT / f"{tag}-finished.png"))
        page.context.close()
    waiting_id, waiting_tokens = built["waiting"]
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
