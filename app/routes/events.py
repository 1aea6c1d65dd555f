"""Server-Sent Events: every change of a match, with its version as the event id."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.services.matches import MatchService, seat_of
from app.web import viewer_hash

router = APIRouter(tags=["events"])
log = logging.getLogger(__name__)

#: How often a player's open stream records that the player is still there (the
#: abandonment claim needs 60 s of absence, app/services/clocks.py ABANDON_AFTER).
SEEN_EVERY_SECONDS = 10.0


def _event(version: int, ply: int, status: str) -> str:
    data = json.dumps({"version": version, "ply": ply, "status": status})
    return f"id: {version}\nevent: changed\ndata: {data}\n\n"


@router.get("/matches/{match_id}/events", response_class=StreamingResponse)
async def match_events(request: Request, match_id: str) -> StreamingResponse:
    """A ``text/event-stream`` of the match's changes; ``Last-Event-ID`` resumes."""
    matches: MatchService = request.app.state.matches
    match = await run_in_threadpool(matches.get, match_id)
    seat = seat_of(match, viewer_hash(request))
    spectator = seat is None
    seat_id = seat.id if seat is not None else None
    try:
        seen = int(request.headers.get("last-event-id", "0"))
    except ValueError:
        seen = 0
    settings = request.app.state.settings
    broker = request.app.state.broker

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

    async def stream() -> AsyncIterator[str]:
        try:
            async for chunk in events():
                yield chunk
                await still_here()
        finally:
            # The player's absence counts from when the stream ended.
            with contextlib.suppress(Exception):
                await asyncio.shield(still_here(force=True))

    async def events() -> AsyncIterator[str]:
        nonlocal seen
        async with broker.subscribe(match_id, spectator=spectator) as queue:
            yield f"retry: {settings.sse_retry_ms}\n\n"
            version, ply, status = await run_in_threadpool(matches.version_of, match_id)
            if version > seen:
                # Caught up on (re)connection: one event stands for all that was missed.
                seen = version
                yield _event(version, ply, status)
            while True:
                try:
                    version = await asyncio.wait_for(queue.get(), timeout=settings.sse_ping_seconds)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    yield ": keep-alive\n\n"
                    continue
                if version <= seen:
                    continue
                version, ply, status = await run_in_threadpool(matches.version_of, match_id)
                seen = max(version, seen)
                yield _event(version, ply, status)

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)
