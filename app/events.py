"""Publish/subscribe of "match changed" events.

A change is just (match id, version): subscribers re-read the match, so a
missed event costs nothing but a refetch. This in-process broker serves one
process; ``app.pg_events`` carries the same events between processes.

A subscriber's queue also hears ``WATCHERS`` (0, never a version) when the number of
spectators of its match changed, at most once per ``WATCHERS_EVERY`` seconds: a page
shows the count without asking for it, and a thousand arrivals cost each watcher one
event, not a thousand.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager

#: What a queue hears when its match's count of spectators changed (versions start at 1).
WATCHERS = 0
#: Arrivals and departures within this many seconds are told as one change.
WATCHERS_EVERY = 1.0


class Broker:
    def __init__(self) -> None:
        # Each subscriber: its event loop, its queue, and whether it watches unseated.
        self._subscribers: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int], bool]]] = (
            defaultdict(set)
        )
        self._lock = threading.Lock()
        # Matches whose spectator count changed and will be told (loop.call_later).
        self._counting: set[str] = set()
        #: Called with a match's id as its changed count is told here (app.pg_events
        #: tells the other processes); on this broker's event loop, so it must not block.
        self.on_count: Callable[[str], None] | None = None
        #: The process is stopping: every event stream ends (``close_streams``).
        self.closing = False

    def publish(self, match_id: str, version: int) -> None:
        """Tell every subscriber of ``match_id``; safe to call from any thread."""
        with self._lock:
            targets = list(self._subscribers.get(match_id, ()))
        _wake(targets, version)

    def close_streams(self) -> None:
        """Ends every event stream of this process: ``closing`` is set and each
        subscriber woken (with ``WATCHERS``, which tells nothing by itself), so each
        stream sees it and ends, its browser reconnecting (with ``Last-Event-ID``) to a
        process still serving. Safe from a signal handler and any thread
        (app/draining.py)."""
        self.closing = True
        with self._lock:
            targets = [entry for entries in self._subscribers.values() for entry in entries]
        _wake(targets, WATCHERS)

    def spectators(self, match_id: str) -> int:
        """Open event streams on ``match_id`` from browsers without a seat in it."""
        with self._lock:
            return _watching(self._subscribers.get(match_id, ()))

    def spectated(self) -> dict[str, int]:
        """Every match with spectators' streams open here, and how many."""
        with self._lock:
            counts = {key: _watching(found) for key, found in self._subscribers.items()}
        return {key: count for key, count in counts.items() if count}

    @asynccontextmanager
    async def subscribe(
        self, match_id: str, spectator: bool = False, queue: asyncio.Queue[int] | None = None
    ) -> AsyncIterator[asyncio.Queue[int]]:
        """Events of ``match_id`` (any key: ``seek:<id>``, ``chat:<id>``) into a new queue,
        or into ``queue`` (one stream may hear several keys)."""
        queue = queue if queue is not None else asyncio.Queue()
        entry = (asyncio.get_running_loop(), queue, spectator)
        with self._lock:
            self._subscribers[match_id].add(entry)
        if spectator:
            self._count_changed(match_id)
        try:
            yield queue
        finally:
            with self._lock:
                subscribers = self._subscribers.get(match_id)
                if subscribers is not None:
                    subscribers.discard(entry)
                    if not subscribers:
                        del self._subscribers[match_id]
            if spectator:
                self._count_changed(match_id)

    def _count_changed(self, match_id: str) -> None:
        """Tell the match's subscribers ``WATCHERS`` once, ``WATCHERS_EVERY`` from now."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a stream closed by the collector): nobody to tell
            return
        with self._lock:
            if match_id in self._counting:
                return
            self._counting.add(match_id)
        loop.call_later(WATCHERS_EVERY, self._tell_count, match_id)

    def _tell_count(self, match_id: str) -> None:
        with self._lock:
            self._counting.discard(match_id)
        if self.on_count is not None:
            self.on_count(match_id)
        self.publish(match_id, WATCHERS)


class Negating(asyncio.Queue[int]):
    """Hands what it is given to ``target`` negated: subscribed to a second key, it lets
    one queue tell that key's events (negative) from its own (versions are positive)."""

    def __init__(self, target: asyncio.Queue[int]) -> None:
        super().__init__()
        self.target = target

    def put_nowait(self, item: int) -> None:
        self.target.put_nowait(-item)


def _watching(subscribers: Iterable[tuple[object, object, bool]]) -> int:
    """How many of a key's subscribers watch unseated (spectators)."""
    return sum(1 for _loop, _queue, spectator in subscribers if spectator)


def _wake(targets: Iterable[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int], bool]], value: int) -> None:
    """Puts ``value`` in each subscriber's queue, from any thread. One wake-up per event
    loop, not per subscriber: a thousand watchers of a match cost one hand-over to their
    loop, which then fills their queues."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Queue[int]]] = defaultdict(list)
    for loop, queue, _spectator in targets:
        by_loop[loop].append(queue)
    for loop, queues in by_loop.items():
        # RuntimeError: that subscriber's loop is already closed.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(_deliver, queues, value)


def _deliver(queues: list[asyncio.Queue[int]], version: int) -> None:
    for queue in queues:
        queue.put_nowait(version)
