"""Time controls and clocks: pure arithmetic on stored values and a given moment.

The server is the only judge of time. A timed match stores, per side, the milliseconds
that side had left when the current turn began (``Clock.left_ms``), the moment that turn
began (``Clock.since``) and how many plies have been played; the deadline, the time a
move used and whether a side has flagged all follow from those and the moment passed in.
Nothing here reads a wall clock or a database, so every process reaches the same verdict
and the tests can give any moment they like.

Kinds:

- ``realtime``: Fischer clock, an initial allowance plus an increment after every move;
- ``correspondence``: a number of days per move, the allowance restored after each move.

The first move of each side is special (as on lichess): in real time the clock does not
run during a 30 s grace period, and a match whose side to move still has its first move
to make ends *aborted* (no result) instead of lost on time when its deadline passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

#: (initial seconds, increment seconds) offered as presets: 1+0, 3+2, 5+3, 10+5, 15+10, 30+20.
REALTIME_PRESETS: tuple[tuple[int, int], ...] = (
    (60, 0),
    (180, 2),
    (300, 3),
    (600, 5),
    (900, 10),
    (1800, 20),
)
CORRESPONDENCE_DAYS: tuple[int, ...] = (1, 2, 3, 5, 7, 14)
MIN_INITIAL_SECONDS = 15
MAX_INITIAL_SECONDS = 180 * 60
MAX_INCREMENT_SECONDS = 180
#: The first move of each side in real time: the clock waits this long before it runs.
GRACE = timedelta(seconds=30)
#: Under this much time left a page warns (colour, one sound).
LOW_TIME_MS = 10_000
#: A real-time player with no open event stream for this long may be claimed against.
ABANDON_AFTER = timedelta(seconds=60)
#: Plies before both sides have moved once: until then a match can only be aborted.
BOTH_MOVED = 2

KINDS = ("realtime", "correspondence")
MS_PER_DAY = 24 * 3600 * 1000


class TimeControlError(ValueError):
    """A time control that is not one we offer; the message is for a person."""


@dataclass(frozen=True)
class TimeControl:
    kind: str
    initial_seconds: int = 0
    increment_seconds: int = 0
    days: int = 0

    @property
    def realtime(self) -> bool:
        return self.kind == "realtime"

    @property
    def allowance_ms(self) -> int:
        """What each side has at the start (real time) or after each move (correspondence)."""
        return self.initial_seconds * 1000 if self.realtime else self.days * MS_PER_DAY

    @property
    def increment_ms(self) -> int:
        return self.increment_seconds * 1000 if self.realtime else 0

    def as_dict(self) -> dict[str, Any]:
        if self.realtime:
            return {
                "kind": "realtime",
                "initial_seconds": self.initial_seconds,
                "increment_seconds": self.increment_seconds,
            }
        return {"kind": "correspondence", "days": self.days}

    def label(self) -> str:
        """Short and language-free for real time ("5+3", "0:15+0"); correspondence is worded
        by the caller, which knows the reader's language."""
        minutes, seconds = divmod(self.initial_seconds, 60)
        start = str(minutes) if seconds == 0 else f"{minutes}:{seconds:02d}"
        return f"{start}+{self.increment_seconds}"


def _whole(value: Any, name: str) -> int:
    # bool is an int in Python; "true seconds" is not a time.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TimeControlError(f"{name} must be a whole number")
    return value


def parse(data: Any) -> TimeControl | None:
    """A time control from its JSON form (``None`` is untimed); readable errors."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TimeControlError("time_control must be an object or null")
    kind = data.get("kind")
    if kind == "realtime":
        extra = set(data) - {"kind", "initial_seconds", "increment_seconds"}
        if extra:
            raise TimeControlError(f"a realtime time_control has no {', '.join(sorted(extra))}")
        initial = _whole(data.get("initial_seconds"), "initial_seconds")
        increment = _whole(data.get("increment_seconds", 0), "increment_seconds")
        if not MIN_INITIAL_SECONDS <= initial <= MAX_INITIAL_SECONDS:
            raise TimeControlError(
                f"initial_seconds must be from {MIN_INITIAL_SECONDS} to {MAX_INITIAL_SECONDS} (180 minutes)"
            )
        if not 0 <= increment <= MAX_INCREMENT_SECONDS:
            raise TimeControlError(f"increment_seconds must be from 0 to {MAX_INCREMENT_SECONDS}")
        return TimeControl("realtime", initial_seconds=initial, increment_seconds=increment)
    if kind == "correspondence":
        extra = set(data) - {"kind", "days"}
        if extra:
            raise TimeControlError(f"a correspondence time_control has no {', '.join(sorted(extra))}")
        days = _whole(data.get("days"), "days")
        if days not in CORRESPONDENCE_DAYS:
            raise TimeControlError(f"days must be one of {', '.join(map(str, CORRESPONDENCE_DAYS))}")
        return TimeControl("correspondence", days=days)
    raise TimeControlError('time_control kind must be "realtime" or "correspondence"')


def loads(text: str | None) -> TimeControl | None:
    return parse(json.loads(text)) if text else None


def dumps(control: TimeControl | None) -> str | None:
    return json.dumps(control.as_dict(), sort_keys=True) if control else None


def expiry_after(control: TimeControl | None) -> timedelta | None:
    """How long a match nobody joined stays open: 24 h real time, 7 days correspondence."""
    if control is None:
        return None
    return timedelta(hours=24) if control.realtime else timedelta(days=7)


# ------------------------------------------------------------------ the clock


class Flagged(Exception):
    """The side to move's deadline has passed: its move cannot count."""


@dataclass(frozen=True)
class Clock:
    """A timed match's clock as stored.

    ``left_ms``: what each side had when the current turn began; ``to_move``: whose turn
    runs (``None`` when nothing runs: waiting or finished); ``since``: when that turn
    began; ``plies``: moves played so far.
    """

    left_ms: dict[str, int]
    to_move: str | None
    since: datetime | None
    plies: int


def start(control: TimeControl, sides: tuple[str, ...], to_move: str, moment: datetime) -> Clock:
    """The clock at the start of play: full allowance for both, the first side's turn."""
    return Clock({side: control.allowance_ms for side in sides}, to_move, moment, 0)


def in_grace(control: TimeControl, clock: Clock) -> bool:
    """Real time, and the side to move has yet to make its first move."""
    return control.realtime and clock.to_move is not None and clock.plies < BOTH_MOVED


def abortable(clock: Clock) -> bool:
    """Until both sides have moved once the match may end without a result."""
    return clock.to_move is not None and clock.plies < BOTH_MOVED


def running(control: TimeControl, clock: Clock) -> str | None:
    """The side whose clock counts down now (none during a grace period)."""
    return None if in_grace(control, clock) else clock.to_move


def deadline(control: TimeControl, clock: Clock) -> datetime | None:
    """When the side to move runs out (of its grace period, during one)."""
    if clock.to_move is None or clock.since is None:
        return None
    if in_grace(control, clock):
        return clock.since + GRACE
    return clock.since + timedelta(milliseconds=clock.left_ms[clock.to_move])


def expired(control: TimeControl, clock: Clock, moment: datetime) -> bool:
    """At the deadline's exact moment the time is up: a move must come strictly before."""
    due = deadline(control, clock)
    return due is not None and moment >= due


def expiry_reason(clock: Clock) -> str:
    """What an expired deadline ends the match with: before both moved, no result."""
    return "aborted" if abortable(clock) else "timeout"


def _elapsed_us(clock: Clock, moment: datetime) -> int:
    assert clock.since is not None
    # A process whose clock lags another's must not hand time back: never below zero.
    return max(0, (moment - clock.since) // timedelta(microseconds=1))


def left_at(control: TimeControl, clock: Clock, moment: datetime) -> dict[str, int]:
    """Milliseconds each side has at ``moment`` (the running side's, rounded down, ≥ 0)."""
    side = running(control, clock)
    if side is None:
        return dict(clock.left_ms)
    left_us = clock.left_ms[side] * 1000 - _elapsed_us(clock, moment)
    return {**clock.left_ms, side: max(0, left_us // 1000)}


def used_ms(control: TimeControl, clock: Clock, moment: datetime) -> int:
    """Clock time the side to move has used so far (0 in a grace period)."""
    if running(control, clock) is None:
        return 0
    return _elapsed_us(clock, moment) // 1000


def after_move(control: TimeControl, clock: Clock, next_side: str | None, moment: datetime) -> Clock:
    """The clock once the side to move has moved at ``moment``; ``next_side`` is ``None``
    when the move ended the game. Raises ``Flagged`` if the move came too late.

    Real time: the time used is subtracted (rounded so as never to give time back) and
    the increment added, except for a move made in its grace period, which costs nothing
    and earns nothing. Correspondence: the mover's allowance is restored.
    """
    mover = clock.to_move
    if mover is None:
        raise ValueError("no clock is running")
    if expired(control, clock, moment):
        raise Flagged(mover)
    left = dict(clock.left_ms)
    if not control.realtime:
        left[mover] = control.allowance_ms
    elif not in_grace(control, clock):
        left[mover] = (left[mover] * 1000 - _elapsed_us(clock, moment)) // 1000 + control.increment_ms
    return Clock(left, next_side, moment if next_side is not None else None, clock.plies + 1)


def stopped(control: TimeControl, clock: Clock, moment: datetime) -> Clock:
    """The clock frozen at ``moment`` (the match ended otherwise than by a move)."""
    return Clock(left_at(control, clock, moment), None, None, clock.plies)


def restarted(clock: Clock, left_ms: dict[str, int], to_move: str, plies: int, moment: datetime) -> Clock:
    """A turn begun again at ``moment`` with the given times (a takeback)."""
    return replace(clock, left_ms=dict(left_ms), to_move=to_move, since=moment, plies=plies)


def away_too_long(last_seen: datetime | None, since: datetime, moment: datetime) -> bool:
    """No open event stream for ``ABANDON_AFTER``: counted from the last sign of life, or
    from ``since`` (the turn began) for a player never seen."""
    seen = since if last_seen is None else max(last_seen, since)
    return moment - seen >= ABANDON_AFTER


def clock_text(ms: int) -> str:
    """A clock as shown: "4:59", "0:09.4" under ten seconds, "1:02:03", "2d 03h" (static/
    clocks.js formats the same way as it counts down)."""
    ms = max(0, ms)
    if ms < 10_000:
        return f"0:{ms // 1000:02d}.{ms % 1000 // 100}"
    seconds = ms // 1000
    days, seconds = divmod(seconds, 86_400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def ms_between(start: str, end: str) -> int:
    """Whole milliseconds from one ISO moment to a later one (0 if it is not later)."""
    delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    return max(0, delta // timedelta(milliseconds=1))
