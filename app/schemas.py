"""Pydantic schemas of the JSON API (DESIGN.md's contract), named as a family."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.services.names import clean_name


class Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Opponent(Strict):
    level: int = Field(ge=1, le=18)


class MatchCreate(Strict):
    game: str = Field(max_length=32)
    name: str = Field(max_length=200)
    side: Literal["first", "second", "random"] = "random"
    public: bool = False
    opponent: Opponent | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class MatchJoin(Strict):
    name: str = Field(max_length=200)

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
    #: On a finished match, the side asking for a rematch (see ``/rematch`` with an action).
    rematch_offer: str | None = None


class LegalMoves(BaseModel):
    ply: int
    moves: list[str]


class ErrorDetail(BaseModel):
    detail: str


class RunCreate(Strict):
    name: str = Field(max_length=200)

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
