"""Player tokens: random secrets in cookies, stored only as hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets

PLAYER_COOKIE = "tablero_player"


def new_token() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def same(a: str | None, b: str | None) -> bool:
    """Constant-time comparison of two hashes; ``None`` never matches."""
    if a is None or b is None:
        return False
    return hmac.compare_digest(a.encode(), b.encode())


#: How long a "continue on another device" link works.
CONTINUE_LIFETIME_SECONDS = 24 * 3600


def continue_code(secret_key: str, seat_id: int, holder_hash: str | None, expires: int) -> str:
    """The code in a seat's private "continue on another device" link.

    Derived, not stored: an HMAC of the seat, the token hash that holds it now and the
    link's expiry. Once the link has moved the seat, the holder differs and the code no
    longer matches: each link works once, and only until ``expires`` (Unix seconds).
    """
    message = f"seat:{seat_id}:{holder_hash or ''}:{expires}".encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()[:32]


def continue_code_ok(secret_key: str, seat_id: int, holder_hash: str | None, expires: int, code: str) -> bool:
    """Constant-time check of a code from a URL; any text (non-ASCII too) is just wrong."""
    expected = continue_code(secret_key, seat_id, holder_hash, expires).encode()
    return hmac.compare_digest(expected, code.encode("utf-8", "surrogateescape"))
