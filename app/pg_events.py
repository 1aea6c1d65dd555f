""" "Match changed" across processes: PostgreSQL LISTEN/NOTIFY in front of the in-process broker.

``PgBroker`` has the interface of ``app.events.Broker``. Each process runs one:

- ``publish(match_id, version)`` tells this process's own subscribers at once, then sends
  ``NOTIFY tablero_match, 'match_id:version'`` on a pooled connection of the app's engine
  (safe from any thread). A failure to notify is logged, never raised: the move is already
  committed, and the listeners' resynchronisation below catches the others up.
- ``notify(conn, match_id, version)`` sends the same NOTIFY inside the caller's own
  transaction instead (it then reaches the others at its commit, and not at all if it
  rolls back); ``notice`` gives its channel and payload to a caller that sends it by other
  means (a move, in its pipeline). The caller tells this process's subscribers through
  ``local``.
- one listener thread per process holds its own autocommit psycopg connection doing
  ``LISTEN tablero_match`` and hands every notification to a local ``Broker``, whose
  subscribers (the SSE streams of this process) are served by the existing code. The thread
  reconnects when the connection fails; after every (re)connection it re-reads the version
  of each match watched in this process and publishes it locally, so notifications lost
  while it was away cost one refetch, not a stale board.

Every process also hears its own notifications: the duplicate is harmless, since a
subscriber ignores versions it has already seen.

``spectators(match_id)`` counts the spectators' open event streams of every process. Each
process tells the others its own count of a match when it changes (``NOTIFY
tablero_watchers, '<process> <count> <match_id>'``, sent by the listener thread at most
``poll_seconds`` after the in-process broker tells its own streams) and all its counts again
every ``count_seconds``; a process asks the others for theirs when it (re)connects
(``'<process> ?'``), and forgets a count not heard again within three times that (a
process that died without saying so). What it hears of a match it tells its own streams
(``WATCHERS``), so a page shows the whole count.

Start and stop the listener with the app's lifespan (``async with listening(broker)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine, text

from app.events import WATCHERS, Broker
from app.models import Match

log = logging.getLogger(__name__)

CHANNEL = "tablero_match"
#: The spectators' counts of each process (module docstring).
WATCHERS_CHANNEL = "tablero_watchers"
NOTIFY = text("SELECT pg_notify(:channel, :payload)")


def encode(match_id: str, version: int) -> str:
    return f"{match_id}:{version}"


def decode(payload: str) -> tuple[str, int] | None:
    """``(match_id, version)`` from a notification's payload, or None if it is not one."""
    match_id, _, version = payload.rpartition(":")
    if not match_id or not version.isdigit():
        return None
    return match_id, int(version)


class PgBroker:
    """A ``Broker`` whose events reach every process listening on the same database."""

    def __init__(
        self,
        engine: Engine,
        *,
        poll_seconds: float = 0.5,
        reconnect_seconds: tuple[float, float] = (0.2, 5.0),
        health_seconds: float = 30.0,
        count_seconds: float = 20.0,
    ) -> None:
        if engine.dialect.name != "postgresql":
            raise ValueError(f"PgBroker needs PostgreSQL, not {engine.dialect.name}")
        self.engine = engine
        self.local = Broker()
        #: How often the listener looks up from waiting to check whether it should stop.
        self.poll_seconds = poll_seconds
        #: First and longest pause before reconnecting (doubling in between).
        self.reconnect_seconds = reconnect_seconds
        #: Idle time after which the listener checks its connection with a query.
        self.health_seconds = health_seconds
        #: How often this process tells all its spectators' counts again; a count of
        #: another process not heard within three times this is forgotten.
        self.count_seconds = count_seconds
        #: This process among the others, in the counts it tells.
        self.process = secrets.token_hex(6)
        self.local.on_count = self._count_changed
        # Other processes' counts: match -> process -> (count, time.monotonic() heard).
        self._remote: dict[str, dict[str, tuple[int, float]]] = {}
        # This process's counts to tell (matches changed since the listener last told),
        # what it told last, and when it last told them all.
        self._to_tell: set[str] = set()
        self._told: dict[str, int] = {}
        self._all_told_at = 0.0
        # The same connection parameters SQLAlchemy gives psycopg, for the listener's own.
        _args, params = engine.dialect.create_connect_args(engine.url)
        self._connect_params: dict[str, Any] = {
            "application_name": "tablero-listener",
            "connect_timeout": 10,  # an unreachable server must not stall stop() or retries
            **params,
        }
        self._watched: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        #: Times the listener has (re)connected, and its server process; read by tests.
        self.connections = 0
        self.backend_pid: int | None = None

    # ------------------------------------------------------------- interface

    def publish(self, match_id: str, version: int) -> None:
        """Tell every subscriber of ``match_id`` in every process; safe to call from any thread."""
        self.local.publish(match_id, version)
        try:
            with self.engine.connect() as conn:
                self.notify(conn, match_id, version)
                conn.commit()
        except Exception:
            log.warning("could not NOTIFY match %s at version %s", match_id, version, exc_info=True)

    def notify(self, conn: Connection, match_id: str, version: int) -> None:
        """Send the NOTIFY of ``(match_id, version)`` in ``conn``'s transaction: PostgreSQL
        delivers it to every listener when that transaction commits, and drops it if it
        rolls back. The caller then tells this process's own subscribers (``local``)."""
        conn.execute(NOTIFY, {"channel": CHANNEL, "payload": encode(match_id, version)})

    @staticmethod
    def notice(match_id: str, version: int) -> tuple[str, str]:
        """The (channel, payload) of ``notify``'s NOTIFY, for a caller that sends it in
        its own transaction by other means (the move path's pipeline)."""
        return CHANNEL, encode(match_id, version)

    @property
    def closing(self) -> bool:
        """This process is stopping: its event streams end (``Broker.close_streams``)."""
        return self.local.closing

    def close_streams(self) -> None:
        """Ends this process's event streams; the other processes' go on."""
        self.local.close_streams()

    def spectators(self, match_id: str) -> int:
        """Event streams on ``match_id`` without a seat, in every process."""
        with self._lock:
            others = sum(count for count, _heard in self._remote.get(match_id, {}).values())
        return self.local.spectators(match_id) + others

    @asynccontextmanager
    async def subscribe(
        self, match_id: str, spectator: bool = False, queue: asyncio.Queue[int] | None = None
    ) -> AsyncIterator[asyncio.Queue[int]]:
        with self._lock:
            self._watched[match_id] += 1
        try:
            async with self.local.subscribe(match_id, spectator=spectator, queue=queue) as found:
                yield found
        finally:
            with self._lock:
                self._watched[match_id] -= 1
                if self._watched[match_id] <= 0:
                    del self._watched[match_id]

    # ------------------------------------------------------------- lifecycle

    def start(self, wait_seconds: float = 10.0) -> bool:
        """Start the listener thread; wait until it listens (True) or ``wait_seconds`` pass."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._ready.clear()
            self._thread = threading.Thread(target=self._run, name="tablero-pg-listener", daemon=True)
            self._thread.start()
        if not self._ready.wait(wait_seconds):
            log.warning("the PostgreSQL listener is not connected yet; it keeps trying")
            return False
        return True

    def stop(self, wait_seconds: float = 5.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(wait_seconds)

    @property
    def listening(self) -> bool:
        return self._ready.is_set()

    # ------------------------------------------------------------- listener

    def _run(self) -> None:
        delay = self.reconnect_seconds[0]
        while not self._stop.is_set():
            try:
                with psycopg.connect(**self._connect_params, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {WATCHERS_CHANNEL}")
                    self.connections += 1
                    self.backend_pid = conn.info.backend_pid
                    self._resync(conn)
                    # Ours may have been forgotten while away; theirs are unknown here.
                    self._all_told_at = 0.0
                    self._tell(conn, f"{self.process} ?")
                    self._ready.set()
                    delay = self.reconnect_seconds[0]
                    self._listen(conn)
            except Exception as exc:
                if self._stop.is_set():
                    break
                log.warning("PostgreSQL listener lost (%s); reconnecting in %.1fs", exc, delay)
            finally:
                self._ready.clear()
            if self._stop.wait(delay):
                break
            delay = min(delay * 2, self.reconnect_seconds[1])

    def _listen(self, conn: psycopg.Connection[Any]) -> None:
        idle = 0.0
        while not self._stop.is_set():
            heard = False
            for notify in conn.notifies(timeout=self.poll_seconds):
                heard = True
                if notify.channel == WATCHERS_CHANNEL:
                    self._heard_count(notify.payload)
                    continue
                event = decode(notify.payload)
                if event is not None:
                    self.local.publish(*event)
            # Not inside the loop above: notifies() holds the connection meanwhile.
            self._tell_counts(conn)
            idle = 0.0 if heard else idle + self.poll_seconds
            if idle >= self.health_seconds:
                # A dead server or a half-open socket shows up as an error here.
                conn.execute("SELECT 1")
                idle = 0.0

    # ------------------------------------------------------------- spectators' counts

    def _count_changed(self, match_id: str) -> None:
        """The in-process broker told its streams a new count: tell the others too (the
        listener thread does, soon; this runs on an event loop)."""
        with self._lock:
            self._to_tell.add(match_id)

    def _tell_counts(self, conn: psycopg.Connection[Any]) -> None:
        """On the listener thread: this process's changed counts, or all of them when
        ``count_seconds`` have passed or another process asked; forget the others'
        counts not heard again in time."""
        now = time.monotonic()
        every = now - self._all_told_at >= self.count_seconds
        with self._lock:
            changed, self._to_tell = self._to_tell, set()
            stale = [
                (match_id, process)
                for match_id, found in self._remote.items()
                for process, (_count, heard) in found.items()
                if now - heard > 3 * self.count_seconds
            ]
            for match_id, process in stale:
                self._forget(match_id, process)
        if every:
            self._all_told_at = now
        # Read after taking the changes: a change since is told at the next poll. Only
        # when there is something to tell, as this runs every poll.
        counts = self.local.spectated() if every or changed else {}
        matches = set(self._told) | set(counts) if every else changed
        for match_id in matches:
            count = counts.get(match_id, 0)
            if count or self._told.get(match_id):
                self._tell(conn, f"{self.process} {count} {match_id}")
            if count:
                self._told[match_id] = count
            else:
                self._told.pop(match_id, None)
        for match_id in {match_id for match_id, _process in stale}:
            self.local.publish(match_id, WATCHERS)

    def _heard_count(self, payload: str) -> None:
        """Another process's count of a match (``'<process> <count> <match_id>'``), or
        its question (``'<process> ?'``): then all of ours are told again."""
        process, _, rest = payload.partition(" ")
        count, _, match_id = rest.partition(" ")
        if process == self.process:
            return
        if count == "?":
            self._all_told_at = 0.0
            return
        if not count.isdigit() or not match_id:
            return
        with self._lock:
            if int(count):
                self._remote.setdefault(match_id, {})[process] = (int(count), time.monotonic())
            else:
                self._forget(match_id, process)
        self.local.publish(match_id, WATCHERS)

    def _forget(self, match_id: str, process: str) -> None:
        """Drops ``process``'s count of ``match_id`` (under ``_lock``)."""
        found = self._remote.get(match_id, {})
        found.pop(process, None)
        if not found:
            self._remote.pop(match_id, None)

    def _tell(self, conn: psycopg.Connection[Any], payload: str) -> None:
        conn.execute("SELECT pg_notify(%s, %s)", (WATCHERS_CHANNEL, payload))

    def _resync(self, conn: psycopg.Connection[Any]) -> None:
        """Publish locally the current version of every match watched in this process."""
        with self._lock:
            watched = list(self._watched)
        if not watched:
            return
        rows = conn.execute(
            f"SELECT id, version FROM {Match.__tablename__} WHERE id = ANY(%s)", (watched,)
        ).fetchall()
        for match_id, version in rows:
            self.local.publish(match_id, version)


@asynccontextmanager
async def listening(broker: Broker | PgBroker) -> AsyncIterator[None]:
    """Run ``broker``'s listener for the duration of the block (nothing to do for ``Broker``)."""
    if not isinstance(broker, PgBroker):
        yield
        return
    await asyncio.to_thread(broker.start)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(broker.stop)
