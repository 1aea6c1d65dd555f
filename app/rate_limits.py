"""Per-client rate limits: token buckets keyed by a short form of the client's address,
and which requests count against which limit."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import anyio
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)


def refilled(tokens: float, since: float, now: float, per_second: float, burst: int) -> float:
    """A bucket's tokens at ``now``, refilled at ``per_second`` since ``since`` up to
    ``burst``; a clock behind ``since`` (another process's) counts as no time passed."""
    return min(burst, tokens + max(0.0, now - since) * per_second)


def wait_for(tokens: float, per_second: float) -> float:
    """The seconds until a bucket holding ``tokens`` holds one."""
    return max(0.0, 1 - tokens) / per_second


@dataclass
class Bucket:
    tokens: float
    updated: float


MAX_KEY = 64


def client_key(host: str | None) -> str:
    """The rate-limit key of a client address: short, valid, and one per IPv6 /64.

    The address is the one uvicorn took from the trusted proxy (FORWARDED_ALLOW_IPS);
    whatever it is, the key kept is at most MAX_KEY characters.
    """
    try:
        address = ipaddress.ip_address((host or "").strip())
    except ValueError:
        if host and re.fullmatch(r"[A-Za-z0-9._-]{1,40}", host):  # a test client's name
            return host
        return "invalid:" + hashlib.sha256((host or "").encode("utf-8", "replace")).hexdigest()[:16]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def hashed_key(key: str, secret: str) -> str:
    """What is stored about a client (with a match, a seek, a bucket…): no address, an
    HMAC of its key under ``SECRET_KEY``. A plain hash of an IPv4 address is undone by
    hashing all 2³² of them; this one cannot be without the secret, which every process
    of a site shares (as its links need), so they all store the same hash."""
    return hmac.new(secret.encode(), key.encode(), hashlib.sha256).hexdigest()[:32]


def request_client_key(scope: MutableMapping[str, Any]) -> str:
    client = scope.get("client") or ("unknown", 0)
    return client_key(client[0])


def request_client_hash(scope: MutableMapping[str, Any]) -> str:
    """``hashed_key`` of the request's client key, under the app's ``SECRET_KEY``."""
    return hashed_key(request_client_key(scope), scope["app"].state.settings.secret_key)


class TokenBuckets:
    """Per-key token buckets: ``burst`` requests at once, refilled at ``per_second``.

    At most ``max_keys`` clients are remembered, least recently seen forgotten first
    (an O(1) step per request, never a scan): a forgotten client has a full bucket,
    which is what an idle client would have by now anyway.
    """

    def __init__(
        self,
        per_second: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 50_000,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    def known_keys(self) -> list[str]:
        with self._lock:
            return list(self._buckets)

    def take(self, key: str) -> float:
        """0 when allowed; otherwise the seconds to wait before the next request."""
        key = key[:MAX_KEY]
        now = self.clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(float(self.burst), now)
                while len(self._buckets) > self.max_keys:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            bucket.tokens = refilled(bucket.tokens, bucket.updated, now, self.per_second, self.burst)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return wait_for(bucket.tokens, self.per_second)


class SharedBuckets:
    """``TokenBuckets``' arithmetic on rows of ``rate_buckets``, so that every process
    counts the same buckets: one upsert a request, which takes a token only when the
    bucket, refilled up to now, holds one.

    A refused request writes nothing: the refill counted later from ``updated`` comes to
    the same. A row holds ``hashed_key`` of the client's key, never an address, and goes an
    hour after its last use, long after its bucket is full again (app/services/cleanup.py).
    """

    def __init__(
        self,
        sessions: sessionmaker[Session],
        kind: str,
        per_second: float,
        burst: int,
        secret: str,
        clock: Callable[[], float] = time.time,  # wall time: the processes share it
    ) -> None:
        self.engine: Engine = sessions.kw["bind"]
        self.secret = secret
        self.kind = kind
        self.per_second = per_second
        self.burst = burst
        self.clock = clock

    def take(self, key: str) -> float:
        """0 when allowed; otherwise the seconds to wait before the next request."""
        now = self.clock()
        values = {"kind": self.kind, "key": hashed_key(key[:MAX_KEY], self.secret), "now": now}
        values |= {"rate": float(self.per_second), "full": float(self.burst)}
        with self.engine.begin() as db:
            if db.execute(_TAKE, values).first() is not None:
                return 0.0
            row = db.execute(_BUCKET, values).one()
        return wait_for(refilled(row.tokens, row.updated, now, self.per_second, self.burst), self.per_second)


# One statement, written out (the same on SQLite and PostgreSQL): built with SQLAlchemy's
# expressions per call, it cost about as much CPU again as the database's work. The
# bucket refilled to now is ``refilled`` above in SQL: ``tokens + elapsed × rate``, at
# most ``full``, a negative elapsed (another process's clock behind) counting as none.
_REFILLED = """CASE WHEN rate_buckets.tokens + (CASE WHEN rate_buckets.updated < :now
    THEN :now - rate_buckets.updated ELSE 0.0 END) * :rate > :full THEN :full
    ELSE rate_buckets.tokens + (CASE WHEN rate_buckets.updated < :now
    THEN :now - rate_buckets.updated ELSE 0.0 END) * :rate END"""
_TAKE = text(
    "INSERT INTO rate_buckets (kind, key, tokens, updated) VALUES (:kind, :key, :full - 1.0, :now) "
    f"ON CONFLICT (kind, key) DO UPDATE SET tokens = ({_REFILLED}) - 1.0, updated = :now "
    f"WHERE ({_REFILLED}) >= 1.0 RETURNING tokens"
)
_BUCKET = text("SELECT tokens, updated FROM rate_buckets WHERE kind = :kind AND key = :key")


#: The limits every process counts alike, in the database. What they guard is the
#: site's: the matches created (rows, the computer's games) and the accounts (names,
#: password checks); counted in each process's memory, N processes allowed N times the
#: rate. The move and analysis limits guard the CPU of the process that answers, so
#: each process counts its own, and a move pays no database write for its limit.
SHARED_KINDS = frozenset({"create", "account"})


@dataclass(frozen=True)
class Limit:
    name: str
    per_second: float
    burst: int


#: What each kind of request may do per client address. Creating is rarer than
#: moving; a move takes a few taps, and several players may share one address.
DEFAULT_LIMITS = {
    "create": Limit("create", 0.5, 20),
    "move": Limit("move", 20.0, 60),
    # The analysis board: a tap each; a person taps a few a second at most, and each
    # answer costs up to 0.2 s of CPU unless its variation is already replayed.
    "analysis": Limit("analysis", 2.0, 30),
    # Making an account or checking a password: each costs an Argon2id hash (64 MiB and
    # tens of milliseconds), and unbounded sign-ups would let one address squat names.
    # Ten at once (a classroom behind one address), then one every ten seconds.
    "account": Limit("account", 0.1, 10),
}

#: The requests that make an account or check a password (the "account" limit). Failed
#: sign-ins are also counted per username and per address (app/accounts/limits.py).
ACCOUNT_REQUESTS = frozenset(
    {
        ("POST", "/api/account"),
        ("POST", "/signup"),
        ("POST", "/api/session"),
        ("POST", "/signin"),
        ("POST", "/api/account/password"),
        ("POST", "/account/password"),
        ("POST", "/account/close"),
        ("DELETE", "/api/account"),
    }
)


def classify(method: str, path: str) -> str | None:
    if method == "GET" and path.startswith("/analysis/") and path.endswith("/board"):
        return "analysis"
    if method == "GET" and path.endswith("/best"):
        return "create"  # a search of the computer's strongest level: as costly as a new match
    if method == "GET" and path.endswith("/board.png"):
        return "create"  # a rasterisation holds the process's GIL for tens of milliseconds
    if (method, path) in ACCOUNT_REQUESTS:
        return "account"
    if method != "POST":
        return None
    # A rematch creates a match as much as the lobby's form does (the page's rematch
    # goes through /act, which pages.act counts itself).
    creating = ("/api/matches", "/matches", "/api/ladder/runs", "/ladder/runs", "/positions/play")
    if path in creating or path.endswith("/rematch"):
        return "create"
    if path in ("/api/records", "/records/import") or path.endswith("/review"):
        return "create"
    if path.endswith("/moves") or path.endswith("/typed"):
        return "move"  # a typed move or command reads the match like a move does
    return None


class TooManyRequests(Exception):
    def __init__(self, retry_after: int) -> None:
        super().__init__("too many requests; please slow down")
        self.retry_after = retry_after


class Limiter:
    """The token buckets of every kind of limited request, keyed by client."""

    def __init__(
        self,
        limits: dict[str, Limit] | None = None,
        sessions: sessionmaker[Session] | None = None,
        secret: str = "",
    ) -> None:
        """With ``sessions``, the ``SHARED_KINDS`` are counted in the database, keyed by
        ``hashed_key`` under ``secret`` (the site's ``SECRET_KEY``)."""
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.buckets: dict[str, TokenBuckets | SharedBuckets] = {}
        for name, limit in limits.items():
            if sessions is not None and name in SHARED_KINDS:
                self.buckets[name] = SharedBuckets(sessions, name, limit.per_second, limit.burst, secret)
            else:
                self.buckets[name] = TokenBuckets(limit.per_second, limit.burst)

    def wait(self, kind: str, key: str) -> float:
        """The seconds ``key`` must wait for a ``kind`` request (0: go on). A shared
        kind writes to the database: call it from a worker thread, or ``wait_async``."""
        buckets = self.buckets.get(kind)
        if buckets is None:
            return 0.0
        try:
            return buckets.take(key)
        except SQLAlchemyError:
            # The request itself meets the same database next and is answered as usual
            # (503 while it is away); a limit that cannot be counted does not refuse.
            log.warning("could not count the %s limit in the database", kind, exc_info=True)
            return 0.0

    async def wait_async(self, kind: str, key: str) -> float:
        """``wait`` from the event loop: a shared kind's write on a worker thread."""
        if isinstance(self.buckets.get(kind), SharedBuckets):
            return await anyio.to_thread.run_sync(self.wait, kind, key)
        return self.wait(kind, key)

    def check(self, kind: str, key: str) -> None:
        """Raise TooManyRequests when ``key`` is over its ``kind`` limit (for routes)."""
        wait = self.wait(kind, key)
        if wait > 0:
            raise TooManyRequests(max(1, math.ceil(wait)))
