"""One read and one render per match version, shared by every event stream of a process.

When a move is published, every stream watching the match wakes at once. Without sharing,
each would read the match and each spectator's page would then fetch and render its own
view: a thousand watchers, a thousand reads and renders. Here the first stream to ask for
a (match, version) computes the answer in a worker thread and the others await the same
result; a small bounded cache keeps the latest answers for streams that come late.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class Shared(Generic[T]):
    """Results computed once per key, in a thread, for awaiting callers on any event loop.

    The computation runs in this object's own small thread pool, not in the first
    caller's task, so a watcher that disconnects meanwhile cancels nothing for the others.
    """

    def __init__(self, size: int = 256, threads: int = 4) -> None:
        self.size = size
        self._results: OrderedDict[Hashable, concurrent.futures.Future[T]] = OrderedDict()
        # Re-entrant: a computation that is already done runs its callback at once, inside.
        self._lock = threading.RLock()
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="shared")

    async def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            future = self._results.get(key)
            if future is None:
                future = self._results[key] = self._pool.submit(compute)
                future.add_done_callback(lambda done: self._forget_failure(key, done))
                while len(self._results) > self.size:
                    self._results.popitem(last=False)
            else:
                self._results.move_to_end(key)
        return await asyncio.wrap_future(future)

    def _forget_failure(self, key: Hashable, done: concurrent.futures.Future[T]) -> None:
        # Nobody keeps a failure (a match not found, a database hiccup): ask again next time.
        if done.exception() is not None:
            with self._lock:
                if self._results.get(key) is done:
                    del self._results[key]

    def __len__(self) -> int:
        return len(self._results)


def sse_message(event: str, ident: int, data: str) -> bytes:
    """One server-sent event; every line of ``data`` gets its own ``data:`` field."""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"id: {ident}\nevent: {event}\n{lines}\n".encode()
