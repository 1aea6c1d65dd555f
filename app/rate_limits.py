"""Per-client rate limits: token buckets keyed by a short form of the client's address,
and which requests count against which limit."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any


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


def hashed_key(key: str) -> str:
    """What is stored with a match about its creator: no address, only a hash of the key."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def request_client_key(scope: MutableMapping[str, Any]) -> str:
    client = scope.get("client") or ("unknown", 0)
    return client_key(client[0])


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
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.per_second)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.per_second


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

    def __init__(self, limits: dict[str, Limit] | None = None) -> None:
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.buckets = {name: TokenBuckets(limit.per_second, limit.burst) for name, limit in limits.items()}

    def wait(self, kind: str, key: str) -> float:
        buckets = self.buckets.get(kind)
        return buckets.take(key) if buckets is not None else 0.0

    def check(self, kind: str, key: str) -> None:
        """Raise TooManyRequests when ``key`` is over its ``kind`` limit (for routes)."""
        wait = self.wait(kind, key)
        if wait > 0:
            raise TooManyRequests(max(1, math.ceil(wait)))
