"""``/api/account/email`` and ``/api/account/email/digest`` (signed in; 401 otherwise).

Without ``SMTP_URL`` every one answers 404 "email is not offered on this site" (after the
401 for a stranger): the operations exist in the document, the feature does not here.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from app.accounts.api import SESSION, me
from app.mail.schemas import DigestSet, EmailSet, EmailState
from app.mail.service import EmailService
from app.seeks.schemas import documented
from app.services.errors import NotFound
from app.texts import N_

router = APIRouter(prefix="/api", tags=["accounts"])
NOT_OFFERED = N_("email is not offered on this site")


_COMMON = {
    "_401": "not signed in",
    "_403": "a cross-site request",
    "_404": "email is not offered on this site (no SMTP_URL)",
    "_429": "too many requests from this client",
    "_503": "the database is unavailable for a moment",
}
_BODY = {
    "_400": "the body is not UTF-8 JSON, or nested too deep",
    "_413": "the body is over 64 KiB",
}
SET_REFUSALS = documented(
    **_COMMON,
    **_BODY,
    _422="not an email address: the rule it breaks is named (one line, no CR/LF, ASCII, name@domain)",
)
SET_REFUSALS[429] = {
    **SET_REFUSALS[429],
    "description": "five verification mails today already; wait Retry-After seconds",
}
DIGEST_REFUSALS = documented(
    **_COMMON,
    **_BODY,
    _409="no address, or not verified yet: the reason is named",
    _422="digest is not true or false",
)
DELETE_REFUSALS = documented(**_COMMON)


def offered(request: Request) -> EmailService:
    """The email service; 404 when the site sends no email."""
    service: EmailService | None = getattr(request.app.state, "email", None)
    if service is None:
        raise NotFound(NOT_OFFERED)
    return service


@router.put(
    "/account/email",
    status_code=202,
    response_model=EmailState,
    responses=SET_REFUSALS,
    operation_id="set_email",
    dependencies=SESSION,
)
def set_email(body: EmailSet, request: Request) -> JSONResponse:
    """Add or change the account's address: stored unverified (the digest off), and a mail
    with a link to confirm it (valid 24 hours) is queued. The same address again sends the
    link again (at most 5 a day per account, 429 past it). The answer is the same whether
    or not another account has this address."""
    account = me(request)
    answer = offered(request).set_address(account.id, body.email)
    return JSONResponse(answer, status_code=202)


@router.delete(
    "/account/email",
    status_code=204,
    responses=DELETE_REFUSALS,
    operation_id="delete_email",
    dependencies=SESSION,
)
def delete_email(request: Request) -> Response:
    """Forget the address (and any mail still queued for it); no address is fine too."""
    account = me(request)
    offered(request).remove(account.id)
    return Response(status_code=204)


@router.put(
    "/account/email/digest",
    response_model=EmailState,
    responses=DIGEST_REFUSALS,
    operation_id="set_email_digest",
    dependencies=SESSION,
)
def set_digest(body: DigestSet, request: Request) -> dict[str, Any]:
    """Turn the daily digest on or off (409 until the address is verified)."""
    account = me(request)
    return offered(request).set_digest(account.id, body.digest)
