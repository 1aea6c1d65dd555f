"""Pydantic schemas of the JSON API (DESIGN.md's contract), named as a family."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from app.services.names import NAME_PATTERN, clean_name

#: The display-name rule, published as the pattern the server applies (names.py).
NAME_RULE: dict[str, Any] = {
    "pattern": NAME_PATTERN,
    "minLength": 1,
    "description": "1-32 characters after trimming; no control or invisible characters; "
    "whitespace inside folds to single spaces",
}


def name_field() -> Any:
    return Field(json_schema_extra=NAME_RULE)


class Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Opponent(Strict):
    """The computer's level: Bashni has the ladder's 18, the other games 4."""

    level: int = Field(ge=1, le=18)


class SmallOpponent(Strict):
    level: int = Field(ge=1, le=4)


class _MatchCreate(Strict):
    name: str = name_field()
    side: Literal["first", "second", "random"] = "random"
    public: StrictBool = False

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class BashniCreate(_MatchCreate):
    game: Literal["bashni"]
    opponent: Opponent | None = None


class MorrisCreate(_MatchCreate):
    game: Literal["morris"]
    opponent: SmallOpponent | None = None


class BobailCreate(_MatchCreate):
    game: Literal["bobail"]
    opponent: SmallOpponent | None = None


class BilsangCreate(_MatchCreate):
    game: Literal["bilsang"]
    opponent: SmallOpponent | None = None


#: One shape per game, told apart by "game", so the document says which levels each takes.
MatchCreate = Annotated[
    BashniCreate | MorrisCreate | BobailCreate | BilsangCreate, Field(discriminator="game")
]


class MatchJoin(Strict):
    name: str = name_field()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class MoveCreate(Strict):
    move: str = Field(min_length=1, max_length=200)
    ply: int = Field(ge=0)


class OfferAction(Strict):
    action: Literal["offer", "accept", "decline"]


class MatchCreated(BaseModel):
    id: str
    invite_url: str
    seat: str


class SeatTaken(BaseModel):
    seat: str


class Player(BaseModel):
    side: str
    name: str
    computer: bool = False


class Result(BaseModel):
    winner: str | None
    reason: str


class MatchPublic(BaseModel):
    id: str
    game: str
    status: Literal["waiting", "playing", "finished"]
    position: str
    ply: int
    to_move: str
    result: Result | None
    moves: list[str]
    players: list[Player]
    version: int
    draw_offer: str | None = None
    takeback_offer: str | None = None
    rematch_id: str | None = None


class LegalMoves(BaseModel):
    ply: int
    moves: list[str]


class ErrorDetail(BaseModel):
    detail: str


class RunCreate(Strict):
    name: str = name_field()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class RunCreated(BaseModel):
    id: str
    opponent: int
    match_id: str


class RunPublic(BaseModel):
    id: str
    name: str
    status: Literal["playing", "finished"]
    opponent: int
    wins: int
    think_ms_won: int
    score: int
    match_id: str | None


class LeaderboardEntry(BaseModel):
    rank: int
    name: str
    wins: int
    avg_think_ms: int | None
    score: int
    finished_at: str | None
    run_id: str


class Leaderboard(BaseModel):
    entries: list[LeaderboardEntry]
    page: int
    pages: int


_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
_REFUSALS: dict[int, dict[str, Any]] = {
    400: {"description": "the body is not UTF-8 JSON, or nested too deep"},
    403: {"description": "no seat in this match, or a cross-site request"},
    404: {"description": "no such match or run"},
    409: {"description": "the request conflicts with the match's state (or a per-client limit)"},
    413: {"description": "the body is over 64 KiB"},
    422: {"description": "the request is not valid"},
    429: {"description": "too many requests from this client", "headers": _RETRY_AFTER},
    503: {"description": "the database is unavailable for a moment", "headers": _RETRY_AFTER},
}
#: What a reading call and a changing call can be refused with, for the OpenAPI document.
READ_REFUSALS = (404, 422, 429, 503)
WRITE_REFUSALS = (400, 403, 404, 409, 413, 422, 429, 503)


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorDetail, **_REFUSALS[code]} for code in codes}
