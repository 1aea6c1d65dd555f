"""The accounts' JSON API (issue 30): sign up, sessions, passkeys, your data, profiles."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Path, Request, Response, Security
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyCookie

from app.accounts import identity
from app.accounts.data import AccountData
from app.accounts.passkeys import PasskeyService, RelyingParty
from app.accounts.schemas import (
    READS,
    WRITES,
    AccountCreate,
    AccountCreated,
    AccountDelete,
    AccountPublic,
    CeremonyOptions,
    Devices,
    Ended,
    PasskeyCredential,
    PasswordSet,
    Preferences,
    RecoveryCodes,
    SessionCreate,
    SessionCreated,
    SignupOptions,
    UserPublic,
    refusals,
)
from app.accounts.service import AccountService, SignedIn, Unauthorized
from app.db import read_session
from app.models import Account
from app.rate_limits import request_client_hash
from app.ratings.api import ratings_of
from app.services.tokens import token_hash
from app.texts import N_
from app.web import player_token, remember_name, remembered_name, settings

router = APIRouter(prefix="/api", tags=["accounts"])
#: Declares the session cookie in the OpenAPI document for the calls that need one (the
#: check itself is ``me``: 401 with a readable message).
SESSION = [Security(APIKeyCookie(name=identity.SESSION_COOKIE, auto_error=False))]
NOT_SIGNED_IN = N_("you are not signed in")


def accounts(request: Request) -> AccountService:
    return request.app.state.accounts


def passkeys(request: Request) -> PasskeyService:
    return request.app.state.passkeys


def account_data(request: Request) -> AccountData:
    return request.app.state.account_data


def client(request: Request) -> str:
    """The address's rate-limit key, hashed (no address is stored)."""
    return request_client_hash(request.scope)


def guest_hash(request: Request) -> str | None:
    token = player_token(request)
    return token_hash(token) if token else None


def device(request: Request) -> str:
    return request.headers.get("user-agent", "")[:200]


def relying_party(request: Request) -> RelyingParty:
    """The passkeys' RP: PUBLIC_URL's host and origin; unset (development), the request's
    own (the same-origin check has already refused another site's Origin)."""
    public = settings(request).public_url
    origin = public.rstrip("/") if public else f"{request.url.scheme}://{request.headers.get('host', '')}"
    return RelyingParty(id=urlsplit(origin).hostname or "localhost", origin=origin)


def me(request: Request) -> Account:
    account = identity.signed_in(request)
    if account is None:
        raise Unauthorized(NOT_SIGNED_IN)
    return account


def account_answer(request: Request, account_id: int) -> dict[str, Any]:
    """``GET /api/account``: the summary, and the email address where the site sends email."""
    service = getattr(request.app.state, "email", None)
    email = service.state(account_id) if service is not None else None
    return {**accounts(request).summary(account_id), "email": email}


def signed_in_answer(request: Request, signed: SignedIn, status: int, body: dict[str, Any]) -> Response:
    """The answer with the new session's cookie; the old session (if any) is ended, so a
    browser never keeps a session id from before it signed in."""
    old = identity.session_id(request)
    if old:
        accounts(request).end_session(old)
    response = JSONResponse(body, status_code=status)
    identity.set_session_cookie(request, response, signed.session_id)
    if not remembered_name(request):
        # The new-match and join forms come filled in with the account's name, as they do
        # with a guest's last typed name: otherwise an account's first click on "Create"
        # only brings the browser's "fill out this field".
        remember_name(response, signed.username)
    return response


# ------------------------------------------------------------------ sign up, sign in


@router.post(
    "/account",
    status_code=201,
    response_model=AccountCreated,
    responses=WRITES,
    operation_id="create_account",
)
def create_account(body: AccountCreate, request: Request) -> Response:
    """Sign up with a username and a password: the account holds this browser's games
    and runs from now on. The answer carries the session cookie and the recovery codes
    (shown once). 409: the username is taken; 422: the rule it breaks."""
    from app.accounts.credentials import check_password
    from app.accounts.usernames import check_username

    check_username(body.username)
    check_password(body.password)
    accounts(request).count_sign_up(client(request))
    signed = accounts(request).sign_up(body.username, body.password, guest_hash(request), device(request))
    return signed_in_answer(
        request, signed, 201, {"username": signed.username, "recovery_codes": signed.recovery_codes}
    )


@router.post("/session", response_model=SessionCreated, responses=WRITES, operation_id="create_session")
def create_session(body: SessionCreate, request: Request) -> Response:
    """Sign in with the password (or one unused recovery code). 401 for an unknown user
    and a wrong password alike; 429 with Retry-After after too many failures for the
    name or from the address."""
    recovery = body.password is None and body.recovery_code is not None
    secret = body.recovery_code if recovery else body.password
    signed = accounts(request).sign_in(
        body.username, secret or "", client(request), guest_hash(request), device(request), recovery=recovery
    )
    return signed_in_answer(request, signed, 200, {"username": signed.username})


@router.delete("/session", status_code=204, responses=refusals(403, 429, 503), operation_id="delete_session")
def delete_session(request: Request) -> Response:
    """Sign out this browser; its games stay with the account."""
    response = Response(status_code=204)
    value = identity.session_id(request)
    if value:
        accounts(request).end_session(value)
    identity.clear_session_cookie(request, response)
    return response


# ------------------------------------------------------------------ passkeys


@router.post(
    "/account/passkey/options",
    response_model=CeremonyOptions,
    responses=WRITES,
    operation_id="passkey_signup_options",
)
def passkey_signup_options(body: SignupOptions, request: Request) -> dict[str, Any]:
    """Sign up with a passkey, step 1: the creation options for this username."""
    accounts(request).count_sign_up(client(request))
    return passkeys(request).signup_options(relying_party(request), body.username)


@router.post(
    "/account/passkey",
    status_code=201,
    response_model=AccountCreated,
    responses=WRITES,
    operation_id="passkey_signup",
)
def passkey_signup(body: PasskeyCredential, request: Request) -> Response:
    """Sign up with a passkey, step 2: the new credential; the account is created with it."""
    signed = passkeys(request).signup_verify(
        relying_party(request), body.ceremony, body.credential, guest_hash(request), device(request)
    )
    return signed_in_answer(
        request, signed, 201, {"username": signed.username, "recovery_codes": signed.recovery_codes}
    )


@router.post(
    "/session/passkey/options",
    response_model=CeremonyOptions,
    responses=refusals(400, 403, 413, 422, 429, 503),
    operation_id="passkey_signin_options",
)
def passkey_signin_options(request: Request) -> dict[str, Any]:
    """Sign in with a passkey (or re-authenticate before closing), step 1."""
    return passkeys(request).signin_options(relying_party(request))


@router.post(
    "/session/passkey", response_model=SessionCreated, responses=WRITES, operation_id="passkey_signin"
)
def passkey_signin(body: PasskeyCredential, request: Request) -> Response:
    """Sign in with a passkey, step 2: the assertion; 401 if it is not accepted."""
    account_id = passkeys(request).signin_verify(relying_party(request), body.ceremony, body.credential)
    signed = accounts(request).sign_in_account(account_id, guest_hash(request), device(request))
    return signed_in_answer(request, signed, 200, {"username": signed.username})


@router.post(
    "/account/passkeys/options",
    response_model=CeremonyOptions,
    responses=WRITES,
    operation_id="passkey_add_options",
    dependencies=SESSION,
)
def passkey_add_options(request: Request) -> dict[str, Any]:
    """Add a passkey to the signed-in account, step 1."""
    return passkeys(request).add_options(relying_party(request), me(request).id)


@router.post(
    "/account/passkeys",
    status_code=201,
    response_model=AccountPublic,
    responses=WRITES,
    operation_id="passkey_add",
    dependencies=SESSION,
)
def passkey_add(body: PasskeyCredential, request: Request) -> dict[str, Any]:
    """Add a passkey, step 2: the new credential. Answers the account."""
    account = me(request)
    passkeys(request).add_verify(relying_party(request), account.id, body.ceremony, body.credential)
    return account_answer(request, account.id)


@router.delete(
    "/account/passkeys/{passkey_id:int}",
    status_code=204,
    responses=refusals(401, 403, 404, 409, 422, 429, 503),
    operation_id="passkey_remove",
    dependencies=SESSION,
)
def passkey_remove(passkey_id: Annotated[int, Path(ge=1, le=2**31 - 1)], request: Request) -> Response:
    """Remove a passkey (409 when it is the only way in left)."""
    passkeys(request).remove(me(request).id, passkey_id)
    return Response(status_code=204)


# ------------------------------------------------------------------ the account


@router.get(
    "/account",
    response_model=AccountPublic,
    responses=READS,
    operation_id="get_account",
    dependencies=SESSION,
)
def get_account(request: Request) -> dict[str, Any]:
    """The signed-in account: username, created_at, passkeys, has_password, preferences,
    email (null without an address, or where the site sends no email)."""
    return account_answer(request, me(request).id)


@router.put(
    "/account/password", status_code=204, responses=WRITES, operation_id="set_password", dependencies=SESSION
)
def set_password(body: PasswordSet, request: Request) -> Response:
    """Set a password, or change it (the current one is then required: 403 if wrong)."""
    accounts(request).set_password(me(request).id, body.password, body.current_password)
    return Response(status_code=204)


@router.post(
    "/account/recovery-codes",
    status_code=201,
    response_model=RecoveryCodes,
    responses=WRITES,
    operation_id="new_recovery_codes",
    dependencies=SESSION,
)
def new_recovery_codes(request: Request) -> dict[str, Any]:
    """New recovery codes (shown once); every earlier code stops working."""
    return {"codes": accounts(request).new_recovery_codes(me(request).id)}


@router.put(
    "/account/preferences",
    response_model=Preferences,
    responses=WRITES,
    operation_id="set_preferences",
    dependencies=SESSION,
)
def set_preferences(body: Preferences, request: Request) -> dict[str, Any]:
    """Keep preferences with the account (fields left out or null are kept as they were)."""
    return accounts(request).set_preferences(me(request).id, body.model_dump(exclude_none=True))


@router.get(
    "/account/sessions",
    response_model=Devices,
    responses=READS,
    operation_id="list_sessions",
    dependencies=SESSION,
)
def list_sessions(request: Request) -> dict[str, Any]:
    """The browsers signed in to the account (this one marked ``current``)."""
    account = me(request)
    return {"devices": accounts(request).devices(account.id, identity.session_id(request) or "")}


@router.delete(
    "/account/sessions",
    response_model=Ended,
    responses=WRITES,
    operation_id="end_other_sessions",
    dependencies=SESSION,
)
def end_other_sessions(request: Request) -> dict[str, Any]:
    """Sign out everywhere else: every session of the account but this one ends."""
    account = me(request)
    return {"ended": accounts(request).end_other_sessions(account.id, identity.session_id(request) or "")}


@router.get("/account/export", responses=READS, operation_id="export_account", dependencies=SESSION)
def export_account(request: Request) -> JSONResponse:
    """All personal data as JSON: account, sessions, passkeys, seats with their games'
    moves, ladder runs."""
    data = account_data(request).export(me(request).id)
    return JSONResponse(
        data,
        headers={
            "Content-Disposition": 'attachment; filename="tablero-account.json"',
            "Cache-Control": "no-store",
        },
    )


@router.delete(
    "/account", status_code=204, responses=WRITES, operation_id="delete_account", dependencies=SESSION
)
def delete_account(body: AccountDelete, request: Request) -> Response:
    """Close the account after re-authentication (the password, or a passkey assertion):
    its personal data is deleted now; finished games stay for the opponent under the
    name "deleted player"; the leaderboard entries go. 401 when not accepted."""
    account = me(request)
    if body.ceremony is not None and body.credential is not None:
        proved = passkeys(request).signin_verify(relying_party(request), body.ceremony, body.credential)
        if proved != account.id:
            raise Unauthorized(N_("the passkey was not accepted"))
    else:
        account_data(request).check_password(account.id, body.password or "")
    account_data(request).close(account.id)
    response = Response(status_code=204)
    identity.clear_session_cookie(request, response)
    return response


@router.get(
    "/users/{username}",
    response_model=UserPublic,
    responses=refusals(404, 422, 429, 503),
    operation_id="get_user",
)
def get_user(username: str, request: Request) -> dict[str, Any]:
    """A player's public profile: member since, games per game (played, won, drawn, lost),
    and ratings per game and category (issue 31; only those played, unrounded)."""
    profile = account_data(request).profile(username)
    with read_session(request.app.state.sessions) as db:
        rated = ratings_of(db, username)
    return {
        "username": profile["username"],
        "created_at": profile["created_at"],
        "games": profile["games"],
        "ratings": rated,
    }
