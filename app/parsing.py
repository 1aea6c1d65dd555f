"""Reading what a client sends (a record, a position) off the event loop, within a cap.

Issue 27: a 13.5 KB record replays for about 0.5 s; parsed in an ``async def`` route it
held the event loop (``/healthz`` answered in 0.49 s at the median during 8 imports), and
a record that made the reader loop forever stopped the whole site. Here the work runs in
a worker thread, at most ``PARSERS`` at once per process (the rest wait their turn
without holding the loop), and a record's replay stops at ``RECORD_SECONDS`` with a
readable refusal (``games.records.RecordTooSlow``, a 422 naming the line it reached).
The size cap is the format's (``games.records.MAX_BYTES``) and the body limit before it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from fastapi import Request

#: Threads per process that read client input at once: the other requests keep the rest.
PARSERS = 2
#: Seconds of CPU one record's replay gets (thread time: a loaded machine does not spend
#: it). 876 plies of same-line Bilsang, about the longest game played here, check in
#: about 0.5 s on this machine.
RECORD_SECONDS = 5.0

T = TypeVar("T")


def _limiter(request: Request) -> anyio.CapacityLimiter:
    state = request.app.state
    limiter = getattr(state, "parse_limiter", None)
    if limiter is None:
        # Made on first use, inside the running loop (anyio binds it to the loop's backend).
        limiter = state.parse_limiter = anyio.CapacityLimiter(PARSERS)
    return limiter


async def off_loop(request: Request, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in a parsing thread; the event loop serves others meanwhile."""
    return await anyio.to_thread.run_sync(call, *args, limiter=_limiter(request))
