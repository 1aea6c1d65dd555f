"""The chat's JSON shapes and the refusals its operations document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.chat.text import MAX_TEXT, TEXT_PATTERN
from app.schemas import described

Room = Literal["players", "spectators"]

TEXT_RULE: dict[str, Any] = {
    "pattern": TEXT_PATTERN,
    "minLength": 1,
    "description": f"free text: 1-{MAX_TEXT} characters after trimming (counted as characters, so an "
    "emoji or a CJK character is one); no control, format (invisible, bidi) or private-use "
    "characters; whitespace inside folds to single spaces; the private parts of links (a continue "
    "link, a token) are removed. Only accounts older than a day with 3 finished games (else 422)",
}


class Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Phrase(BaseModel):
    key: str
    text: str


class Phrases(BaseModel):
    phrases: list[Phrase]


class LineSay(Body):
    """A phrase (by key, from ``GET /api/chat/phrases``) or free text, not both."""

    room: Room
    phrase: str | None = Field(default=None, max_length=32)
    text: str | None = Field(default=None, max_length=20_000, json_schema_extra=TEXT_RULE)


class Line(BaseModel):
    id: int
    #: The name shown: the account's username, or a guest seat's name.
    from_: str = Field(alias="from", serialization_alias="from")
    account: str | None
    side: str | None
    #: The phrase's key, or null for free text.
    phrase: str | None
    #: The free text, or the phrase in the reader's language.
    text: str
    at: str

    model_config = ConfigDict(populate_by_name=True)


class Lines(BaseModel):
    lines: list[Line]


class ReportCreate(Body):
    username: str = Field(max_length=200)
    reason: str = Field(max_length=2000, description="1-500 characters, the chat line's character rules")
    line_id: int | None = Field(default=None, ge=1, le=2**31 - 1)


class ReportCreated(BaseModel):
    id: int
    username: str
    status: str


_REFUSALS: dict[int, str] = {
    400: "the body is not UTF-8 JSON, or nested too deep",
    403: "a room you may not read or write in, a moderator's timeout, or a cross-site request",
    404: "no such match, user or line",
    413: "the body is over 64 KiB",
    422: "the request is not valid: the rule it breaks is named (free text from a guest or a new account, "
    "a bad line, an unknown phrase)",
    429: "too many lines (4 in 10 s), the same line again within a minute, or too many reports; "
    "wait Retry-After seconds",
    503: "the database is unavailable for a moment",
}


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    return described(_REFUSALS, *codes)


READS = refusals(403, 404, 422, 429, 503)
WRITES = refusals(400, 403, 404, 413, 422, 429, 503)
