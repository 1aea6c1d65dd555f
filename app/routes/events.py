"""Server-Sent Events: every change of a match, with its version as the event id."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Literal, cast

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.chat.service import chat_key
from app.events import WATCHERS, Negating
from app.fanout import Shared, sse_message
from app.matches.model import Played, Viewed
from app.matches.service import MatchService
from app.routes.stream_notes import Notes
from app.schemas import refusals
from app.web import language, templates, viewer_hash

router = APIRouter(tags=["events"])
log = logging.getLogger(__name__)

#: How often a player's open stream records that the player is still there (the
#: abandonment claim needs 60 s of absence, app/services/clocks.py ABANDON_AFTER).
SEEN_EVERY_SECONDS = 10.0


@functools.lru_cache(maxsize=1024)
def _event(version: int, ply: int, status: str) -> bytes:
    # Cached: a move's event is the same bytes for each of its (up to thousands of)
    # watchers, and building it was a twentieth of the CPU of sending it to them all.
    data = json.dumps({"version": version, "ply": ply, "status": status})
    return sse_message("changed", version, data)


def _chat_event(line_id: int) -> bytes:
    """Event ``chat``: a room of the match has a new line; the page fetches its rooms as
    its reader may see them. No ``id`` field, so ``Last-Event-ID`` stays the version."""
    return f"event: chat\ndata: {json.dumps({'line': line_id})}\n\n".encode()


def shared(app: FastAPI) -> Shared[object]:
    """This process's once-per-version results, shared by all its event streams."""
    found = getattr(app.state, "shared_events", None)
    if found is None:
        found = app.state.shared_events = Shared(size=512)
    return found


def reserve_move(app: FastAPI, match_id: str, version: int) -> Callable[[Played | None], None]:
    """The ``changed`` event of the version a move is making, from the state it commits:
    the streams of this process then send it without reading the match back.

    Called in the move's transaction, before its commit: on PostgreSQL the commit
    delivers the move's NOTIFY, and this process's listener may wake the streams before
    the move's thread goes on; they then wait for the state instead of reading it. The
    function returned is called after the transaction with the move, or ``None`` if it
    rolled back (the entry is then forgotten).
    """
    future = shared(app).reserve(("state", match_id, version))

    def settle(played: Played | None) -> None:
        if played is None:
            future.set_exception(RuntimeError(f"the move to version {version} was rolled back"))
        else:
            future.set_result((played.version, played.state["ply"], played.state["status"]))

    return settle


def viewed_at(app: FastAPI, match_id: str, version: int) -> Viewed:
    """The match as its pages show it once ``version`` is committed: one read for every
    view of that version in this process (the mover's answer, the opponent's and the
    spectators' events), where each used to read it for itself.

    It may show a later version (a change committed meanwhile), as a read of its own would;
    the views rendered from it are keyed by the version they show."""
    matches: MatchService = app.state.matches
    found = shared(app).compute_here(("viewed", match_id, version), lambda: matches.view(match_id))
    return cast(Viewed, found)


def spectator_view(request: Request, match_id: str, version: int, lang: str) -> bytes:
    """Event ``live``: ``partials/live.html`` as a browser without a seat sees it.

    Rendered for a request with nothing personal in it (no cookie: no seat, no name), so
    that one rendering serves every spectator who reads ``lang``.
    """
    from app.match_view import match_context

    headers = [(k, v) for k, v in request.scope["headers"] if k == b"host"]
    anonymous = Request({**request.scope, "headers": [*headers, (b"accept-language", lang.encode())]})
    viewed = viewed_at(request.app, match_id, version)
    html = templates.get_template("partials/live.html").render(match_context(anonymous, viewed))
    return sse_message("live", viewed.match.version, html)


def seat_key(request: Request, match_id: str, version: int) -> tuple[str, str, int, str | None, str]:
    """The key of one browser's view of a version: the view depends on the seat (its
    side, its continue link) and the language, and on nothing else of the request."""
    return ("seat-live", match_id, version, viewer_hash(request), language(request))


def render_seat(request: Request, viewed: Viewed) -> tuple[int, str]:
    """``partials/live.html`` as this browser sees ``viewed``, and the version shown."""
    from app.match_view import match_context

    html = templates.get_template("partials/live.html").render(match_context(request, viewed))
    return viewed.match.version, html


def seat_view(request: Request, viewed: Viewed) -> str:
    """The match page's answer to its own move or action: the browser's new view.

    The same render is that browser's ``live`` event of the version (issue 28: one render
    per version and browser): whichever of the two asks first renders it, the other waits
    for it. Only for the latest position with nothing pending (no taps, no error), which
    is what an event shows."""
    key = seat_key(request, viewed.match.id, viewed.match.version)
    found = shared(request.app).compute_here(key, lambda: render_seat(request, viewed))
    return cast(tuple[int, str], found)[1]


@router.get(
    "/matches/{match_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, **refusals(404, 422, 429, 503)},
)
async def match_events(
    request: Request,
    match_id: str,
    view: Literal["live"] | None = None,
    since: Annotated[
        int | None,
        Query(ge=0, description="The version the page already shows: nothing older is sent on connecting."),
    ] = None,
) -> StreamingResponse:
    """A ``text/event-stream`` of the match's changes; ``Last-Event-ID`` (or ``since``)
    resumes: a change at or before it is not sent again.

    Every change is event ``changed`` with ``{version, ply, status}``; a new chat line
    in either room is event ``chat`` with ``{"line": id}`` (no id field). With ``view=live``
    each change also comes as event ``live`` carrying the match page's changing part as
    this browser sees it (HTML, swapped in by the page): a spectator's view is rendered
    once per version for all of them, a player's once per version for that browser and
    shared with the answer to its own move, so no page fetches its view because of an
    event (issue 28).
    """
    matches: MatchService = request.app.state.matches
    seat_id = await run_in_threadpool(matches.seat_id_of, match_id, viewer_hash(request))
    spectator = seat_id is None
    push_view = view == "live"
    lang = language(request)
    try:
        seen = int(request.headers.get("last-event-id", "0"))
    except ValueError:
        seen = 0
    seen = max(seen, since or 0)
    settings = request.app.state.settings
    broker = request.app.state.broker
    once = shared(request.app)

    async def changed(heard: int) -> tuple[int, bytes]:
        """The event for a version heard from the broker, read once for every stream."""
        key = ("state", match_id, heard)
        read = await once.get(key, lambda: matches.version_of(match_id))
        version, ply, status = cast(tuple[int, int, str], read)
        return version, _event(version, ply, status)

    async def live_view(version: int) -> bytes:
        if spectator:
            key = ("live", match_id, version, lang)
            return cast(bytes, await once.get(key, lambda: spectator_view(request, match_id, version, lang)))
        # A player's own view, shared with the answer to its own move (seat_view).
        found = await once.get(
            seat_key(request, match_id, version),
            lambda: render_seat(request, viewed_at(request.app, match_id, version)),
        )
        shown, html = cast(tuple[int, str], found)
        return sse_message("live", shown, html)

    last_seen = 0.0

    async def still_here(force: bool = False) -> None:
        nonlocal last_seen
        if seat_id is None or (not force and time.monotonic() - last_seen < SEEN_EVERY_SECONDS):
            return
        last_seen = time.monotonic()
        try:
            await run_in_threadpool(matches.seen, seat_id)
        except Exception:  # presence is a courtesy; the stream goes on without it
            log.exception("could not record that seat %s is here", seat_id)

    async def stream() -> AsyncIterator[bytes]:
        try:
            async for chunk in events():
                yield chunk
                await still_here()
        finally:
            # The player's absence counts from when the stream ended.
            with contextlib.suppress(Exception):
                await asyncio.shield(still_here(force=True))

    lines_told: deque[int] = deque(maxlen=32)
    # What changes without a version (the claim, the spectators' count, the challenges
    # badge) comes this way too, so the page asks for nothing (app/routes/stream_notes.py).
    notes = await Notes.of(request, match_id, seat_id) if push_view else None

    async def events() -> AsyncIterator[bytes]:
        nonlocal seen
        async with (
            broker.subscribe(match_id, spectator=spectator) as queue,
            # The chat's new lines come into the same queue, negated (app.events.Negating).
            broker.subscribe(chat_key(match_id), queue=Negating(queue)),
        ):
            yield f"retry: {settings.sse_retry_ms}\n\n".encode()
            version, ply, status = await run_in_threadpool(matches.version_of, match_id)
            if version > seen:
                # Caught up on (re)connection: one event stands for all that was missed.
                seen = version
                event = _event(version, ply, status)
                yield event + await live_view(version) if push_view else event
            quiet_since = time.monotonic()
            while not broker.closing:  # the process is stopping: the page reconnects elsewhere
                ping_at = quiet_since + settings.sse_ping_seconds
                look_at = notes.next_at() if notes is not None else None
                if look_at is not None and look_at <= time.monotonic():
                    assert notes is not None
                    if told := await notes.due():
                        quiet_since = time.monotonic()
                        yield told
                    continue
                try:
                    async with asyncio.timeout(min(ping_at, look_at or ping_at) - time.monotonic()):
                        version = await queue.get()
                except TimeoutError:
                    if time.monotonic() < ping_at:
                        continue  # a look is due
                    if await request.is_disconnected():
                        return
                    yield b": keep-alive\n\n"
                    quiet_since = time.monotonic()
                    continue
                if broker.closing:
                    return
                if version < 0:
                    # On PostgreSQL a line said in this process is heard twice (told
                    # here, then its NOTIFY): one event a line is enough.
                    if -version not in lines_told:
                        lines_told.append(-version)
                        quiet_since = time.monotonic()
                        yield _chat_event(-version)
                    continue
                if version == WATCHERS:
                    if notes is not None and (told := notes.count(broker.spectators(match_id))):
                        quiet_since = time.monotonic()
                        yield told
                    continue
                if version <= seen:
                    continue
                version, event = await changed(version)
                seen = max(version, seen)
                quiet_since = time.monotonic()
                # One write per watcher and change: both events in one chunk.
                yield event + await live_view(version) if push_view else event
                if notes is not None:
                    notes.view_sent()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
