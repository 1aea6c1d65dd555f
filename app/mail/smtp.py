"""``SMTP_URL`` read: the operator's mail server. The server never connects anywhere a
client chose: this setting is the only place a mail goes through.

- ``smtps://user:pass@host:465``  TLS from the start (port 465 unless given);
- ``smtp://user:pass@host:587``   STARTTLS required (port 587 unless given): neither the
  password nor a mail crosses the network in clear;
- ``smtp://127.0.0.1:PORT``       a relay on this machine (a loopback host): plain, and
  STARTTLS only if it offers it (tests, a local relay).

User and password are percent-decoded. A URL of another shape stops the app at start.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

LOOPBACK_NAMES = ("localhost",)


@dataclass(frozen=True)
class SmtpServer:
    hostname: str
    port: int
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    #: TLS from the first byte (smtps).
    use_tls: bool = False
    #: True: STARTTLS or fail; None: if offered (loopback only).
    start_tls: bool | None = True


def _loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse(url: str) -> SmtpServer:
    """The server ``url`` names; ``ValueError`` saying what is wrong (never the password)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("smtp", "smtps"):
        raise ValueError("SMTP_URL must start with smtp:// or smtps://")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise ValueError("SMTP_URL has a bad port") from None
    if not host:
        raise ValueError("SMTP_URL names no host")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError("SMTP_URL is smtp[s]://[user:password@]host[:port], nothing after")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password else None
    if parts.scheme == "smtps":
        return SmtpServer(host, port or 465, username, password, use_tls=True, start_tls=False)
    start_tls = None if _loopback(host) else True
    return SmtpServer(host, port or 587, username, password, use_tls=False, start_tls=start_tls)
