"""uvicorn's h11 protocol with a deadline on receiving each request (``make run``).

uvicorn bounds idle keep-alive connections (``--timeout-keep-alive``) but not a request
that arrives slowly: a header sent a byte every few seconds (slowloris), or a body
trickled the same way, holds the connection, and its descriptor, for as long as the
client likes. In the Compose deployment nginx cuts both (10 s for the header, 10 s per
body read); ``make run`` has no nginx in front, so this protocol does it itself:

    uvicorn --http app.slow_clients:GuardedH11Protocol …

From the first byte of a request until its last body byte, at most ``REQUEST_SECONDS``;
then the connection is closed. The time the app takes to answer is not counted (an event
stream's request is complete when its header is), nor the idle time between requests.

It also keeps client connections inside the process's limit on open files (issue 27):
uvicorn's ``--limit-concurrency`` answers 503 and closes the connection past its figure,
but a fixed figure (1000) is above what a 1024-descriptor host can hold once the
database's files and the workers' pipes are counted; past that, ``accept()`` fails with
EMFILE, and so does opening the database, for every player. The figure used is the lower
of the flag and the descriptor limit less a reserve.
"""

from __future__ import annotations

import asyncio
import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.process_limits import descriptor_limit

#: Seconds a client has to send a whole request, header and body (the body is at most
#: 64 KiB, app/security.py): a phone on a poor link sends that in well under this.
#: REQUEST_SECONDS changes it (the tests make it short).
REQUEST_SECONDS = float(os.environ.get("REQUEST_SECONDS") or 15.0)
#: The states of h11's view of the client in which its request has all arrived.
RECEIVED = {h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR, h11.SWITCHED_PROTOCOL}
#: Descriptors kept from client connections: the database's files (two or three per
#: pooled SQLite connection), the computer's and the reviews' pipes, logs, the listening
#: socket (33 at rest, measured).
RESERVED_DESCRIPTORS = 64
_FULL_TEXT = b"The server is full; please try again shortly.\n"
FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"retry-after: 5\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_FULL_TEXT), _FULL_TEXT)
)


def connection_caps(limit: int, backlog: int) -> tuple[int, int]:
    """``(answer, accept)`` for a process whose open-file limit is ``limit``.

    Past ``answer`` connections, a request is answered 503 and its connection closed
    (uvicorn's limit-concurrency); past ``accept``, a new connection is closed as soon as
    it is made. Above ``accept`` stays room for the descriptors that are not clients' and
    for one turn of asyncio's accept loop, which takes up to ``backlog`` connections
    before any of them reaches this protocol: a burst of 1,100 connects was accepted
    whole, past the limit, before a request was read.
    """
    accept = max(16, limit - RESERVED_DESCRIPTORS - backlog)
    return max(8, accept - accept // 8), accept


class GuardedH11Protocol(H11Protocol):
    request_seconds = REQUEST_SECONDS
    _guard: asyncio.TimerHandle | None = None

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Read per connection, not at import: the app raises the limit when it starts,
        # after uvicorn has imported this class.
        answer, self.accept_cap = connection_caps(descriptor_limit(), self.config.backlog)
        if self.limit_concurrency is None or self.limit_concurrency > answer:
            self.limit_concurrency = answer

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.accept_cap:
            # A flood: no room to read a request. Said in one write, then closed (a
            # client whose request is already here may see a reset instead).
            transport.write(FULL)
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._guard is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of the next request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in RECEIVED:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._guard = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
            self._guard = None

    def _too_slow(self) -> None:
        self._guard = None
        if not self.transport.is_closing():
            self.transport.close()
