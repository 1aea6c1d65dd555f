"""Server-Sent Events: every change of a match, with its version as the event id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from app.schemas import refusals
from app.services.matches import MatchService, seat_of
from app.web import viewer_hash

router = APIRouter(tags=["events"])


def _event(version: int, ply: int, status: str) -> str:
    data = json.dumps({"version": version, "ply": ply, "status": status})
    return f"id: {version}\nevent: changed\ndata: {data}\n\n"


@router.get(
    "/matches/{match_id}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, **refusals(404, 429, 503)},
)
async def match_events(request: Request, match_id: str) -> StreamingResponse:
    """A ``text/event-stream`` of the match's changes; ``Last-Event-ID`` resumes."""
    matches: MatchService = request.app.state.matches
    match = await run_in_threadpool(matches.get, match_id)
    spectator = seat_of(match, viewer_hash(request)) is None
    try:
        seen = int(request.headers.get("last-event-id", "0"))
    except ValueError:
        seen = 0
    settings = request.app.state.settings
    broker = request.app.state.broker

    async def stream() -> AsyncIterator[str]:
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
