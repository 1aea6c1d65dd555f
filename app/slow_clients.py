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
"""

from __future__ import annotations

import asyncio
import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a whole request, header and body (the body is at most
#: 64 KiB, app/security.py): a phone on a poor link sends that in well under this.
#: REQUEST_SECONDS changes it (the tests make it short).
REQUEST_SECONDS = float(os.environ.get("REQUEST_SECONDS") or 15.0)
#: The states of h11's view of the client in which its request has all arrived.
RECEIVED = {h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR, h11.SWITCHED_PROTOCOL}


class GuardedH11Protocol(H11Protocol):
    request_seconds = REQUEST_SECONDS
    _guard: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
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
