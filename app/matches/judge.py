"""The rules a change must pass, as pure functions of what the transaction read: no
database, no clock of their own (the moment is given), so they are tested alone
(tests/app/matches/test_judge.py). A refusal is raised as a ``ServiceError`` and changes nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import games
from app.matches.clock import clock_after_move, think_ms
from app.matches.model import Checked, Locked, Played, SeatRow
from app.matches.statements import Notice, Writes
from app.matches.view import answer
from app.services.errors import Conflict, Invalid, NotFound
from app.texts import N_
from games.base import BadMove, Game, GameError, IllegalMove, Outcome

#: The longest text a move may be (the longest notation of any game is far shorter).
MAX_MOVE_TEXT = 200


def require_playing(status: str) -> None:
    if status == "finished":
        raise Conflict(N_("the match is over"))
    if status == "waiting":
        raise Conflict(N_("the match is waiting for an opponent"))


def legal_in(match_id: str, row: Sequence[Any] | None) -> dict[str, Any]:
    """The answer of ``GET /legal`` from the match's row of ``READ_FOR_LEGAL`` (None: no match)."""
    if row is None:
        raise NotFound(f"there is no match {match_id!r}")
    game_name, status, position, ply = row
    if status != "playing":
        return {"ply": ply, "moves": []}
    game = games.get(game_name)
    return {"ply": ply, "moves": game.move_texts(game.parse_position(position))}


def start_position(game: Game[Any, Any], text: str) -> str:
    """A position to start a match from, in canonical form; ``Invalid`` naming the field."""
    try:
        state = game.parse_position(text)
    except GameError as exc:
        raise Invalid(f"position: {exc}") from None
    if not game.legal_moves(state):
        raise Invalid(N_("position: the game is already over in this position"))
    return game.format_position(state)


def check_move(locked: Locked, seat: SeatRow, text: str, ply: int, moment: datetime) -> Checked:
    """The move's checks on the locked row, and the position it makes; raises a
    refusal (nothing changed) when it cannot be played."""
    row = locked.match
    require_playing(row.status)
    if ply != row.ply:
        raise Conflict(
            N_("the match has moved on: it is at ply %(ply)s, not %(asked)s"), ply=row.ply, asked=ply
        )
    game = games.get(row.game)
    position = game.parse_position(row.position)
    if game.to_move(position) != seat.side:
        raise Conflict(N_("it is not your turn"))
    if not isinstance(text, str) or len(text) > MAX_MOVE_TEXT:
        raise Invalid(N_("a move is a short text in the game's notation"))
    try:
        move = game.parse_move(position, text)
    except BadMove as exc:
        raise Invalid(N_("malformed move: %(detail)s"), detail=exc) from None
    except IllegalMove as exc:
        raise Invalid(N_("illegal move: %(detail)s"), detail=exc) from None
    after = game.apply(position, move)
    return Checked(
        locked=locked,
        seat=seat,
        game=game,
        notation=game.format_move(move),
        after=after,
        after_text=game.format_position(after),
        moment=moment,
        code=game.repetition_code(after),
        outcome=game.outcome(after),
    )


def with_move(row: Any, moment: datetime, mover: str, next_side: str | None) -> dict[str, Any]:
    """The columns of the match row that every accepted move changes, besides the position,
    the ply, the version, the turn and the result, which ``accept_move`` sets.

    ``row`` is the match row as locked (every column), ``moment`` the time of the move,
    ``next_side`` the side to move after it (``None`` if the move ended the game).
    This is the one place for what else must change with a move (the clocks): the values
    returned here are written in the same UPDATE and show in the answer.
    """
    return {"draw_offer": None, "takeback_offer": None, **clock_after_move(row, moment, mover, next_side)}


def repeats(row: Any, game: Game[Any, Any], code: str, earlier: int) -> int:
    """How often the position with ``code`` has occurred, counting the one just reached.

    The start position, the ``earlier`` stored moves' positions with that code (an
    indexed count), and the new one: what ``Game.outcome_after`` counts over the
    whole history.
    """
    start = game.repetition_code(game.parse_position(row.initial_position)) == code
    return int(start) + earlier + 1


def accept_move(
    checked: Checked, earlier: int | None, notice_of: Callable[[str, int], Notice] | None = None
) -> Played:
    """The accepted move, its writes still to send (``Played.pending``).

    ``earlier``: how many stored moves of the match reached the position the move
    makes (``count_repeats``), given when it has a ``code_to_count``. ``notice_of``
    names the NOTIFY to send in the move's transaction (PostgreSQL). ``TimeUp`` if the
    mover's time had run out.
    """
    locked, seat, game, moment = checked.locked, checked.seat, checked.game, checked.moment
    row = locked.match
    outcome, counted = checked.outcome, checked.code_to_count
    if counted is not None:
        assert earlier is not None, "a position with a repetition rule needs its count"
        if repeats(row, game, counted, earlier) >= 3:
            outcome = Outcome(None, "repetition")
    to_move = game.to_move(checked.after)
    changes = with_move(row, moment, seat.side, to_move if outcome is None else None)
    notation, after_text = checked.notation, checked.after_text
    changes.update(
        position=after_text,
        ply=row.ply + 1,
        version=row.version + 1,
        notations=f"{row.notations}\n{notation}" if row.notations else notation,
        updated_at=moment,
        ai_turn_at=None,
        ai_claimed_until=None,
    )
    if outcome is None:
        changes["turn_started_at"] = moment
        if any(s.side == to_move and s.ai_level is not None for s in locked.seats):
            changes["ai_turn_at"] = moment
    else:
        changes.update(
            status="finished",
            winner=outcome.winner,
            reason=outcome.reason,
            finished_at=moment,
            draw_offer=None,
            takeback_offer=None,
            turn_started_at=None,
        )
    record = {
        "match_id": row.id,
        "ply": row.ply + 1,
        "side": seat.side,
        "notation": notation,
        "position_after": after_text,
        "think_ms": think_ms(row.turn_started_at, moment),
        "created_at": moment,
        "repetition": checked.code,
        "clocks_after": changes.get("clocks"),
    }
    notice = None if notice_of is None else notice_of(row.id, changes["version"])
    values = {**row._asdict(), **changes}
    return Played(
        state=answer(values, to_move, locked.seats, moment),
        version=changes["version"],
        computer_to_move=changes["ai_turn_at"] is not None,
        timed=row.time_control is not None,
        pending=Writes(record, row.id, changes, notice),
    )
