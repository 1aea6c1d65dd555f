"""A stopping process ends its event streams at once.

Event streams never end by themselves. When uvicorn is told to stop (SIGTERM from a
deploy, SIGINT from a terminal) it stops accepting, then waits for the open responses
to finish, up to ``--timeout-graceful-shutdown``, and cancels what is left, logging an
error per stream. So every restart held each browser's stream for those seconds and
filled the log. Here the signal also ends every stream of the process
(``Broker.close_streams``): each answer finishes cleanly, uvicorn's wait ends as soon as
the connections close, and each browser's EventSource reconnects, with its
``Last-Event-ID``, to a process still serving (another replica, or this one restarted).

uvicorn gives an app no word of its shutdown before that wait, so the process's own
signal handlers (uvicorn's) are wrapped while the app runs: each signal ends the streams,
then goes to the handler that was there. Only the main thread can set handlers; an app
started elsewhere (a test client's lifespan) changes nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def streams_end_on_exit(close_streams: Callable[[], None]) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM first call ``close_streams``."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}

    def on_exit(sig: int, frame: FrameType | None) -> None:
        close_streams()
        handler = previous[sig]
        if callable(handler):
            handler(sig, frame)
        elif handler in (signal.SIG_DFL, None):  # nobody caught it: what it would have done
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    for sig in SIGNALS:
        previous[sig] = signal.signal(sig, on_exit)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
