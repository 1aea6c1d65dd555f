"""The seeks' JSON schemas and the refusals each operation documents."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, StrictBool, StrictInt, field_validator

from app.schemas import NAME_RULE, Strict, TimeControlBody, documented
from app.services.names import clean_name


class SeekCreate(Strict):
    """A wish to play anyone: it pairs with the oldest compatible open seek, or waits."""

    game: str = Field(max_length=32, description="bashni, morris, bobail or bilsang")
    #: null: untimed (the seek then lives, like a real-time one, while its page is open).
    time_control: TimeControlBody | None = None
    rated: StrictBool = False
    #: For rated seeks: the opponent's rating must lie in [min, max].
    rating_range: tuple[StrictInt, StrictInt] | None = None
    #: The name shown to others; the name remembered by the site, else "Guest".
    name: str | None = Field(default=None, json_schema_extra=NAME_RULE)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        return None if value is None else clean_name(value)

    @field_validator("rating_range")
    @classmethod
    def _range(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and value[0] > value[1]:
            raise ValueError("the range's minimum must not be above its maximum")
        return value


class SeekPlaced(BaseModel):
    id: str
    status: Literal["waiting", "paired"]
    #: Only when paired: the match both players were sent to.
    match_id: str | None = None


class OpenSeek(BaseModel):
    id: str
    game: str
    time_control: dict[str, Any] | None
    rated: bool
    name: str
    #: The seeker's rating in this game; null for a guest.
    rating: int | None
    #: Made by this browser (it may cancel it).
    mine: bool


class OpenSeeks(BaseModel):
    seeks: list[OpenSeek]
    #: Players seen in the last minute, per game (playing or seeking).
    online: dict[str, int]


CREATE_REFUSALS = documented(
    _400="the body is not UTF-8 JSON, or nested too deep",
    _403="a rated seek, which needs an account; or a cross-site request",
    _409="you have three open seeks already, or your network has ten",
    _413="the body is over 64 KiB",
    _422="an unknown game, a time control we do not offer, a bad name, or a rating range on a casual seek",
    _429="too many requests from this client",
    _503="the database is unavailable for a moment",
)
LIST_REFUSALS = documented(_429="too many requests from this client", _503="the database is unavailable")
CANCEL_REFUSALS = documented(
    _403="a cross-site request",
    _404="no such seek of this browser (anyone else's is not found either)",
    _409="the seek has already been paired",
    _429="too many requests from this client",
    _503="the database is unavailable for a moment",
)
STREAM_REFUSALS = documented(
    _404="no such seek of this browser",
    _429="too many event streams from this client",
    _503="the database is unavailable for a moment",
)
