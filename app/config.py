"""Settings read once from the environment."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = f"sqlite:///{ROOT / 'data' / 'tablero.db'}"


#: Host names a site without PUBLIC_URL answers for, on any port.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def _public_url(value: str | None) -> str | None:
    return value.strip().rstrip("/") if value and value.strip() else None


def _flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    #: Signs the private "continue on another device" links. A random key per start
    #: is fine for one process; several processes must share one (set SECRET_KEY).
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    #: Mark cookies Secure; turn on when the site is served over HTTPS.
    secure_cookies: bool = False
    #: Seconds a browser waits before reconnecting a dropped event stream.
    sse_retry_ms: int = 2000
    #: Seconds between keep-alive comments on idle event streams.
    sse_ping_seconds: float = 15.0
    #: Worker processes that compute the computer's moves (each app process has its own).
    computer_processes: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    #: "search" (the real opponent) or "first-legal": a weak, predictable opponent that
    #: only the test suite uses, so browser tests can beat the ladder's opponent 1.
    computer_thinker: str = "search"
    #: Per-client rate limits on creating matches/runs and on moves; off only for
    #: load tests from one address (RATE_LIMITS=off).
    rate_limits: bool = True
    #: The site's public origin (https://tablero.example): every absolute link people copy
    #: (invites, "continue on another device", their QR codes, a record's Site) is built
    #: from it, never from a request header; and only requests for its host are served.
    #: Unset: links say http://localhost:PORT and only local host names are served.
    public_url: str | None = field(default_factory=lambda: _public_url(os.environ.get("PUBLIC_URL")))
    #: More host names served (ALLOWED_HOSTS, comma-separated): the test suite's
    #: "testserver", or a second name of the site.
    extra_hosts: tuple[str, ...] = field(
        default_factory=lambda: tuple(
            h.strip().lower() for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h.strip()
        )
    )
    #: Seconds between two housekeeping runs (app/services/cleanup.py) in each process.
    cleanup_seconds: float = 600.0
    #: Open event streams one client (address) may hold at once; more get 429.
    streams_per_client: int = 32
    #: Compress HTML, CSS, JS and JSON (brotli or gzip, app/compression.py); off
    #: (COMPRESSION=off) leaves it to a proxy in front, which then spends the CPU.
    compression: bool = True

    @classmethod
    def from_env(cls) -> Settings:
        kwargs: dict[str, object] = {
            "database_url": os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            "secure_cookies": _flag("SECURE_COOKIES"),
        }
        if os.environ.get("COMPUTER_PROCESSES"):
            kwargs["computer_processes"] = max(1, int(os.environ["COMPUTER_PROCESSES"]))
        if os.environ.get("TABLERO_TEST_OPPONENT"):
            kwargs["computer_thinker"] = os.environ["TABLERO_TEST_OPPONENT"]
        if os.environ.get("RATE_LIMITS", "").lower() in {"0", "off", "false", "no"}:
            kwargs["rate_limits"] = False
        if os.environ.get("COMPRESSION", "").lower() in {"0", "off", "false", "no"}:
            kwargs["compression"] = False
        if os.environ.get("STREAMS_PER_CLIENT"):
            kwargs["streams_per_client"] = max(1, int(os.environ["STREAMS_PER_CLIENT"]))
        if os.environ.get("SECRET_KEY"):
            kwargs["secret_key"] = os.environ["SECRET_KEY"]
        return cls(**kwargs)  # type: ignore[arg-type]

    @property
    def origin(self) -> str:
        """Where absolute links point: PUBLIC_URL, else this machine at PORT (``make run``'s)."""
        return self.public_url or f"http://localhost:{os.environ.get('PORT', '8000')}"

    @property
    def allowed_hosts(self) -> frozenset[str]:
        """The Host names served (lower case, no port)."""
        if self.public_url:
            own = (urlsplit(self.public_url).hostname or "").lower()
            named = {f"[{own}]" if ":" in own else own}
        else:
            named = set(LOCAL_HOSTS)
        return frozenset(named | set(self.extra_hosts))
