"""Time controls through MatchService, with an injected clock (no worker runs here).

Every moment is given by the test: a move's time used and increment, the flag at the
exact millisecond, a move after the deadline, grace periods and aborts, takebacks, draws,
resignations and rematches with clocks, abandonment claims, and the ladder untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.db import make_engine, make_sessionmaker
from app.matches.events import Publisher
from app.matches.service import MatchService
from app.matches.view import state_of
from app.services import clocks
from app.services.errors import Conflict, Invalid
from app.services.ladder import LadderService
from tests.app.conftest import database_url
from tests.app.helpers import BASHNI_WIN, MORRIS_WIN

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
ALICE, BOB, CAROL = "a" * 64, "b" * 64, "c" * 64
FIVE_THREE = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}


@dataclass
class FakeClock:
    moment: datetime = T0

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@dataclass
class World:
    svc: MatchService
    clock: FakeClock
    published: list[tuple[str, int]] = field(default_factory=list)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    url = database_url(tmp_path)
    engine = make_engine(url)
    clock = FakeClock()
    published: list[tuple[str, int]] = []
    svc = MatchService(
        make_sessionmaker(engine), Publisher(lambda m, v: published.append((m, v))), clock=clock
    )
    yield World(svc, clock, published)
    engine.dispose()


def timed(world: World, control: dict | None = FIVE_THREE, game: str = "morris") -> str:
    """Alice (first side) creates, Bob joins at the world's moment."""
    match_id = world.svc.create(game, "Alice", "first", ALICE, time_control=control).match.id
    world.svc.join(match_id, "Bob", BOB)
    return match_id


def state(world: World, match_id: str) -> dict:
    return state_of(world.svc.get(match_id), world.clock())


def move(world: World, match_id: str, who: str, text: str) -> dict:
    ply = world.svc.get(match_id).ply
    return world.svc.move(match_id, who, text, ply).state


def past_grace(world: World, match_id: str) -> None:
    """Both first moves, each inside its grace period: the clocks start untouched."""
    move(world, match_id, ALICE, MORRIS_WIN[0])
    world.clock.advance(seconds=5)
    move(world, match_id, BOB, MORRIS_WIN[1])


def test_untimed_matches_have_no_clocks(world: World) -> None:
    found = state(world, timed(world, None))
    assert found["time_control"] is None and found["clocks"] is None
    assert found["clock_running"] is None and found["deadline"] is None


def test_a_bad_time_control_is_refused_and_nothing_is_created(world: World) -> None:
    with pytest.raises(Invalid, match="initial_seconds must be from 15"):
        world.svc.create(
            "morris", "Alice", "first", ALICE, time_control={"kind": "realtime", "initial_seconds": 5}
        )
    assert world.svc.mine(ALICE) == []


def test_time_used_and_increment_on_every_move(world: World) -> None:
    match_id = timed(world)
    found = state(world, match_id)
    assert found["time_control"] == FIVE_THREE
    assert found["clocks"] == {"w": 300_000, "b": 300_000} and found["grace"]
    past_grace(world, match_id)
    found = state(world, match_id)
    assert found["clock_running"] == "w" and not found["grace"]
    assert found["deadline"] == (T0 + timedelta(seconds=5, minutes=5)).isoformat()
    expected = {"w": 300_000, "b": 300_000}
    for ply, (who, side) in enumerate([(ALICE, "w"), (BOB, "b")] * 3, start=2):
        world.clock.advance(milliseconds=1_000 + 250 * ply)
        after = move(world, match_id, who, MORRIS_WIN[ply])
        expected[side] += -(1_000 + 250 * ply) + 3_000
        assert after["clocks"] == expected, ply
        assert after["clock_running"] == ("b" if side == "w" else "w")
    # The other side's clock runs while the page is read.
    world.clock.advance(milliseconds=700)
    assert state(world, match_id)["clocks"] == {**expected, "w": expected["w"] - 700}


def test_the_flag_falls_at_the_exact_millisecond(world: World) -> None:
    control = {"kind": "realtime", "initial_seconds": 15, "increment_seconds": 0}
    match_id = timed(world, control)
    past_grace(world, match_id)
    world.clock.advance(milliseconds=14_999)
    assert move(world, match_id, ALICE, MORRIS_WIN[2])["clocks"]["w"] == 1
    world.clock.advance(milliseconds=15_000)
    found = state(world, match_id)
    assert found["status"] == "finished"
    assert found["result"] == {"winner": "w", "reason": "timeout"}
    assert found["clocks"] == {"w": 1, "b": 0} and found["deadline"] is None
    assert world.published[-1] == (match_id, found["version"])


def test_a_move_after_the_deadline_is_refused_and_the_match_finished_by_timeout(world: World) -> None:
    match_id = timed(world, {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    past_grace(world, match_id)
    world.clock.advance(seconds=60)
    with pytest.raises(Conflict, match="time ran out"):
        world.svc.move(match_id, ALICE, MORRIS_WIN[2], 2)
    match = world.svc.get(match_id)
    assert (match.status, match.winner, match.reason, match.ply) == ("finished", "b", "timeout", 2)
    with pytest.raises(Conflict, match="over"):
        world.svc.move(match_id, ALICE, MORRIS_WIN[2], 2)


def test_only_one_call_finishes_an_expired_match(world: World) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(minutes=6)
    assert world.svc.expire(match_id) is True
    assert world.svc.expire(match_id) is False
    assert world.svc.get(match_id).reason == "timeout"


def test_correspondence_resets_the_allowance(world: World) -> None:
    match_id = timed(world, {"kind": "correspondence", "days": 2})
    full = 2 * clocks.MS_PER_DAY
    found = state(world, match_id)
    assert found["clock_running"] == "w" and not found["grace"]
    world.clock.advance(days=1, hours=23)
    after = move(world, match_id, ALICE, MORRIS_WIN[0])
    assert after["clocks"] == {"w": full, "b": full}
    assert after["deadline"] == (world.clock() + timedelta(days=2)).isoformat()
    world.clock.advance(days=1)
    assert state(world, match_id)["clocks"] == {"w": full, "b": full - clocks.MS_PER_DAY}
    move(world, match_id, BOB, MORRIS_WIN[1])
    world.clock.advance(days=2)
    found = state(world, match_id)
    assert found["result"] == {"winner": "b", "reason": "timeout"}


def test_a_missed_first_move_aborts_after_the_grace_period(world: World) -> None:
    match_id = timed(world)
    world.clock.advance(seconds=29.999)
    assert state(world, match_id)["status"] == "playing"
    world.clock.advance(milliseconds=1)
    assert state(world, match_id)["result"] == {"winner": None, "reason": "aborted"}


def test_the_second_side_has_its_own_grace_period(world: World) -> None:
    match_id = timed(world)
    world.clock.advance(seconds=20)
    move(world, match_id, ALICE, MORRIS_WIN[0])
    found = state(world, match_id)
    assert found["grace"] and found["clocks"] == {"w": 300_000, "b": 300_000}
    assert found["deadline"] == (world.clock() + clocks.GRACE).isoformat()
    world.clock.advance(seconds=30)
    assert state(world, match_id)["result"] == {"winner": None, "reason": "aborted"}


def test_either_player_may_abort_until_both_have_moved(world: World) -> None:
    match_id = timed(world)
    assert state(world, match_id)["abortable"]
    move(world, match_id, ALICE, MORRIS_WIN[0])
    with pytest.raises(Exception, match="no seat"):
        world.svc.abort(match_id, CAROL)
    aborted = state_of(world.svc.abort(match_id, BOB).match, world.clock())
    assert aborted["result"] == {"winner": None, "reason": "aborted"}

    later = timed(world)
    past_grace(world, later)
    assert not state(world, later)["abortable"]
    with pytest.raises(Conflict, match="no longer be aborted"):
        world.svc.abort(later, ALICE)


def test_takeback_gives_the_time_back_as_it_was(world: World) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(seconds=10)
    move(world, match_id, ALICE, MORRIS_WIN[2])  # w: 300 - 10 + 3
    world.clock.advance(seconds=40)
    before_bob = move(world, match_id, BOB, MORRIS_WIN[3])  # b: 300 - 40 + 3
    assert before_bob["clocks"] == {"w": 293_000, "b": 263_000}
    world.clock.advance(seconds=4)
    world.svc.takeback(match_id, BOB, "offer")
    world.clock.advance(seconds=20)
    back = state_of(world.svc.takeback(match_id, ALICE, "accept").match, world.clock())
    # As when Bob's taken-back turn began: after Alice's move at ply 3.
    assert back["clocks"] == {"w": 293_000, "b": 300_000}
    assert back["clock_running"] == "b" and back["ply"] == 3
    assert back["deadline"] == (world.clock() + timedelta(seconds=300)).isoformat()


def test_takeback_of_a_first_move_restores_the_grace_period(world: World) -> None:
    match_id = timed(world)
    move(world, match_id, ALICE, MORRIS_WIN[0])
    world.svc.takeback(match_id, ALICE, "offer")
    world.clock.advance(seconds=3)
    back = state_of(world.svc.takeback(match_id, BOB, "accept").match, world.clock())
    assert back["grace"] and back["clocks"] == {"w": 300_000, "b": 300_000}
    assert back["deadline"] == (world.clock() + clocks.GRACE).isoformat()


def test_resign_and_draw_stop_the_clocks(world: World) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(seconds=7)
    resigned = state_of(world.svc.resign(match_id, ALICE).match, world.clock())
    assert resigned["result"] == {"winner": "b", "reason": "resignation"}
    assert resigned["clocks"] == {"w": 293_000, "b": 300_000}
    assert resigned["clock_running"] is None and resigned["deadline"] is None
    world.clock.advance(minutes=10)
    assert state(world, match_id)["clocks"] == {"w": 293_000, "b": 300_000}

    drawn = timed(world)
    past_grace(world, drawn)
    world.svc.draw(drawn, ALICE, "offer")
    world.clock.advance(seconds=2)
    agreed = state_of(world.svc.draw(drawn, BOB, "accept").match, world.clock())
    assert agreed["result"] == {"winner": None, "reason": "agreement"}
    assert agreed["clocks"] == {"w": 298_000, "b": 300_000} and agreed["deadline"] is None


def test_a_resignation_after_the_flag_is_a_timeout(world: World) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(minutes=5)
    with pytest.raises(Conflict, match="time ran out"):
        world.svc.resign(match_id, BOB)
    assert world.svc.get(match_id).reason == "timeout"
    assert world.svc.get(match_id).winner == "b"


def test_a_rematch_keeps_the_time_control_with_fresh_clocks(world: World) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(seconds=9)
    world.svc.resign(match_id, BOB)
    world.clock.advance(seconds=1)
    rematch = state_of(world.svc.rematch(match_id, ALICE).match, world.clock())
    assert rematch["time_control"] == FIVE_THREE
    assert rematch["clocks"] == {"w": 300_000, "b": 300_000}
    assert rematch["grace"] and rematch["deadline"] == (world.clock() + clocks.GRACE).isoformat()


def test_a_seek_nobody_joins_expires(world: World) -> None:
    seek = world.svc.create("morris", "Alice", "first", ALICE, public=True, time_control=FIVE_THREE).match.id
    untimed = world.svc.create("morris", "Alice", "first", ALICE, public=True).match.id
    assert {m.id for m in world.svc.lobby()["open"]} == {seek, untimed}
    world.clock.advance(hours=24)
    assert {m.id for m in world.svc.lobby()["open"]} == {untimed}
    assert state(world, seek)["result"] == {"winner": None, "reason": "expired"}
    assert world.svc.get(untimed).status == "waiting"


def test_claims_need_a_minute_of_absence_of_the_side_to_move(world: World) -> None:
    match_id = timed(world)
    seats = {s.side: s.id for s in world.svc.get(match_id).seats}
    past_grace(world, match_id)  # Alice (white) to move
    world.svc.seen(seats["w"])
    world.clock.advance(seconds=59)
    assert state(world, match_id)["away"] is None
    with pytest.raises(Conflict, match="away for a minute"):
        world.svc.claim(match_id, BOB, "win")
    world.clock.advance(seconds=1)
    assert state(world, match_id)["away"] == "w"
    with pytest.raises(Conflict, match="away for a minute"):
        world.svc.claim(match_id, ALICE, "win")  # not against oneself
    world.svc.seen(seats["w"])  # back
    with pytest.raises(Conflict):
        world.svc.claim(match_id, BOB, "win")
    world.clock.advance(seconds=61)
    won = state_of(world.svc.claim(match_id, BOB, "win").match, world.clock())
    assert won["result"] == {"winner": "b", "reason": "abandonment"}

    drawn = timed(world)
    past_grace(world, drawn)
    world.clock.advance(seconds=60)
    assert state_of(world.svc.claim(drawn, BOB, "draw").match, world.clock())["result"] == {
        "winner": None,
        "reason": "abandonment",
    }


def test_no_claims_in_untimed_or_correspondence_matches(world: World) -> None:
    for control in (None, {"kind": "correspondence", "days": 1}):
        match_id = timed(world, control)
        past_grace(world, match_id)
        world.clock.advance(minutes=5)
        assert state(world, match_id)["away"] is None
        with pytest.raises(Conflict):
            world.svc.claim(match_id, BOB, "win")


def test_my_games_order(world: World) -> None:
    waiting = world.svc.create("morris", "Alice", "first", ALICE).match.id
    world.clock.advance(seconds=1)
    theirs = timed(world)
    move(world, theirs, ALICE, MORRIS_WIN[0])  # Bob to move
    world.clock.advance(seconds=1)
    soon = timed(world, {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    world.clock.advance(seconds=1)
    later = timed(world, {"kind": "correspondence", "days": 3})
    world.clock.advance(seconds=1)
    done = timed(world, None)
    world.svc.resign(done, BOB)
    world.clock.advance(seconds=1)
    untimed = timed(world, None)
    rows = world.svc.mine(ALICE)
    assert [r["id"] for r in rows] == [soon, later, untimed, theirs, waiting, done]
    assert [r["your_move"] for r in rows] == [True, True, True, False, False, False]
    assert rows[0]["left_ms"] == 27_000  # its grace period: joined at +2 s, read at +5 s
    assert world.svc.my_move_count(ALICE) == 3
    assert world.svc.my_move_count(BOB) == 1
    assert world.svc.mine(CAROL) == [] and world.svc.mine(None) == []


def test_a_ladder_run_is_untimed_and_unaffected(world: World) -> None:
    ladder = LadderService(world.svc.sessions, world.svc)
    run = ladder.start("Alice", ALICE)
    match = world.svc.get(run.match_id)
    assert match.time_control is None and match.deadline is None
    world.clock.advance(days=30)
    assert world.svc.get(run.match_id).status == "playing"
    with pytest.raises(Conflict, match="ladder"):
        world.svc.abort(run.match_id, ALICE)
    assert state(world, run.match_id)["clocks"] is None
    assert BASHNI_WIN  # the full ladder game is played in tests/app/services/test_ladder.py


def test_a_read_shows_the_flag_even_when_another_process_recorded_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = timed(world)
    past_grace(world, match_id)
    world.clock.advance(minutes=6)
    real_expire = world.svc.expire

    def someone_else_first(match_id: str) -> bool:
        real_expire(match_id)  # the deadline worker of another process, say
        return False  # so this call finished nothing itself

    monkeypatch.setattr(world.svc, "expire", someone_else_first)
    assert state(world, match_id)["result"] == {"winner": "b", "reason": "timeout"}
