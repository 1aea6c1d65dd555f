"""Pydantic schemas of the records, review and position calls (issue 18)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from app.schemas import Player, Result


class RecordPublic(BaseModel):
    """An imported game, in the shape of a match's state."""

    id: str
    game: str
    status: Literal["finished", "unfinished"]
    position: str
    ply: int
    to_move: str
    result: Result | None
    moves: list[str]
    players: list[Player]
    initial_position: str
    tags: list[list[str]]


class PlyReview(BaseModel):
    """The computer's view of the position after ``ply`` plies (0: the start)."""

    ply: int
    #: From White's / player 1's side, in the game's piece units (a man, a piece, a buoy);
    #: null when ``win_in`` says the game is decided.
    score: float | None
    #: Plies to the end of a game the search found decided: > 0 White / player 1 wins,
    #: < 0 the other side wins, 0 the game is over and drawn.
    win_in: int | None
    #: White's / player 1's winning chance, 0..100, as the graph draws it.
    chance: float
    best: str | None
    depth: int
    #: For the move that led here (ply >= 1): "inaccuracy", "blunder" or null.
    mark: str | None = None
    #: The move the computer prefers to the one played to reach this position.
    better: str | None = None


class ReviewPublic(BaseModel):
    status: Literal["queued", "running", "done", "failed"]
    done: int
    total: int
    plies: list[PlyReview]
    error: str | None = None


class PositionMove(BaseModel):
    move: str
    #: Every order of board points a player may tap to make the move.
    clicks: list[list[str]]
    after: str


class PositionMoves(BaseModel):
    game: str
    position: str
    to_move: str
    result: Result | None
    moves: list[PositionMove]


class BestMove(BaseModel):
    move: str | None
    score: float | None
    win_in: int | None
    depth: int
