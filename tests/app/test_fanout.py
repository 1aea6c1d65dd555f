"""Spectators' events carry their view, rendered once per version for all of them."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

import app.routes.events as events_route
import games
from app import boards
from app.fanout import Shared, sse_message
from app.web import templates
from tests.app.helpers import MORRIS_WIN, play, started

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: a browser test earlier in the same xdist
    worker leaves Playwright's event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_shared_results_are_computed_once_and_failures_are_not_kept() -> None:
    shared: Shared[int] = Shared(size=2)
    calls: list[str] = []

    def slow(key: str) -> int:
        calls.append(key)
        time.sleep(0.05)
        return len(calls)

    async def many() -> list[int]:
        return await asyncio.gather(*(shared.get("a", lambda: slow("a")) for _ in range(100)))

    assert run(many()) == [1] * 100
    assert calls == ["a"]

    def broken() -> int:
        calls.append("broken")
        raise RuntimeError("the database is away")

    with pytest.raises(RuntimeError):
        run(shared.get("b", broken))
    with pytest.raises(RuntimeError):
        run(shared.get("b", broken))
    assert calls.count("broken") == 2
    for key in "cde":
        run(shared.get(key, lambda: 0))
    assert len(shared) == 2  # bounded: the oldest answers are dropped


def test_a_reserved_result_is_awaited_not_computed_and_a_failed_one_is_forgotten() -> None:
    shared: Shared[int] = Shared()
    computed: list[str] = []

    async def waits_for_the_reservation() -> int:
        waiting = asyncio.ensure_future(shared.get("move", lambda: computed.append("read") or 0))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # it waits for the move's commit, it does not read
        reserved.set_result(7)
        return await waiting

    reserved = shared.reserve("move")
    assert run(waits_for_the_reservation()) == 7
    assert computed == []
    rolled_back = shared.reserve("rolled back")
    rolled_back.set_exception(RuntimeError("rolled back"))
    assert run(shared.get("rolled back", lambda: 3)) == 3  # forgotten: computed afresh


def test_a_result_computed_in_a_route_thread_is_shared_both_ways() -> None:
    """``compute_here`` (a plain route's thread) and ``get`` (an event stream) compute a
    key once between them, whichever comes first; a failure is not kept."""
    shared: Shared[str] = Shared()
    computed: list[str] = []

    def render(who: str) -> str:
        computed.append(who)
        time.sleep(0.1)
        return f"view by {who}"

    # The route first: the stream gets the route's render.
    assert shared.compute_here("v1", lambda: render("route")) == "view by route"
    assert run(shared.get("v1", lambda: render("stream"))) == "view by route"

    # The stream first, still rendering when the route asks: the route waits for it.
    async def stream_then_route() -> tuple[str, str]:
        streaming = asyncio.ensure_future(shared.get("v2", lambda: render("stream")))
        await asyncio.sleep(0.02)
        routed = await asyncio.to_thread(shared.compute_here, "v2", lambda: render("route"))
        return await streaming, routed

    assert run(stream_then_route()) == ("view by stream", "view by stream")
    assert computed == ["route", "stream"]

    def broken() -> str:
        raise RuntimeError("the database is away")

    with pytest.raises(RuntimeError):
        shared.compute_here("v3", broken)
    assert shared.compute_here("v3", lambda: "again") == "again"


def test_an_sse_message_gives_every_line_its_own_data_field() -> None:
    assert sse_message("live", 7, "<a>\n<b>") == b"id: 7\nevent: live\ndata: <a>\ndata: <b>\n\n"


def stream_events(
    url: str, client: httpx.Client, found: list[tuple[str, int, str]], wanted: int, needs: str = "changed"
) -> None:
    """Collect (event, id, data) until ``wanted`` events of each kind it gets, ``needs``
    among them (or 10 s)."""
    with client.stream("GET", url, timeout=10) as response:
        event, ident, data = "", 0, []
        deadline = time.monotonic() + 10
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("id: "):
                ident = int(line[4:])
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and event:
                found.append((event, ident, "\n".join(data)))
                event, data = "", []
                kinds = {e[0] for e in found}
                if all(sum(1 for e in found if e[0] == k) >= wanted for k in kinds | {needs}):
                    return
                if time.monotonic() > deadline:
                    return


def morris_between_ann_and_ben(base: str) -> tuple[httpx.Client, httpx.Client, str, int]:
    """Two browsers of the live server at ``base`` seated at a new Morris match: Ann (white,
    to move) and Ben; the match id and its version."""
    alice, bob = httpx.Client(base_url=base), httpx.Client(base_url=base)
    created = alice.post("/api/matches", json={"game": "morris", "name": "Ann", "side": "first"})
    match_id = created.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"}).raise_for_status()
    return alice, bob, match_id, alice.get(f"/api/matches/{match_id}").json()["version"]


def test_thirty_spectators_cost_one_render_per_version_and_an_api_client_gets_none(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _application = app_in_thread
    renders: list[str] = []
    real = events_route.spectator_view

    def counted(request, match_id, version, lang):  # type: ignore[no-untyped-def]
        renders.append(lang)
        return real(request, match_id, version, lang)

    monkeypatch.setattr(events_route, "spectator_view", counted)
    alice, bob, match_id, version = morris_between_ann_and_ben(base)
    url = f"{base}/matches/{match_id}/events?view=live"

    received: list[list[tuple[str, int, str]]] = [[] for _ in range(30)]
    watchers = [
        threading.Thread(target=stream_events, args=(url, httpx.Client(), found, 2)) for found in received
    ]
    player_events: list[tuple[str, int, str]] = []
    # A client of the JSON API (no view asked for) gets the changes only.
    api_url = f"{base}/matches/{match_id}/events"
    player = threading.Thread(target=stream_events, args=(api_url, bob, player_events, 2))
    for thread in [*watchers, player]:
        thread.start()

    # Every stream subscribed and caught up (its first view) before the move.
    def caught_up() -> bool:
        return bool(player_events) and all(any(e[0] == "live" for e in found) for found in received)

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not caught_up():
        time.sleep(0.05)
    moved = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).json()
    for thread in watchers:
        thread.join(timeout=15)
    player.join(timeout=15)

    for found in received:
        views = [e for e in found if e[0] == "live"]
        assert [ident for _e, ident, _d in views] == [version, moved["version"]]
        html = views[-1][2]
        assert re.search(rf'id="live"[^>]*data-ply="1"[^>]*data-version="{moved["version"]}"', html)
        assert "Ben to move" in html and "(you)" not in html and "data-action" not in html
        assert [ident for e, ident, _d in found if e == "changed"] == [version, moved["version"]]
    assert len(renders) == 2  # the version they connected at, and the move's
    # The player's stream renders nothing: no view was asked for.
    assert [(event, ident) for event, ident, _d in player_events] == [
        ("changed", version),
        ("changed", moved["version"]),
    ]


def page_move_watched(base: str, counters: list[list[Any]]) -> tuple[str, list[str]]:
    """A page's first move with the opponent's page and a spectator's open on the match:
    the match id and the three views of the move's version (the mover's answer, the
    opponent's and the spectator's ``live`` events). ``counters`` are emptied once both
    streams have caught up, just before the move."""
    alice, bob, match_id, version = morris_between_ann_and_ben(base)
    url = f"{base}/matches/{match_id}/events?view=live"
    heard: list[list[tuple[str, int, str]]] = [[], []]
    pages = (httpx.Client(cookies=bob.cookies), httpx.Client())  # the opponent's, a spectator's
    streams = [
        threading.Thread(target=stream_events, args=(url, page, found, 2, "live"))
        for page, found in zip(pages, heard, strict=True)
    ]
    for thread in streams:
        thread.start()
    deadline = time.monotonic() + 15
    while not all(any(e[0] == "live" for e in found) for found in heard):  # caught up: subscribed
        assert time.monotonic() < deadline
        time.sleep(0.02)
    for counter in counters:
        counter.clear()
    answer = alice.post(
        f"/matches/{match_id}/moves", data={"move": "d1", "ply": "0"}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200 and 'data-ply="1"' in answer.text
    for thread in streams:
        thread.join(timeout=15)
    opponent, spectator = ([e for e in found if e[0] == "live"] for found in heard)
    assert [ident for _e, ident, _d in opponent] == [version, version + 1]
    assert [ident for _e, ident, _d in spectator] == [version, version + 1]
    assert "(you)" in opponent[-1][2] and "(you)" not in spectator[-1][2]
    return match_id, [answer.text, opponent[-1][2], spectator[-1][2]]


def test_a_page_move_reads_the_match_once_for_every_view_of_its_version(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mover's answer, the opponent's event and a spectator's event all show the same
    version: one read of the match serves the three renders (each read it before)."""
    base, application = app_in_thread
    matches = application.state.matches
    reads: list[str] = []
    real_view = matches.view

    def counted(match_id, at=None):  # type: ignore[no-untyped-def]
        reads.append(match_id)
        return real_view(match_id, at)

    monkeypatch.setattr(matches, "view", counted)
    match_id, _views = page_move_watched(base, [reads])
    assert reads == [match_id]


def test_a_page_move_renders_its_move_list_once_for_every_view(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The move list is the same for the mover, the opponent and the spectators (same
    version, ply and language), and the part of a view that grows with the game: it is
    rendered once for the three views (once each before), and each view shows it."""
    base, _application = app_in_thread
    asked: list[str] = []
    real = templates.env.get_template

    def counted(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(templates.env, "get_template", counted)
    # Its rows too are made once, by that render, not by each view's context.
    made: list[int] = []
    real_rows = boards.move_rows

    def rows_counted(game, notations):  # type: ignore[no-untyped-def]
        made.append(len(notations))
        return real_rows(game, notations)

    monkeypatch.setattr(boards, "move_rows", rows_counted)
    _match_id, views = page_move_watched(base, [asked, made])
    assert asked.count("partials/moves.html") == 1
    assert made == [1]
    for html in views:
        assert re.search(
            r'<section class="moves"[^>]*>\s*<ol class="move-list">\s*<li><span class="num">1\.</span>'
            r'<a href="[^"]+\?at=1" data-at="1" class="mv current">d1</a></li>',
            html,
        ), html


def test_a_spectator_view_late_in_a_match_parses_no_more_positions_than_early(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view shows the position and the one before it. It used to parse every position
    of the match for them, so a render cost one parse per ply played."""
    morris = games.get("morris")
    parsed: list[str] = []
    real_parse = morris.parse_position

    def counted(text: str):  # type: ignore[no-untyped-def]
        parsed.append(text)
        return real_parse(text)

    monkeypatch.setattr(morris, "parse_position", counted)

    def parses_per_render(match_id: str) -> tuple[int, int]:
        scope = {
            "type": "http",
            "app": app,
            "method": "GET",
            "scheme": "http",
            "server": ("testserver", 80),
            "path": f"/matches/{match_id}/events",
            "root_path": "",
            "query_string": b"view=live",
            "headers": [(b"host", b"testserver")],
        }
        version = TestClient(app).get(f"/api/matches/{match_id}").json()["version"]
        parsed.clear()
        events_route.spectator_view(Request(scope), match_id, version, "en")
        pushed = len(parsed)
        parsed.clear()
        # The same partial fetched by a browser without a seat.
        assert TestClient(app).get(f"/matches/{match_id}/live").status_code == 200
        return pushed, len(parsed)

    match_id = started(alice, bob)
    play(alice, match_id, MORRIS_WIN[0])
    early = parses_per_render(match_id)
    for ply, move in enumerate(MORRIS_WIN[1:-1], start=1):
        play(alice if ply % 2 == 0 else bob, match_id, move)
    late = parses_per_render(match_id)
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == len(MORRIS_WIN) - 1
    assert late == early
    assert max(late) < len(MORRIS_WIN) - 1  # fewer than one a ply played


def read_stream(
    url: str, client: httpx.Client, found: list[tuple[str, int, str]], stop: threading.Event
) -> None:
    """Collect (event, id, data), with ("subscribed", 0, "") once the stream's first line
    (its retry) has come, until ``stop`` is set (checked at each line and keep-alive)."""
    with client.stream("GET", url, timeout=15) as response:
        event, ident, data = "", 0, []
        for line in response.iter_lines():
            if stop.is_set():
                return
            if line.startswith("retry: "):
                found.append(("subscribed", 0, ""))
            elif line.startswith("event: "):
                event = line[7:]
            elif line.startswith("id: "):
                ident = int(line[4:])
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and event:
                found.append((event, ident, "\n".join(data)))
                event, data = "", []


def test_players_get_their_own_view_in_the_event_and_the_movers_is_its_answers_render(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28, one render per version: the opponent's page needs no request to see a
    move (its view comes in the event), and the mover's view is rendered once for both
    the answer to its move and its own stream's event."""
    base, application = app_in_thread
    # Keep-alives every 0.2 s, so a reader can stop.
    application.state.settings = application.state.settings.model_copy(update={"sse_ping_seconds": 0.2})
    renders: list[str] = []
    real = events_route.render_seat

    def counted(request, viewed):  # type: ignore[no-untyped-def]
        renders.append(viewed.match.id)
        return real(request, viewed)

    monkeypatch.setattr(events_route, "render_seat", counted)
    alice, bob = httpx.Client(base_url=base), httpx.Client(base_url=base)
    created = alice.post("/api/matches", json={"game": "morris", "name": "Ann", "side": "first"})
    match_id = created.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"}).raise_for_status()
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    # As the page connects: it already shows ``since``, so nothing is sent on connecting.
    url = f"{base}/matches/{match_id}/events?view=live&since={version}"
    stop = threading.Event()
    seen = {"alice": [], "bob": []}  # type: dict[str, list[tuple[str, int, str]]]
    readers = [
        threading.Thread(target=read_stream, args=(url, alice, seen["alice"], stop)),
        threading.Thread(target=read_stream, args=(url, bob, seen["bob"], stop)),
    ]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(found for found in seen.values()):
        time.sleep(0.02)
    assert all(found == [("subscribed", 0, "")] for found in seen.values()), seen
    assert renders == []

    # Alice moves from her page: the answer is her new view.
    answer = alice.post(
        f"/matches/{match_id}/moves", data={"move": "d1", "ply": "0"}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200
    new_version = alice.get(f"/api/matches/{match_id}").json()["version"]

    def views(who: str) -> list[tuple[str, int, str]]:
        return [e for e in seen[who] if e[0] == "live"]

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (views("alice") and views("bob")):
        time.sleep(0.02)
    time.sleep(0.3)  # anything more would have come by now
    stop.set()
    for reader in readers:
        reader.join(timeout=5)

    (alice_view,) = views("alice")
    (bob_view,) = views("bob")
    assert alice_view[1] == bob_view[1] == new_version
    assert alice_view[2] == answer.text  # the same render
    assert re.search(r'id="live"[^>]*data-ply="1"', bob_view[2])
    assert 'data-my-turn="true"' in bob_view[2] and 'data-seat="b"' in bob_view[2]
    assert 'data-my-turn="false"' in alice_view[2] and 'data-seat="w"' in alice_view[2]
    assert renders == [match_id, match_id]  # one for each browser, none twice


def test_a_render_asks_the_file_system_nothing(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Templates are loaded once: a view rendered again looks up no file's modification
    time (Jinja's default did so for every template a render used)."""
    match_id = started(alice, bob)
    play(alice, match_id, MORRIS_WIN[0])
    assert alice.get(f"/matches/{match_id}/live").status_code == 200
    looked: list[str] = []
    real = os.path.getmtime

    def counted(path):  # type: ignore[no-untyped-def]
        looked.append(str(path))
        return real(path)

    monkeypatch.setattr(os.path, "getmtime", counted)
    page = bob.get(f"/matches/{match_id}/live")
    assert page.status_code == 200 and 'data-ply="1"' in page.text
    assert looked == []
