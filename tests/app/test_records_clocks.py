"""Records of timed matches: the TimeControl tag, and the clock's endings (timeout, abort).

MatchService runs on an injected clock, as in test_time_controls.py, so a flag falls when
the test says; the record is then written as the API writes it and imported back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker
from app.matches.events import Publisher
from app.matches.service import MatchService
from app.matches.view import state_of
from app.services.records import RecordService, match_record, record_state
from games import records
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.app.matches.test_time_controls import FakeClock

ALICE, BOB = "a" * 64, "b" * 64
SITE = "https://tablero.example/matches/x"


@dataclass
class World:
    matches: MatchService
    records: RecordService
    clock: FakeClock
    sessions: sessionmaker[Session]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    url = database_url(tmp_path)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    clock = FakeClock()
    yield World(
        MatchService(sessions, Publisher(lambda m, v: None), clock=clock),
        RecordService(sessions),
        clock,
        sessions,
    )
    engine.dispose()


def timed(world: World, control: dict[str, Any] | None) -> str:
    match_id = world.matches.create("morris", "Alice", "first", ALICE, time_control=control).match.id
    world.matches.join(match_id, "Bob", BOB)
    return match_id


def play(world: World, match_id: str, plies: int, pause: timedelta = timedelta(seconds=2)) -> None:
    for i in range(plies):
        world.clock.moment += pause
        ply = world.matches.get(match_id).ply
        world.matches.move(match_id, ALICE if i % 2 == 0 else BOB, MORRIS_WIN[i], ply)


def exported(world: World, match_id: str) -> str:
    return records.write(match_record(world.matches.get(match_id), SITE))


def round_trip(world: World, match_id: str) -> dict[str, Any]:
    """Export, import, and check the imported game is the match; answers the import."""
    text = exported(world, match_id)
    imported = record_state(world.records.import_record(text.encode()))
    match = state_of(world.matches.get(match_id), world.clock())
    assert imported["moves"] == match["moves"] and imported["position"] == match["position"]
    assert imported["result"] == match["result"]
    assert imported["status"] == ("finished" if match["status"] == "finished" else "unfinished")
    again = records.write(records.parse(text))
    assert again == text
    return imported


CONTROLS = [
    ({"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}, "300+3"),
    ({"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}, "60+0"),
    ({"kind": "realtime", "initial_seconds": 15, "increment_seconds": 180}, "15+180"),
    ({"kind": "correspondence", "days": 3}, "1/259200"),
    ({"kind": "correspondence", "days": 1}, "1/86400"),
    (None, "-"),
]


@pytest.mark.parametrize(("control", "tag"), CONTROLS)
def test_the_time_control_is_written_and_kept_on_import(
    world: World, control: dict[str, Any] | None, tag: str
) -> None:
    match_id = timed(world, control)
    play(world, match_id, 6)
    text = exported(world, match_id)
    assert f'[TimeControl "{tag}"]' in text
    imported = round_trip(world, match_id)
    assert ["TimeControl", tag] in imported["tags"]
    assert imported["status"] == "unfinished" and imported["result"] is None
    written_back = records.write(records.parse(text))
    assert f'[TimeControl "{tag}"]' in written_back


def test_a_real_time_flag_is_the_opponents_win_by_timeout(world: World) -> None:
    match_id = timed(world, {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    play(world, match_id, 5)  # Black to move
    world.clock.advance(seconds=61)
    world.matches.expire(match_id)
    assert world.matches.get(match_id).reason == "timeout"
    text = exported(world, match_id)
    assert '[Result "1-0"]' in text and '[Termination "timeout"]' in text
    assert text.rstrip().endswith("1-0")
    imported = round_trip(world, match_id)
    assert imported["result"] == {"winner": "w", "reason": "timeout"}


def test_a_correspondence_timeout_round_trips(world: World) -> None:
    match_id = timed(world, {"kind": "correspondence", "days": 2})
    play(world, match_id, 4, pause=timedelta(hours=30))  # White to move
    world.clock.advance(days=2)
    world.matches.expire(match_id)
    text = exported(world, match_id)
    assert '[Result "0-1"]' in text and '[Termination "timeout"]' in text
    assert '[TimeControl "1/172800"]' in text
    assert round_trip(world, match_id)["result"] == {"winner": "b", "reason": "timeout"}


def test_an_aborted_match_has_no_result(world: World) -> None:
    match_id = timed(world, {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3})
    play(world, match_id, 1)
    world.clock.advance(seconds=31)  # Black's first move never came
    world.matches.expire(match_id)
    assert world.matches.get(match_id).reason == "aborted"
    text = exported(world, match_id)
    assert '[Result "*"]' in text and '[Termination "aborted"]' in text
    assert round_trip(world, match_id)["result"] == {"winner": None, "reason": "aborted"}
