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


class _Entry(Generic[T]):
    __slots__ = ("future", "local")

    def __init__(self, future: concurrent.futures.Future[T]) -> None:
        self.future = future
        #: the same result as an asyncio future of each event loop that awaits it
        self.local: dict[asyncio.AbstractEventLoop, asyncio.Future[T]] = {}


class Shared(Generic[T]):
    """Results computed once per key, in a thread, for awaiting callers on any event loop.

    The computation runs in this object's own small thread pool, not in the first
    caller's task, so a watcher that disconnects meanwhile cancels nothing for the others.
    A thousand callers on one event loop share one asyncio future (one hand-over from the
    thread to the loop, not a thousand), each awaiting it through a shield.
    """

    def __init__(self, size: int = 256, threads: int = 4) -> None:
        self.size = size
        self._results: OrderedDict[Hashable, _Entry[T]] = OrderedDict()
        # Re-entrant: a computation that is already done runs its callback at once, inside.
        self._lock = threading.RLock()
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="shared")

    async def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._results.get(key)
            if entry is None:
                entry = self._results[key] = _Entry(self._pool.submit(compute))
                entry.future.add_done_callback(lambda done: self._forget_failure(key, done))
                while len(self._results) > self.size:
                    self._results.popitem(last=False)
            else:
                self._results.move_to_end(key)
            future = entry.future
            if future.done() and future.exception() is None:
                return future.result()
            local = entry.local.get(loop)
            if local is None:
                local = entry.local[loop] = asyncio.wrap_future(future)
        return await asyncio.shield(local)

    def reserve(self, key: Hashable) -> concurrent.futures.Future[T]:
        """A future the caller resolves itself, kept as the result for ``key``: callers of
        ``get`` meanwhile wait for it instead of computing. A change reserves the state it
        is making before its commit and sets it after; if it fails, the failure is
        forgotten like any other. A result already there or under way is kept (the
        future returned then goes nowhere)."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if key in self._results:
                return future
            self._results[key] = _Entry(future)
            while len(self._results) > self.size:
                self._results.popitem(last=False)
        future.add_done_callback(lambda done: self._forget_failure(key, done))
        return future

    def compute_here(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The result for ``key`` from a worker thread (a plain route): computed in the
        calling thread unless it is already there or under way, then kept for ``get``.

        A move's own answer renders the mover's new view this way, and the mover's event
        stream, woken by the same move, waits for that render instead of making its own."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            entry = self._results.get(key)
            if entry is None:
                self._results[key] = _Entry(future)
                while len(self._results) > self.size:
                    self._results.popitem(last=False)
            else:
                self._results.move_to_end(key)
        if entry is not None:
            return entry.future.result()
        future.add_done_callback(lambda done: self._forget_failure(key, done))
        try:
            result = compute()
        except BaseException as exc:
            future.set_exception(exc)
            raise
        future.set_result(result)
        return result

    def _forget_failure(self, key: Hashable, done: concurrent.futures.Future[T]) -> None:
        # Nobody keeps a failure (a match not found, a database hiccup): ask again next time.
        if done.exception() is not None:
            with self._lock:
                entry = self._results.get(key)
                if entry is not None and entry.future is done:
                    del self._results[key]

    def __len__(self) -> int:
        return len(self._results)


def sse_message(event: str, ident: int | None, data: str) -> bytes:
    """One server-sent event; every line of ``data`` gets its own ``data:`` field. Without
    an ``ident`` the event has no ``id:`` (the stream's Last-Event-ID stays as it was)."""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    head = "" if ident is None else f"id: {ident}\n"
    return f"{head}event: {event}\n{lines}\n".encode()
