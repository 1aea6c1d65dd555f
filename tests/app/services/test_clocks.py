"""The clock arithmetic of app/services/clocks.py, on its own (no database, no wall clock)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.services import clocks
from app.services.clocks import Clock, TimeControl

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
FIVE_THREE = TimeControl("realtime", initial_seconds=300, increment_seconds=3)
THREE_DAYS = TimeControl("correspondence", days=3)


def ms(n: int) -> timedelta:
    return timedelta(milliseconds=n)


def running_clock(control: TimeControl, white: int, black: int, to_move: str = "w", plies: int = 2) -> Clock:
    """A clock past both first moves, ``to_move``'s turn begun at T0."""
    return Clock({"w": white, "b": black}, to_move, T0, plies)


# ------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "realtime", "initial_seconds": 15, "increment_seconds": 0},
        {"kind": "realtime", "initial_seconds": 10800, "increment_seconds": 180},
        {"kind": "realtime", "initial_seconds": 300},
        {"kind": "correspondence", "days": 14},
    ],
)
def test_the_offered_controls_parse_and_round_trip(data: dict) -> None:
    control = clocks.parse(data)
    assert control is not None
    assert clocks.loads(clocks.dumps(control)) == control
    assert control.as_dict() == {"increment_seconds": 0, **data} if control.realtime else data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "realtime", "initial_seconds": 14}, "initial_seconds must be from 15"),
        ({"kind": "realtime", "initial_seconds": 10801}, "initial_seconds must be from 15"),
        ({"kind": "realtime", "initial_seconds": 60, "increment_seconds": 181}, "increment_seconds"),
        ({"kind": "realtime", "initial_seconds": 60, "increment_seconds": -1}, "increment_seconds"),
        ({"kind": "realtime", "initial_seconds": "60"}, "whole number"),
        ({"kind": "realtime", "initial_seconds": True}, "whole number"),
        ({"kind": "realtime", "initial_seconds": 60, "days": 3}, "no days"),
        ({"kind": "correspondence", "days": 4}, "days must be one of 1, 2, 3, 5, 7, 14"),
        ({"kind": "blitz"}, "kind must be"),
        ([], "object or null"),
    ],
)
def test_anything_else_is_refused_in_words(data: object, message: str) -> None:
    with pytest.raises(clocks.TimeControlError, match=message):
        clocks.parse(data)


def test_untimed_is_none() -> None:
    assert clocks.parse(None) is None
    assert clocks.dumps(None) is None and clocks.loads(None) is None


def test_labels_and_expiry() -> None:
    assert FIVE_THREE.label() == "5+3"
    assert TimeControl("realtime", initial_seconds=15).label() == "0:15+0"
    assert clocks.expiry_after(FIVE_THREE) == timedelta(hours=24)
    assert clocks.expiry_after(THREE_DAYS) == timedelta(days=7)
    assert clocks.expiry_after(None) is None


def test_every_preset_is_valid() -> None:
    for initial, increment in clocks.REALTIME_PRESETS:
        clocks.parse({"kind": "realtime", "initial_seconds": initial, "increment_seconds": increment})
    for days in clocks.CORRESPONDENCE_DAYS:
        clocks.parse({"kind": "correspondence", "days": days})


# ------------------------------------------------------------------ running


def test_time_used_is_subtracted_and_the_increment_added() -> None:
    clock = running_clock(FIVE_THREE, 300_000, 300_000)
    after = clocks.after_move(FIVE_THREE, clock, "b", T0 + ms(12_345))
    assert after.left_ms == {"w": 300_000 - 12_345 + 3_000, "b": 300_000}
    assert (after.to_move, after.since, after.plies) == ("b", T0 + ms(12_345), 3)
    assert clocks.deadline(FIVE_THREE, after) == T0 + ms(12_345) + ms(300_000)


def test_a_fraction_of_a_millisecond_is_charged_never_given() -> None:
    clock = running_clock(FIVE_THREE, 10_000, 10_000)
    after = clocks.after_move(FIVE_THREE, clock, "b", T0 + timedelta(microseconds=1_500))
    assert after.left_ms["w"] == 10_000 - 2 + 3_000


def test_the_flag_falls_at_the_exact_millisecond() -> None:
    clock = running_clock(FIVE_THREE, 5_000, 300_000)
    assert clocks.deadline(FIVE_THREE, clock) == T0 + ms(5_000)
    just_in_time = T0 + ms(5_000) - timedelta(microseconds=1)
    assert not clocks.expired(FIVE_THREE, clock, just_in_time)
    assert clocks.after_move(FIVE_THREE, clock, "b", just_in_time).left_ms["w"] == 0 + 3_000
    assert clocks.expired(FIVE_THREE, clock, T0 + ms(5_000))
    with pytest.raises(clocks.Flagged):
        clocks.after_move(FIVE_THREE, clock, "b", T0 + ms(5_000))
    assert clocks.expiry_reason(clock) == "timeout"


def test_left_at_counts_down_only_the_running_side_and_stops_at_zero() -> None:
    clock = running_clock(FIVE_THREE, 5_000, 7_000, to_move="b")
    assert clocks.left_at(FIVE_THREE, clock, T0 + ms(1_000)) == {"w": 5_000, "b": 6_000}
    assert clocks.left_at(FIVE_THREE, clock, T0 + ms(9_000)) == {"w": 5_000, "b": 0}
    assert clocks.used_ms(FIVE_THREE, clock, T0 + ms(2_500)) == 2_500
    # A process whose clock lags behind the one that stored ``since`` gives nothing back.
    assert clocks.left_at(FIVE_THREE, clock, T0 - ms(500)) == {"w": 5_000, "b": 7_000}


def test_the_first_move_of_each_side_has_a_grace_period_and_no_increment() -> None:
    clock = clocks.start(FIVE_THREE, ("w", "b"), "w", T0)
    assert clocks.in_grace(FIVE_THREE, clock) and clocks.running(FIVE_THREE, clock) is None
    assert clocks.deadline(FIVE_THREE, clock) == T0 + clocks.GRACE
    first = clocks.after_move(FIVE_THREE, clock, "b", T0 + ms(20_000))
    assert first.left_ms == {"w": 300_000, "b": 300_000}
    assert clocks.in_grace(FIVE_THREE, first) and clocks.deadline(FIVE_THREE, first) == T0 + ms(50_000)
    second = clocks.after_move(FIVE_THREE, first, "w", T0 + ms(45_000))
    assert second.left_ms == {"w": 300_000, "b": 300_000}
    assert not clocks.in_grace(FIVE_THREE, second) and clocks.running(FIVE_THREE, second) == "w"
    assert clocks.deadline(FIVE_THREE, second) == T0 + ms(45_000 + 300_000)


def test_a_missed_first_move_aborts() -> None:
    clock = clocks.start(FIVE_THREE, ("w", "b"), "w", T0)
    assert not clocks.expired(FIVE_THREE, clock, T0 + clocks.GRACE - ms(1))
    assert clocks.expired(FIVE_THREE, clock, T0 + clocks.GRACE)
    assert clocks.expiry_reason(clock) == "aborted"
    second = clocks.after_move(FIVE_THREE, clock, "b", T0 + ms(1_000))
    assert clocks.abortable(second) and clocks.expiry_reason(second) == "aborted"


def test_correspondence_restores_the_allowance_after_each_move() -> None:
    day3 = 3 * clocks.MS_PER_DAY
    clock = clocks.start(THREE_DAYS, ("w", "b"), "w", T0)
    assert not clocks.in_grace(THREE_DAYS, clock) and clocks.running(THREE_DAYS, clock) == "w"
    assert clocks.deadline(THREE_DAYS, clock) == T0 + timedelta(days=3)
    after = clocks.after_move(THREE_DAYS, clock, "b", T0 + timedelta(days=2, hours=23))
    assert after.left_ms == {"w": day3, "b": day3}
    assert clocks.deadline(THREE_DAYS, after) == T0 + timedelta(days=5, hours=23)
    late = clocks.Clock({"w": day3, "b": day3}, "w", T0, 4)
    with pytest.raises(clocks.Flagged):
        clocks.after_move(THREE_DAYS, late, "b", T0 + timedelta(days=3))


def test_a_stopped_clock_keeps_what_was_left_and_has_no_deadline() -> None:
    clock = running_clock(FIVE_THREE, 5_000, 7_000)
    stopped = clocks.stopped(FIVE_THREE, clock, T0 + ms(2_000))
    assert stopped.left_ms == {"w": 3_000, "b": 7_000}
    assert clocks.deadline(FIVE_THREE, stopped) is None and clocks.running(FIVE_THREE, stopped) is None


def test_away_counts_from_the_last_sign_of_life_or_the_turn() -> None:
    minute = clocks.ABANDON_AFTER
    assert not clocks.away_too_long(None, T0, T0 + minute - ms(1))
    assert clocks.away_too_long(None, T0, T0 + minute)
    assert not clocks.away_too_long(T0 + ms(10_000), T0, T0 + minute)
    # Gone long before this turn began: still a full minute from the turn's start.
    assert not clocks.away_too_long(T0 - timedelta(hours=1), T0, T0 + ms(59_000))
