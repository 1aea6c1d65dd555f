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


def continue_code(secret_key: str, seat_id: int) -> str:
    """The code in a seat's private "continue on another device" link.

    Derived, not stored: the server recomputes it, so no secret sits in the database.
    """
    digest = hmac.new(secret_key.encode(), f"seat:{seat_id}".encode(), hashlib.sha256)
    return digest.hexdigest()[:32]
