"""``/api/push/key``, ``/api/push/subscriptions`` and the service worker ``/sw.js``."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field, field_validator

from app.config import ROOT
from app.push.keys import application_server_key
from app.push.service import PushService
from app.schemas import Strict
from app.seeks.schemas import documented
from app.web import ensure_player, language, viewer_hash

router = APIRouter(tags=["push"])


def _b64url(value: str, size: int, what: str) -> str:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not base64url") from None
    if len(raw) != size or (size == 65 and raw[0] != 4):
        raise ValueError(f"{what} is not a {size}-byte key")
    return value


class SubscriptionKeys(Strict):
    p256dh: str = Field(max_length=200, description="the browser's P-256 public key, base64url (65 bytes)")
    auth: str = Field(max_length=100, description="the 16-byte authentication secret, base64url")

    @field_validator("p256dh")
    @classmethod
    def _p256dh(cls, value: str) -> str:
        return _b64url(value, 65, "p256dh")

    @field_validator("auth")
    @classmethod
    def _auth(cls, value: str) -> str:
        return _b64url(value, 16, "auth")


class SubscriptionCreate(Strict):
    """The browser's PushSubscription JSON (``subscription.toJSON()``)."""

    endpoint: str = Field(max_length=1000)
    keys: SubscriptionKeys


class SubscriptionRef(Strict):
    endpoint: str = Field(max_length=1000)


class PushKey(BaseModel):
    #: The VAPID public key for ``pushManager.subscribe({applicationServerKey})``.
    key: str


class Subscriptions(BaseModel):
    subscriptions: list[dict[str, str]]


SUBSCRIBE_REFUSALS = documented(
    _400="the body is not UTF-8 JSON",
    _403="a cross-site request",
    _409="this browser has five subscriptions already",
    _413="the body is over 64 KiB",
    _422="not a subscription, or an endpoint the server never sends to: not https, an address "
    "literal, or a host not on PUSH_HOSTS",
    _429="too many requests from this client",
    _503="the database is unavailable for a moment",
)
UNSUBSCRIBE_REFUSALS = documented(
    _400="the body is not UTF-8 JSON",
    _403="a cross-site request",
    _413="the body is over 64 KiB",
    _404="no such subscription of this browser",
    _422="the request is not valid",
    _429="too many requests from this client",
    _503="the database is unavailable for a moment",
)
READ_REFUSALS = documented(_429="too many requests from this client", _503="the database is unavailable")


def service(request: Request) -> PushService:
    return request.app.state.push


@router.get("/api/push/key", response_model=PushKey, responses=READ_REFUSALS, operation_id="push_key")
def push_key(request: Request) -> dict[str, str]:
    """The server's VAPID public key (base64url, uncompressed P-256 point)."""
    return {"key": application_server_key(request.app.state.vapid())}


@router.get(
    "/api/push/subscriptions",
    response_model=Subscriptions,
    responses=READ_REFUSALS,
    operation_id="my_push_subscriptions",
)
def my_subscriptions(request: Request) -> dict[str, Any]:
    """This browser's subscriptions (endpoint and language)."""
    token = viewer_hash(request)
    return {"subscriptions": [] if token is None else service(request).subscriptions_of(token)}


@router.post(
    "/api/push/subscriptions",
    status_code=201,
    response_model=SubscriptionRef,
    responses={200: {"description": "already stored; keys and language updated"}, **SUBSCRIBE_REFUSALS},
    operation_id="push_subscribe",
)
def subscribe(body: SubscriptionCreate, request: Request, response: Response) -> dict[str, str]:
    """Be told off the page: your move, a seek paired, a rematch offer (at most 5 per browser)."""
    owner = ensure_player(request, response)
    created = service(request).subscribe(
        owner, body.endpoint, body.keys.p256dh, body.keys.auth, language(request)
    )
    if not created:
        response.status_code = 200
    return {"endpoint": body.endpoint}


@router.delete(
    "/api/push/subscriptions",
    status_code=204,
    responses=UNSUBSCRIBE_REFUSALS,
    operation_id="push_unsubscribe",
)
def unsubscribe(body: SubscriptionRef, request: Request) -> Response:
    """Remove one of this browser's subscriptions."""
    token = viewer_hash(request)
    # A NUL is in no stored endpoint (PostgreSQL would refuse to compare it: a 500).
    if token is None or "\x00" in body.endpoint or not service(request).unsubscribe(token, body.endpoint):
        from app.services.errors import NotFound
        from app.texts import N_

        raise NotFound(N_("there is no such push subscription"))
    return Response(status_code=204)


@router.get("/sw.js", include_in_schema=False)
def service_worker() -> Response:
    """The service worker, from the root so that its scope is the whole site."""
    return FileResponse(
        ROOT / "static" / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )
