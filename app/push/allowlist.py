"""Which push endpoints the server may ever send to: no request to an address a client chose.

``PUSH_HOSTS`` (comma-separated) lists the hosts of push services; ``*.example.com``
admits its subdomains. An endpoint must be ``https`` on the default port, with a host
name on the list, no user info and no address literal. The one exception, for tests and
local development, is a loopback host (``127.0.0.1``, ``::1``, ``localhost``) listed
explicitly: it may use ``http`` and any port. Checked when a subscription is stored and
again just before each send (the setting may have changed since).
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

from app.services.errors import Invalid
from app.texts import N_

#: The browsers' public push services: Chrome and Edge (FCM), Firefox (autopush),
#: Safari (Apple), Edge's legacy WNS.
DEFAULT_PUSH_HOSTS = (
    "fcm.googleapis.com",
    "updates.push.services.mozilla.com",
    "web.push.apple.com",
    "*.push.apple.com",
    "*.notify.windows.com",
)
LOOPBACK_NAMES = ("localhost",)
MAX_ENDPOINT = 1000


def configured_hosts() -> tuple[str, ...]:
    raw = os.environ.get("PUSH_HOSTS")
    if raw is None or not raw.strip():
        return DEFAULT_PUSH_HOSTS
    return tuple(h.strip().lower() for h in raw.split(",") if h.strip())


def _loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _listed(host: str, hosts: tuple[str, ...]) -> bool:
    for entry in hosts:
        if entry.startswith("*."):
            if host.endswith(entry[1:]) and len(host) > len(entry) - 1:
                return True
        elif host == entry:
            return True
    return False


def check_endpoint(endpoint: str, hosts: tuple[str, ...]) -> None:
    """Refuse (422) an endpoint the server must never send to."""
    if len(endpoint) > MAX_ENDPOINT:
        raise Invalid(N_("the push endpoint is too long"))
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:
        raise Invalid(N_("the push endpoint is not a URL")) from None
    if not host or parts.username is not None or parts.password is not None:
        raise Invalid(N_("the push endpoint is not a URL"))
    if _loopback(host) and host in hosts:
        if parts.scheme in ("http", "https"):
            return
        raise Invalid(N_("push endpoints must use https"))
    if parts.scheme != "https":
        raise Invalid(N_("push endpoints must use https"))
    if _literal(host) or port not in (None, 443):
        raise Invalid(N_("this push service is not one we send to"))
    if not _listed(host, hosts):
        raise Invalid(N_("this push service is not one we send to"))
