"""The rules a move must pass (app.matches.judge), judged on a locked row made here: no
database, no app, no clock but the moment given."""

from __future__ import annotations

import json
from collections import namedtuple
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import games
from app.matches.judge import accept_move, check_move, legal_in, repeats, require_playing, start_position
from app.matches.model import Locked, SeatRow, TimeUp
from app.matches.statements import MATCHES
from app.services import clocks as timing
from app.services.errors import Conflict, Invalid, NotFound

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
Row = namedtuple("Row", [c.name for c in MATCHES.columns])  # type: ignore[misc]
WHITE = SeatRow(1, "w", "Ann", "ann-hash", None)
BLACK = SeatRow(2, "b", "Bob", "bob-hash", None)


def morris_row(**changes: Any) -> Any:
    game = games.get("morris")
    start = game.format_position(game.initial())
    columns: dict[str, Any] = {c.name: None for c in MATCHES.columns}
    columns.update(
        id="m1",
        game="morris",
        options="{}",
        status="playing",
        public=False,
        initial_position=start,
        position=start,
        ply=0,
        version=3,
        notations="",
        turn_started_at=T0,
    )
    columns.update(changes)
    return Row(**columns)


def locked(**changes: Any) -> Locked:
    return Locked(morris_row(**changes), (BLACK, WHITE))


def test_a_legal_move_is_checked_into_its_notation_and_the_position_it_makes() -> None:
    checked = check_move(locked(), WHITE, "a1", 0, T0)
    assert checked.notation == "a1"
    assert checked.after_text != checked.locked.match.position
    assert checked.outcome is None


@pytest.mark.parametrize(
    ("seat", "text", "ply", "refusal", "words"),
    [
        (WHITE, "a1", 1, Conflict, "moved on"),
        (BLACK, "a1", 0, Conflict, "not your turn"),
        (WHITE, "zz9", 0, Invalid, "move"),
        (WHITE, "a1" * 101, 0, Invalid, "short text"),
    ],
)
def test_a_move_that_cannot_be_played_is_refused_with_its_reason(
    seat: SeatRow, text: str, ply: int, refusal: type[Exception], words: str
) -> None:
    with pytest.raises(refusal, match=words):
        check_move(locked(), seat, text, ply, T0)


@pytest.mark.parametrize(("status", "words"), [("finished", "over"), ("waiting", "waiting")])
def test_only_a_match_being_played_takes_a_move(status: str, words: str) -> None:
    with pytest.raises(Conflict, match=words):
        require_playing(status)
    with pytest.raises(Conflict, match=words):
        check_move(locked(status=status), WHITE, "a1", 0, T0)


def test_an_accepted_move_makes_the_next_version_its_writes_and_the_apis_answer() -> None:
    moment = T0 + timedelta(seconds=4)
    checked = check_move(locked(notations="", ply=0), WHITE, "a1", 0, moment)
    played = accept_move(
        checked, earlier=0, notice_of=lambda match_id, version: ("ch", f"{match_id}:{version}")
    )
    assert played.version == 4 and not played.timed and not played.computer_to_move
    assert played.state["ply"] == 1 and played.state["moves"] == ["a1"] and played.state["to_move"] == "b"
    assert played.state["players"] == [
        {"side": "b", "name": "Bob", "computer": False, "level": None, "label": None},
        {"side": "w", "name": "Ann", "computer": False, "level": None, "label": None},
    ]
    writes = played.pending
    assert writes is not None
    assert writes.move["think_ms"] == 4000 and writes.move["side"] == "w"
    assert writes.changes["notations"] == "a1" and writes.changes["turn_started_at"] == moment
    assert writes.notice == ("ch", "m1:4")


def test_a_move_past_the_movers_time_is_time_up() -> None:
    control = timing.parse({"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    row = locked(
        time_control=timing.dumps(control),
        clocks=json.dumps({"w": 60_000, "b": 60_000}),
        clock_since=T0,
        ply=2,
        notations="a1\nd7",
    )
    with pytest.raises(TimeUp):
        accept_move(check_move(row, WHITE, "a4", 2, T0 + timedelta(minutes=5)), earlier=0)


def test_the_third_time_a_position_occurs_counts_the_start_and_the_earlier_ones() -> None:
    game = games.get("morris")
    row = morris_row()
    start_code = game.repetition_code(game.parse_position(row.initial_position))
    assert repeats(row, game, start_code, earlier=1) == 3
    assert repeats(row, game, "another position", earlier=1) == 2


def test_legal_moves_are_listed_only_while_the_match_is_played() -> None:
    row = morris_row()
    assert "a1" in legal_in("m1", (row.game, "playing", row.position, 0))["moves"]
    assert legal_in("m1", (row.game, "finished", row.position, 7)) == {"ply": 7, "moves": []}
    with pytest.raises(NotFound):
        legal_in("m1", None)


def test_a_start_position_must_parse_and_leave_a_move_to_make() -> None:
    game = games.get("morris")
    assert start_position(game, game.format_position(game.initial())) == game.format_position(game.initial())
    with pytest.raises(Invalid, match="position"):
        start_position(game, "not a position")
