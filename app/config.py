"""Settings read once from the environment."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = f"sqlite:///{ROOT / 'data' / 'tablero.db'}"


#: Host names a site without PUBLIC_URL answers for, on any port.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def _text_or_none(value: object) -> object:
    """An unset-looking value (absent, empty, blank) is None; text is stripped."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value.strip() if isinstance(value, str) else value


class Settings(BaseSettings):
    """The site's settings: each field from the environment variable of its name in
    capitals (``DATABASE_URL``, ``RATE_LIMITS=off``…), else its default; a value of the
    wrong kind stops the start with pydantic's message naming the variable. Tests pass
    fields by name, which win over the environment (pydantic-settings)."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", populate_by_name=True)

    database_url: str = DEFAULT_DATABASE_URL
    #: Signs the private "continue on another device" links. A random key per start
    #: is fine for one process; several processes must share one (set SECRET_KEY).
    secret_key: str = Field(default_factory=lambda: secrets.token_urlsafe(32), min_length=1)
    #: Mark cookies Secure; turn on when the site is served over HTTPS.
    secure_cookies: bool = False
    #: Seconds a browser waits before reconnecting a dropped event stream.
    sse_retry_ms: int = Field(default=2000, ge=0)
    #: Seconds between keep-alive comments on idle event streams.
    sse_ping_seconds: float = Field(default=15.0, gt=0)
    #: Worker processes that compute the computer's moves (each app process has its own).
    computer_processes: int = Field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)), ge=1)
    #: "search" (the real opponent) or "first-legal": a weak, predictable opponent that
    #: only the test suite uses, so browser tests can beat the ladder's opponent 1
    #: (TABLERO_TEST_OPPONENT).
    computer_thinker: Literal["search", "first-legal"] = Field(
        default="search", validation_alias=AliasChoices("computer_thinker", "tablero_test_opponent")
    )
    #: Per-client rate limits on creating matches/runs and on moves; off only for
    #: load tests from one address (RATE_LIMITS=off).
    rate_limits: bool = True
    #: The site's public origin (https://tablero.example): every absolute link people copy
    #: (invites, "continue on another device", their QR codes, a record's Site) is built
    #: from it, never from a request header; and only requests for its host are served.
    #: Unset: links say http://localhost:PORT and only local host names are served.
    public_url: str | None = None
    #: More host names served (ALLOWED_HOSTS, comma-separated): the test suite's
    #: "testserver", or a second name of the site.
    extra_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), validation_alias=AliasChoices("extra_hosts", "allowed_hosts")
    )
    #: Seconds between two housekeeping runs (app/services/cleanup.py) in each process.
    cleanup_seconds: float = Field(default=600.0, gt=0)
    #: Open event streams one client (address) may hold at once; more get 429.
    streams_per_client: int = Field(default=32, ge=1)
    #: Compress HTML, CSS, JS and JSON (brotli or gzip, app/compression.py); off
    #: (COMPRESSION=off) leaves it to a proxy in front, which then spends the CPU.
    compression: bool = True
    #: The operator's mail server (SMTP_URL): smtp://user:pass@host:587 (STARTTLS),
    #: smtps://user:pass@host:465 (TLS from the start), smtp://127.0.0.1:PORT (a relay on
    #: this machine, plain). Unset: no email is offered anywhere (app/mail/).
    smtp_url: str | None = None
    #: The From of every email (MAIL_FROM); unset: "Tablero <noreply@HOST>", HOST the origin's.
    mail_from: str | None = None

    @field_validator("public_url", "smtp_url", "mail_from", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return _text_or_none(value)

    @field_validator("public_url")
    @classmethod
    def _no_trailing_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else None

    @field_validator("database_url", mode="before")
    @classmethod
    def _default_database(cls, value: object) -> object:
        # DATABASE_URL set but empty (a Compose file's ${DATABASE_URL:-}) means the default.
        value = _text_or_none(value)
        return DEFAULT_DATABASE_URL if value is None else value

    @field_validator("extra_hosts", mode="before")
    @classmethod
    def _host_list(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, (list, tuple)):
            return tuple(str(h).strip().lower() for h in value if str(h).strip())
        return value

    @classmethod
    def from_env(cls) -> Settings:
        """The settings of this process's environment (``make run``, the image)."""
        return cls()

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

    @property
    def sender(self) -> str:
        """The From of the site's emails."""
        return self.mail_from or f"Tablero <noreply@{urlsplit(self.origin).hostname or 'localhost'}>"
