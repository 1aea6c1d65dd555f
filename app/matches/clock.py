"""A match's clocks and turns as stored on its row: read, shown, run down by a move,
started when play begins, stopped when it ends (the arithmetic is app.services.clocks)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from app.matches.model import TimeUp, aware, computer_seat, engine_for, now
from app.models import Match
from app.services import clocks as timing


def time_control_of(match: Match) -> timing.TimeControl | None:
    return timing.loads(match.time_control)


def clock_of(match: Match, to_move: str | None = None) -> timing.Clock | None:
    """The stored clock of a timed match (``None`` untimed); ``to_move`` saves a parse."""
    if match.time_control is None or match.clocks is None:
        return None
    running = None
    if match.status == "playing" and match.clock_since is not None:
        if to_move is None:
            game = engine_for(match)
            to_move = game.to_move(game.parse_position(match.position))
        running = to_move
    since = aware(match.clock_since) if match.clock_since is not None else None
    return timing.Clock(json.loads(match.clocks), running, since, match.ply)


def store_clock(match: Match, control: timing.TimeControl, clock: timing.Clock) -> None:
    match.clocks = json.dumps(clock.left_ms, sort_keys=True)
    match.clock_since = clock.since
    match.deadline = timing.deadline(control, clock)


def clock_state(match: Match, to_move: str, moment: datetime, away: bool = True) -> dict[str, Any]:
    """The time-control fields of a match state, measured at ``moment``."""
    control = time_control_of(match)
    clock = clock_of(match, to_move)
    fields: dict[str, Any] = {
        "time_control": control.as_dict() if control else None,
        "clocks": None,
        "clock_running": None,
        "clocks_at": None,
        "deadline": None,
        "grace": False,
        "abortable": match.status == "playing" and match.ply < timing.BOTH_MOVED and not match.ladder_run_id,
        "away": away_side(match, to_move, moment) if away else None,
    }
    if control is not None and clock is not None:
        due = timing.deadline(control, clock)
        fields.update(
            clocks=timing.left_at(control, clock, moment),
            clock_running=timing.running(control, clock),
            clocks_at=moment.isoformat(),
            deadline=due.isoformat() if due else None,
            grace=timing.in_grace(control, clock),
        )
    return fields


def away_side(match: Match, to_move: str, moment: datetime) -> str | None:
    """The side to move of a real-time match, if it has had no open event stream for
    ``ABANDON_AFTER`` during its turn: its opponent may claim the win or a draw."""
    control = time_control_of(match)
    if match.status != "playing" or control is None or not control.realtime or match.clock_since is None:
        return None
    seat = next((s for s in match.seats if s.side == to_move), None)
    if seat is None or seat.ai_level is not None:
        return None
    last_seen = aware(seat.last_seen_at) if seat.last_seen_at is not None else None
    return to_move if timing.away_too_long(last_seen, aware(match.clock_since), moment) else None


def clock_after_move(row: Any, moment: datetime, mover: str, next_side: str | None) -> dict[str, Any]:
    """The clock columns after ``mover``'s move at ``moment``: the time used subtracted,
    the increment added, the next turn started. ``TimeUp`` if the move came too late
    (the caller rolls back and finishes the match by its deadline). Untimed: nothing."""
    control = timing.loads(row.time_control)
    if control is None or row.clocks is None or row.clock_since is None:
        return {}
    clock = timing.Clock(json.loads(row.clocks), mover, aware(row.clock_since), row.ply)
    try:
        after = timing.after_move(control, clock, next_side, moment)
    except timing.Flagged:
        raise TimeUp(row.id) from None
    return {
        "clocks": json.dumps(after.left_ms, sort_keys=True),
        "clock_since": after.since,
        "deadline": timing.deadline(control, after),
    }


def think_ms(turn_started_at: datetime | None, moment: datetime) -> int | None:
    """Milliseconds from the turn's start to ``moment`` (None: no turn was running)."""
    if turn_started_at is None:
        return None
    return max(0, int((moment - aware(turn_started_at)).total_seconds() * 1000))


def time_is_up(match: Match, moment: datetime) -> bool:
    """Whether the side to move has run out of time at ``moment`` (its deadline passed)."""
    if match.deadline is None or aware(match.deadline) > moment:
        return False
    control, clock = time_control_of(match), clock_of(match)
    return control is not None and clock is not None and timing.expired(control, clock, moment)


def settle_clock(match: Match, moment: datetime) -> None:
    """A new timed match: nobody's clock runs while it waits (it expires instead); once
    it is being played, the first side's turn starts at ``moment``."""
    control = time_control_of(match)
    if control is None:
        return
    game = engine_for(match)
    if match.status == "playing":
        store_clock(
            match,
            control,
            timing.start(control, game.sides, game.to_move(game.parse_position(match.position)), moment),
        )
    else:
        match.clocks = json.dumps({side: control.allowance_ms for side in game.sides}, sort_keys=True)
        expiry = timing.expiry_after(control)
        match.deadline = moment + expiry if expiry else None


def stop_clock(match: Match, moment: datetime) -> None:
    """The clocks of a match that ends at ``moment``: frozen as they ran until then (a
    flag shows 0:00 for the side that ran out), and no deadline any more."""
    control, clock = time_control_of(match), clock_of(match)
    if control is not None and clock is not None:
        store_clock(match, control, timing.stopped(control, clock, moment))
    match.deadline = None


def restore_clock(match: Match, side: str, moment: datetime) -> None:
    """A takeback gives the time back as it was: both clocks as when ``side``'s
    taken-back turn began, which starts again at ``moment``."""
    control, clock = time_control_of(match), clock_of(match, side)
    if control is None or clock is None:
        return
    before = match.moves[-1].clocks_after if match.moves else None
    game = engine_for(match)
    left = json.loads(before) if before else timing.start(control, game.sides, side, moment).left_ms
    store_clock(match, control, timing.restarted(clock, left, side, match.ply, moment))


def settle_turn(match: Match, at: datetime | None) -> None:
    """Queue the computer's turn when it is to move in a match being played."""
    if match.status != "playing":
        match.ai_turn_at = None
        match.ai_claimed_until = None
        return
    side = engine_for(match).to_move(engine_for(match).parse_position(match.position))
    if computer_seat(match, side) is not None:
        if match.ai_turn_at is None:
            match.ai_turn_at = at or now()
    else:
        match.ai_turn_at = None
        match.ai_claimed_until = None
