"""Pydantic schemas of the accounts' JSON API (bodies checked by the service, so that a
refusal names the rule broken; the OpenAPI document still states each rule)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from app.accounts.credentials import MAX_PASSWORD, MIN_PASSWORD
from app.accounts.usernames import USERNAME_PATTERN
from app.mail.schemas import EmailState
from app.ratings.api import RatingPublic
from app.schemas import described

USERNAME_RULE: dict[str, Any] = {
    "pattern": USERNAME_PATTERN,
    "minLength": 2,
    "maxLength": 20,
    "description": "2-20 characters of A-Z, a-z, 0-9, _ and -, starting with a letter, no two _ or - "
    "in a row; unique without regard to case; some names are reserved (422)",
}
PASSWORD_RULE: dict[str, Any] = {"minLength": MIN_PASSWORD, "maxLength": MAX_PASSWORD}


class Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class AccountCreate(Body):
    username: str = Field(max_length=200, json_schema_extra=USERNAME_RULE)
    password: str = Field(max_length=1000, json_schema_extra=PASSWORD_RULE)


class AccountCreated(BaseModel):
    username: str
    #: Shown once: each signs in once when every passkey and the password are lost.
    recovery_codes: list[str]


class SessionCreate(Body):
    username: str = Field(max_length=200)
    password: str | None = Field(default=None, max_length=1000)
    #: Instead of the password: one of the account's unused recovery codes.
    recovery_code: str | None = Field(default=None, max_length=100)


class SessionCreated(BaseModel):
    username: str


class PasskeyPublic(BaseModel):
    id: int
    name: str
    created_at: str
    last_used_at: str | None


class Preferences(Body):
    language: Literal["en", "es"] | None = None
    sound: StrictBool | None = None
    dark: Literal["system", "dark", "light"] | None = None
    flip: StrictBool | None = None
    large_board: StrictBool | None = None
    #: False: no match page shows its chat (issue 33).
    chat: StrictBool | None = None


class AccountPublic(BaseModel):
    username: str
    created_at: str
    passkeys: list[PasskeyPublic]
    has_password: bool
    preferences: dict[str, Any]
    #: The address and its state (issue 32); null without one, or where the site sends no email.
    email: EmailState | None = None


class PasskeyCredential(Body):
    """The browser's PublicKeyCredential as JSON (``toJSON()``), for the ceremony begun
    by the matching options call."""

    ceremony: str = Field(max_length=64)
    credential: dict[str, Any]


class AccountDelete(Body):
    """Re-authentication: the password, or a passkey assertion for a ceremony begun by
    ``POST /api/session/passkey/options`` (fresh: a ceremony lives 5 minutes)."""

    password: str | None = Field(default=None, max_length=1000)
    ceremony: str | None = Field(default=None, max_length=64)
    credential: dict[str, Any] | None = None


class SignupOptions(Body):
    username: str = Field(max_length=200, json_schema_extra=USERNAME_RULE)


class CeremonyOptions(BaseModel):
    ceremony: str
    #: PublicKeyCredentialCreationOptions / RequestOptions as JSON (base64url binary).
    options: dict[str, Any]


class PasswordSet(Body):
    password: str = Field(max_length=1000, json_schema_extra=PASSWORD_RULE)
    #: Required when the account already has a password.
    current_password: str | None = Field(default=None, max_length=1000)


class RecoveryCodes(BaseModel):
    codes: list[str]


class Device(BaseModel):
    id: str
    device: str
    created_at: str
    last_seen_at: str
    current: bool


class Devices(BaseModel):
    devices: list[Device]


class Ended(BaseModel):
    ended: int


class GameTally(BaseModel):
    played: int
    won: int
    drawn: int
    lost: int


class UserPublic(BaseModel):
    username: str
    created_at: str
    games: dict[str, GameTally]
    #: {game: {"realtime"|"correspondence": values}}, for the categories played (issue 31).
    ratings: dict[str, dict[Literal["realtime", "correspondence"], RatingPublic]] = {}


_REFUSALS: dict[int, str] = {
    400: "the body is not UTF-8 JSON, or nested too deep",
    401: "not signed in, or the username, password or passkey was not accepted",
    403: "a cross-site request, or the current password is wrong",
    404: "no such user or passkey",
    409: "the username is taken (or the passkey already registered, or it is the last way in)",
    413: "the body is over 64 KiB",
    422: "the request is not valid: the rule it breaks is named",
    429: "too many failed sign-ins or sign-ups; wait Retry-After seconds",
    503: "the database is unavailable for a moment",
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    return described(_REFUSALS, *codes)


READS = refusals(401, 422, 429, 503)
WRITES = refusals(400, 401, 403, 409, 413, 422, 429, 503)
