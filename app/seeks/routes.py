"""``/api/seeks``: make, list and cancel seeks; a seek's event stream; the home page's panel."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

import games
from app.accounts.identity import signed_in
from app.db import read_session
from app.fanout import sse_message
from app.rate_limits import request_client_hash
from app.ratings.api import current_rating
from app.ratings.rules import category_of
from app.ratings.wiring import check_rated
from app.seeks.schemas import (
    CANCEL_REFUSALS,
    CREATE_REFUSALS,
    LIST_REFUSALS,
    STREAM_REFUSALS,
    OpenSeeks,
    SeekCreate,
    SeekPlaced,
)
from app.seeks.service import SeekService, broker_key
from app.services import clocks as timing
from app.services.errors import Forbidden, Invalid
from app.texts import GUEST, N_
from app.web import ensure_player, page_context, remembered_name, templates, viewer_hash

router = APIRouter(tags=["seeks"])

#: How often a waiting seek's open stream tells the database its creator is still there
#: (well inside service.PRESENCE_GRACE), and re-reads its status: a NOTIFY lost while the
#: listener reconnected costs at most this long.
SEEN_EVERY_SECONDS = 5.0


def service(request: Request) -> SeekService:
    """The app's seek service, made on first use from the match service it builds on."""
    state = request.app.state
    found = getattr(state, "seeks", None)
    if found is None:
        matches = state.matches
        found = state.seeks = SeekService(state.sessions, matches, state.broker.publish, matches.clock)
        notifier = getattr(state, "notifier", None)
        if notifier is not None:
            found.on_paired = notifier.seek_paired
    return found


@router.post(
    "/api/seeks",
    status_code=201,
    response_model=SeekPlaced,
    response_model_exclude_none=True,
    responses=CREATE_REFUSALS,
    operation_id="create_seek",
)
def create_seek(body: SeekCreate, request: Request, response: Response) -> dict[str, object]:
    """Seek an opponent: paired at once with the oldest compatible open seek (same game,
    time control and rated flag, each player inside the other's rating range, never
    yourself), else waiting. A waiting seek's creator hears of its pairing on
    ``GET /api/seeks/{id}/events``; a real-time or untimed seek dies 30 s after that
    stream was last open, a correspondence seek after 7 days."""
    owner = ensure_player(request, response)
    name = body.name or remembered_name(request) or GUEST
    control = body.time_control.model_dump() if body.time_control is not None else None
    rating = rated_seeker(request, body.game, control) if body.rated else None
    placed = service(request).create(
        body.game,
        control,
        body.rated,
        body.rating_range,
        name,
        owner,
        client_key=request_client_hash(request.scope),
        rating=rating,
    )
    return placed.as_dict()


def rated_seeker(request: Request, game: str, control: dict[str, object] | None) -> int:
    """The rating a rated seek is paired by (rounded, the range's scale): 403 for a guest,
    422 with the ratings' reason for a game that is never rated (untimed)."""
    account = signed_in(request)
    if account is None:
        raise Forbidden(N_("rated seeks need an account"))
    try:
        parsed = timing.parse(control)
    except timing.TimeControlError as exc:
        raise Invalid(str(exc)) from None
    kind = parsed.kind if parsed is not None else None
    check_rated(
        signed_in=True, game=game, time_control_kind=kind, against_computer=False, options=None, position=None
    )
    category = category_of(kind)
    if category is None or game not in games.names():
        raise Invalid(
            N_("unknown game %(game)s; the games are %(games)s"),
            game=game[:32],
            games=", ".join(games.names()),
        )
    with read_session(request.app.state.sessions) as db:
        return round(current_rating(db, account.id, game, category))


@router.get("/api/seeks", response_model=OpenSeeks, responses=LIST_REFUSALS, operation_id="list_seeks")
def list_seeks(request: Request) -> dict[str, object]:
    """The open seeks, oldest first (at most 100), and how many players are online per game."""
    seeks = service(request)
    return {"seeks": seeks.open_seeks(viewer_hash(request)), "online": seeks.online()}


@router.delete("/api/seeks/{seek_id}", status_code=204, responses=CANCEL_REFUSALS, operation_id="cancel_seek")
def cancel_seek(seek_id: str, request: Request) -> Response:
    """Cancel this browser's seek; cancelling one already cancelled or expired changes nothing."""
    service(request).cancel(seek_id, viewer_hash(request))
    return Response(status_code=204)


@router.get(
    "/api/seeks/{seek_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, **STREAM_REFUSALS},
    operation_id="seek_events",
)
async def seek_events(seek_id: str, request: Request) -> StreamingResponse:
    """A ``text/event-stream`` for the seek's creator: event ``paired`` with
    ``{"match_id", "url"}`` the moment it pairs, or ``gone`` with ``{"status"}`` once it
    is cancelled or expired; the stream then ends. While open it keeps the seek alive."""
    seeks = service(request)
    viewer = viewer_hash(request)
    await run_in_threadpool(seeks.status_of, seek_id, viewer)  # 404 for anyone else's
    broker = request.app.state.broker
    retry = request.app.state.settings.sse_retry_ms

    async def stream() -> AsyncIterator[bytes]:
        async with broker.subscribe(broker_key(seek_id)) as queue:
            yield f"retry: {retry}\n\n".encode()
            while not broker.closing:  # the process is stopping: the page reconnects elsewhere
                await run_in_threadpool(seeks.seen, seek_id)
                status, match_id = await run_in_threadpool(seeks.status_of, seek_id, viewer)
                if status == "paired":
                    data = json.dumps({"match_id": match_id, "url": f"/matches/{match_id}"})
                    yield sse_message("paired", 1, data)
                    return
                if status not in ("waiting", "pairing"):
                    yield sse_message("gone", 1, json.dumps({"status": status}))
                    return
                try:
                    async with asyncio.timeout(SEEN_EVERY_SECONDS):
                        await queue.get()
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield b": keep-alive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


def _control_words(control: dict[str, object] | None) -> dict[str, object]:
    """The time control for the panel: parsed (its label) and as the form's choice value."""
    parsed = timing.parse(control)
    if parsed is None:
        return {"control": None, "choice": ""}
    if parsed.realtime:
        return {"control": parsed, "choice": f"rt:{parsed.initial_seconds}:{parsed.increment_seconds}"}
    return {"control": parsed, "choice": f"cd:{parsed.days}"}


@router.get("/seeks/panel", response_class=HTMLResponse, include_in_schema=False)
def seeks_panel(request: Request) -> Response:
    """The home page's open seeks and players online, refreshed by htmx."""
    seeks = service(request)
    rows = [{**row, **_control_words(row["time_control"])} for row in seeks.open_seeks(viewer_hash(request))]
    context = page_context(request, seeks=rows, online=seeks.online())
    return templates.TemplateResponse(request, "partials/seeks_list.html", context)
