"""The links in emails: signed, not stored.

A token names the account and, through its MAC, the address it was made for: an HMAC
(SHA-256, keyed by ``SECRET_KEY`` through a key of its own for email) of the purpose,
the account id, the address's ``key`` and the expiry. When the address changes the
token no longer matches, so a link dies with the address it was sent to. A verification
link lives 24 hours; an unsubscribe link until the address changes (expiry 0), since a
digest may be read days later.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.mail.addresses import key as address_key

VERIFY = "verify"
UNSUBSCRIBE = "unsubscribe"
VERIFY_LIFETIME = timedelta(hours=24)
MAX_TOKEN = 200


def _mac(secret: str, purpose: str, account_id: int, address: str, expires: int) -> str:
    own_key = hmac.new(secret.encode(), b"tablero email links", hashlib.sha256).digest()
    message = f"{purpose}:{account_id}:{address_key(address)}:{expires}".encode()
    digest = hmac.new(own_key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def make(secret: str, purpose: str, account_id: int, address: str, now: datetime | None = None) -> str:
    """``ACCOUNT.EXPIRES.MAC``; an unsubscribe token (``now`` not given) never expires."""
    expires = 0 if now is None else math.ceil((now + VERIFY_LIFETIME).timestamp())
    return f"{account_id}.{expires}.{_mac(secret, purpose, account_id, address, expires)}"


@dataclass(frozen=True)
class Token:
    account_id: int
    expires: int
    mac: str


def parse(token: str) -> Token | None:
    """The token's parts, or ``None`` for anything that is not a token's shape."""
    parts = token.split(".") if len(token) <= MAX_TOKEN else []
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit() or len(parts[0]) > 12:
        return None
    return Token(int(parts[0]), int(parts[1]), parts[2])


def valid(secret: str, purpose: str, token: Token, address: str, now: datetime) -> bool:
    """The MAC matches this address (compared in constant time) and the link has not expired."""
    if token.expires and token.expires < now.timestamp():
        return False
    if purpose == VERIFY and not token.expires:
        return False  # a verification link always expires
    expected = _mac(secret, purpose, token.account_id, address, token.expires)
    return hmac.compare_digest(expected.encode(), token.mac.encode("utf-8", "surrogateescape"))
