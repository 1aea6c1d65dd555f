"""Presence: any request a player makes with its token says the player is there.

The abandonment claim (``clocks.away_too_long``) needs a sign of life from the side to
move. An open event stream gives one (``routes/events.py``); so does every other request
that carries the player's token cookie: a move, a read of its game, any API call. A
program that plays through the JSON API alone, never opening a stream, is then not
claimed against while it thinks and polls its game.

Cheap on the request path: the middleware only notes the token's hash in memory, at most
once per ``NOTE_EVERY`` per player and process; the heartbeat (every second,
``app.heartbeat``) stamps every noted player's seats in matches being played in one
``UPDATE``. A stamp is at most about a second late, far inside the claim's minute.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker
from starlette.types import ASGIApp, Receive, Scope, Send

from app.models import Match, Seat
from app.services.tokens import PLAYER_COOKIE, token_hash

#: A player noted this recently is not noted again (per process).
NOTE_EVERY = timedelta(seconds=10)
#: Players remembered per process; the least recently noted are forgotten first.
REMEMBERED = 50_000
#: Seats stamped per statement.
CHUNK = 500
_COOKIE = PLAYER_COOKIE.encode() + b"="


def cookie_token(headers: list[tuple[bytes, bytes]]) -> bytes | None:
    """The player token in a request's Cookie header, as ``web.player_token`` accepts it."""
    for name, value in headers:
        if name != b"cookie":
            continue
        at = value.find(_COOKIE)
        # The name must start the header or follow "; " (not end another cookie's name).
        while at > 0 and value[at - 1 : at] not in (b" ", b";"):
            at = value.find(_COOKIE, at + 1)
        if at < 0:
            continue
        start = at + len(_COOKIE)
        end = value.find(b";", start)
        token = value[start:] if end < 0 else value[start:end]
        return token.strip() if 20 <= len(token.strip()) <= 100 else None
    return None


class Presence:
    """The players seen by this process since the last flush."""

    def __init__(
        self, sessions: sessionmaker[Session], clock: Callable[[], datetime], every: timedelta = NOTE_EVERY
    ) -> None:
        self.sessions = sessions
        #: The app's clock (the tests' fake one moves the interval too).
        self.clock = clock
        self.every = every
        self._noted: OrderedDict[int, datetime] = OrderedDict()
        self._pending: set[str] = set()
        self._lock = threading.Lock()

    def note(self, token: bytes) -> None:
        """A request carried this player token. Throttled on Python's own (per-process
        salted) hash of the token, so the SHA-256 is paid only when the player is noted."""
        key = hash(token)
        moment = self.clock()
        with self._lock:
            last = self._noted.get(key)
            if last is not None and timedelta(0) <= moment - last < self.every:
                return
            self._noted[key] = moment
            self._noted.move_to_end(key)
            if len(self._noted) > REMEMBERED:
                self._noted.popitem(last=False)
        hashed = token_hash(token.decode("latin-1"))
        with self._lock:
            self._pending.add(hashed)

    def flush(self, moment: datetime) -> int:
        """Stamp the noted players' seats in matches being played; how many were noted."""
        with self._lock:
            pending, self._pending = sorted(self._pending), set()
        if not pending:
            return 0
        playing = select(Match.id).where(Match.status == "playing")
        try:
            with self.sessions.begin() as db:
                for start in range(0, len(pending), CHUNK):
                    players = Seat.token_hash.in_(pending[start : start + CHUNK])
                    stmt = update(Seat).where(players, Seat.match_id.in_(playing))
                    db.execute(stmt.values(last_seen_at=moment))
        except Exception:
            with self._lock:  # try again on the next beat
                self._pending.update(pending)
            raise
        return len(pending)


class PresenceLayer:
    """Pure ASGI: notes the token of every HTTP request that carries one, then passes it on."""

    def __init__(self, app: ASGIApp, presence: Presence) -> None:
        self.app = app
        self.presence = presence

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            token = cookie_token(scope["headers"])
            if token is not None:
                self.presence.note(token)
        await self.app(scope, receive, send)
