"""A match as the JSON API shows it (one serialiser, ``state``, for the ORM row a read
gives and for the column values a move computes) and as a line of "My games"."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from app import texts
from app.matches.clock import clock_state, time_control_of
from app.matches.model import SeatRow, aware, engine_for, now, seat_of
from app.models import Match


def state(
    row: Any, to_move: str, seats: Sequence[Any], moves: list[str], moment: datetime, away: bool = True
) -> dict[str, Any]:
    """The match state from ``row`` (a ``Match``, or its columns as attributes), its
    ``seats`` and ``moves`` (notations); clocks as measured at ``moment``; ``away`` as
    ``away_side`` (which needs the seats' last-seen times) or ``None`` when ``away`` is false."""
    result = None
    if row.status == "finished":
        result = {"winner": row.winner, "reason": row.reason}
    return {
        "id": row.id,
        "game": row.game,
        "status": row.status,
        "position": row.position,
        "ply": row.ply,
        "to_move": to_move,
        "result": result,
        "moves": moves,
        "players": [player(row.game, s) for s in seats],
        "version": row.version,
        "draw_offer": row.draw_offer,
        "takeback_offer": row.takeback_offer,
        "rematch_id": row.rematch_id,
        "rematch_offer": row.rematch_offer,
        "rated": bool(getattr(row, "rated", False)),
        # Set on a finished rated match's read (core._read) or by its finishing move.
        "rating_changes": getattr(row, "rating_changes", None),
        **clock_state(row, to_move, moment, away=away),
    }


def player(game_name: str, seat: Any) -> dict[str, Any]:
    """A seat as the API shows it. A computer's stored name ("Computer 3") is kept for
    the clients that read it, and its ``level`` and ``label`` (the name the pages show,
    in English) added; both are null for a person."""
    level = seat.ai_level
    label = None if level is None else texts.computer_name(game_name, level, _english)
    computer = level is not None
    return {"side": seat.side, "name": seat.name, "computer": computer, "level": level, "label": label}


def _english(text: str) -> str:
    return text


def state_of(match: Match, moment: datetime | None = None) -> dict[str, Any]:
    """The match as the JSON API shows it; clocks as measured at ``moment``."""
    game = engine_for(match)
    to_move = game.to_move(game.parse_position(match.position))
    # A read has the move rows at hand: the list is theirs (tests/app/matches/test_move_atomic.py).
    return state(match, to_move, match.seats, [m.notation for m in match.moves], moment or now())


def answer(
    values: dict[str, Any], to_move: str, seats: tuple[SeatRow, ...], moment: datetime
) -> dict[str, Any]:
    """``state`` for a match known as column values (the move path has no ORM object);
    its clocks as at ``moment``, the move's, when the next turn has only just begun."""
    # Nobody can be away from a turn that began at this moment: no seat times needed.
    notations = values["notations"]
    moves = notations.split("\n") if notations else []
    return state(SimpleNamespace(**values, seats=seats), to_move, seats, moves, moment, away=False)


def your_move(match: Match, token_hash: str) -> bool:
    seat = seat_of(match, token_hash)
    if seat is None or match.status != "playing":
        return False
    game = engine_for(match)
    return game.to_move(game.parse_position(match.position)) == seat.side


def my_row(match: Match, token_hash: str, moment: datetime) -> dict[str, Any]:
    """One line of "My games" (and of ``GET /api/me/matches``)."""
    seat = seat_of(match, token_hash)
    assert seat is not None
    other = next((s for s in match.seats if s.side != seat.side), None)
    opponent = other.name if other is not None else None
    control = time_control_of(match)
    mine = your_move(match, token_hash)
    due = aware(match.deadline) if match.deadline is not None and match.status == "playing" else None
    updated = aware(match.finished_at or match.updated_at)
    return {
        "id": match.id,
        "game": match.game,
        "status": match.status,
        "side": seat.side,
        "opponent": opponent,
        "your_move": mine,
        "deadline": due.isoformat() if due else None,
        "time_control": control.as_dict() if control else None,
        "result": {"winner": match.winner, "reason": match.reason} if match.status == "finished" else None,
        "updated_at": updated.isoformat(),
        "left_ms": max(0, int((due - moment).total_seconds() * 1000)) if due else None,
        "_deadline": due,
        "_updated": updated,
        # The page names a computer seat in the reader's language (the API keeps its name).
        "_opponent_seat": other,
    }
