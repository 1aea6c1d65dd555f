"""axe-core on every page, at desktop and phone sizes, in English and Spanish (issue 19).

One server and one set of matches per module; each (size, language) pair is one test that
visits every page in a loop, so the suite stays short and runs on any xdist worker. axe-core
comes pinned inside the axe-playwright-python package (dev extra).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.app.conftest import database_url
from tests.live import LiveServer

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
#: A move for each game's first player, so a finished match has a move to replay.
FIRST_MOVES = {"bashni": "c3-d4", "morris": "d2", "bobail": "c3-c4 a1-a4", "bilsang": "h 4,0+ 0,2-"}
BLOCKING = ("serious", "critical")
OPTIONS = "/ (options unfolded)"
#: The error pages.
MISSING = ("/matches/no-such-match", "/rules/no-such-game")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, str, list[str]]]:
    """The server, the player's cookie, and every page to check."""
    folder = tmp_path_factory.mktemp("axe")
    url = database_url(folder)
    live = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "first-legal", "COMPUTER_PROCESSES": "1"})
    live.start()
    with httpx.Client(base_url=live.url, timeout=30) as player, httpx.Client(base_url=live.url) as rival:
        # OPTIONS: the new-match form with its time control and rules unfolded.
        pages = [
            "/",
            OPTIONS,
            "/ladder",
            "/ladder/leaderboard",
            "/records/import",
            *MISSING,
        ]
        finished_of: dict[str, str] = {}
        for game in FIRST_MOVES:
            pages.append(f"/rules/{game}")
            # Not listed: one player may list only 3 seeks (app/fairness.py).
            body = {"game": game, "name": "Ana", "side": "first"}
            if game == "bilsang":
                body["options"] = {}  # FIRST_MOVES' Bilsang move is a free pair
            waiting = player.post("/api/matches", json=body).json()["id"]
            playing = player.post("/api/matches", json={**body, "opponent": {"level": 1}}).json()["id"]
            finished = player.post("/api/matches", json={**body, "opponent": {"level": 1}}).json()["id"]
            moved = player.post(f"/api/matches/{finished}/moves", json={"move": FIRST_MOVES[game], "ply": 0})
            assert moved.status_code == 200, moved.text
            assert player.post(f"/api/matches/{finished}/resign").status_code == 200
            finished_of[game] = finished
            pages += [
                f"/matches/{waiting}",
                f"/matches/{playing}",
                f"/matches/{finished}",
                f"/matches/{finished}?at=0",
                f"/matches/{finished}/analysis",
            ]
        # A timed match against a person (its clocks on the page), and what it leads to.
        timed = {"game": "morris", "name": "Ana", "side": "first", "public": False}
        timed["time_control"] = {"kind": "correspondence", "days": 3}
        clocked = player.post("/api/matches", json=timed).json()["id"]
        joined = rival.post(f"/api/matches/{clocked}/join", json={"name": "Bo"})
        assert joined.status_code == 200, joined.text
        continue_link = re.search(
            r'id="continue-url" readonly value="([^"]+)"', player.get(f"/matches/{clocked}").text
        )
        assert continue_link, "the match page shows no continue link"
        record = player.get(f"/api/matches/{finished_of['morris']}/record").text
        imported = rival.post("/api/records", content=record.encode(), headers={"content-type": "text/plain"})
        assert imported.status_code == 201, imported.text
        pages += [
            f"/matches/{clocked}",
            httpx.URL(continue_link.group(1)).raw_path.decode(),
            f"/records/{imported.json()['id']}",
            "/games",  # every match above is in Ana's list
        ]
        run = player.post("/api/ladder/runs", json={"name": "Ana"})
        assert run.status_code == 201, run.text
        pages.append(f"/ladder/runs/{run.json()['id']}")
        # A ladder game lost, so its run is over: the page's result, then the run's end (issue 34).
        ended = player.post("/api/ladder/runs", json={"name": "Ana"}).json()
        assert player.post(f"/api/matches/{ended['match_id']}/resign").status_code == 200
        pages += [f"/matches/{ended['match_id']}", f"/ladder/runs/{ended['id']}"]
        cookie = player.cookies.get("tablero_player") or next(iter(player.cookies.values()))
        yield live, cookie, pages
    live.stop()


def blocking(results: dict) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + repr([(n["target"], n["failureSummary"]) for n in v["nodes"][:3]])
        for v in results["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", list(SIZES))
def test_no_serious_or_critical_violations(site, browser, size: str, lang: str, shots: Path) -> None:
    live, cookie, pages = site
    context = browser.new_context(viewport=SIZES[size])
    context.add_cookies(
        [
            {"name": "lang", "value": lang, "url": live.url},
            {"name": "tablero_player", "value": cookie, "url": live.url},
        ]
    )
    page = context.new_page()
    axe = Axe()
    found = {}
    for path in pages:
        response = page.goto(live.url + ("/" if path == OPTIONS else path))
        assert response is not None and response.status == (404 if path in MISSING else 200), path
        page.wait_for_load_state("domcontentloaded")
        if path == OPTIONS:
            page.locator("details.more-options").evaluate_all("all => all.forEach(d => { d.open = true; })")
        elif path == "/games":
            assert page.locator(".my-games li").count() >= 10, "My games lists too few matches"
        problems = blocking(axe.run(page).response)
        if problems:
            found[path] = problems
    context.close()
    report = "\n".join(f"{path}: {problem}" for path, problems in found.items() for problem in problems)
    (shots / "axe.txt").write_text(report)
    assert not found, report
