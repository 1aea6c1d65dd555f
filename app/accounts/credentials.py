"""Passwords (Argon2id through argon2-cffi), recovery codes and random identifiers."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app.services.errors import Invalid
from app.texts import N_

MIN_PASSWORD = 8
#: Argon2 hashes any length, but a megabyte password costs a megabyte of hashing.
MAX_PASSWORD = 256

#: argon2-cffi's defaults are RFC 9106's second recommendation: Argon2id, 3 passes,
#: 64 MiB, 4 lanes (about 50 ms here); the encoded hash carries them, so changing
#: them later still verifies the old hashes (and ``needs_rehash`` says which to renew).
HASHER = PasswordHasher()

#: Verified against when the username is unknown (or has no password), so that an
#: unknown user costs the same time as a wrong password.
_DUMMY_HASH = HASHER.hash(secrets.token_urlsafe(16))

RECOVERY_CODES = 10


def check_password(raw: object) -> str:
    if not isinstance(raw, str) or len(raw) < MIN_PASSWORD:
        raise Invalid(N_("a password has at least %(n)s characters"), n=MIN_PASSWORD)
    if len(raw) > MAX_PASSWORD:
        raise Invalid(N_("a password has at most %(n)s characters"), n=MAX_PASSWORD)
    return raw


def hash_password(password: str) -> str:
    return HASHER.hash(password)


def verify_password(stored: str | None, password: str) -> bool:
    """Whether ``password`` matches ``stored``; with no stored hash, the same work is
    done against a dummy hash and the answer is False."""
    try:
        return HASHER.verify(stored or _DUMMY_HASH, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def random_id() -> str:
    """256 random bits, URL-safe: session ids, ceremony ids."""
    return secrets.token_urlsafe(32)


def new_holder() -> str:
    """The hash an account's rows hold: of 32 random bytes that are then forgotten."""
    return hashlib.sha256(secrets.token_bytes(32)).hexdigest()


def new_user_handle() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread


def new_recovery_code() -> str:
    """16 characters of a 31-letter alphabet (79 bits), shown as four groups of four."""
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(16))
    return "-".join(raw[i : i + 4] for i in range(0, 16, 4))


def recovery_code_hash(code: str) -> str:
    """Hash of a code as typed, ignoring case, spaces and dashes."""
    cleaned = "".join(c for c in code.lower() if c.isalnum())
    return sha256("recovery:" + cleaned)
