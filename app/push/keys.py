"""The VAPID key pair: the ``VAPID_PRIVATE_KEY`` setting (PEM, or py-vapid's base64url
DER/raw form), else one made on first start and kept in the ``vapid_keys`` table, so every
process signs with the same key and subscriptions survive restarts."""

from __future__ import annotations

import base64
import os

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.push.models import VapidKey


def _from_text(text: str) -> Vapid02:
    if "BEGIN" in text:
        return Vapid02.from_pem(text.encode())
    return Vapid02.from_string(text)


def load_or_create(sessions: sessionmaker[Session]) -> Vapid02:
    given = os.environ.get("VAPID_PRIVATE_KEY")
    if given:
        return _from_text(given)
    with sessions() as db:
        stored = db.scalar(select(VapidKey.private_pem).where(VapidKey.id == 1))
    if stored is not None:
        return _from_text(stored)
    fresh = Vapid02()
    fresh.generate_keys()
    try:
        with sessions.begin() as db:
            db.add(VapidKey(id=1, private_pem=fresh.private_pem().decode()))
    except IntegrityError:
        pass  # another process made one first: use that one
    return load_or_create(sessions)


def application_server_key(vapid: Vapid02) -> str:
    """The public key as the browser's ``applicationServerKey`` (base64url, uncompressed point)."""
    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
