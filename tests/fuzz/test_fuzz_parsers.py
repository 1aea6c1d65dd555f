"""The pure parsers fuzzed: records, each game's positions and moves, typed commands.

Each must answer every input quickly, with a value or its own refusal (``RecordError``,
``GameError``); any other exception, a hang (``guard.Hang``) or an example past the
deadline is a defect. The example counts keep this file near 25 s in CI; the benchmark
bench/fuzz_parsers.py runs it with many more.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import games
from app.services import typed_commands as describe
from games import records
from games.base import GameError
from games.records import RecordError
from tests.fuzz import strategies as fs
from tests.fuzz.guard import bounded, fuzz_settings

GAMES = fs.GAME_NAMES


@pytest.mark.parametrize("game_name", GAMES)
def test_records_parse_or_refuse(game_name: str) -> None:
    @fuzz_settings(150)
    @given(text=fs.records(game_name), named=st.booleans())
    @example(text='[Variant "Morris"]\n\n1. a1 }', named=False)  # issue 27: hung forever
    @example(text="}", named=True)
    @example(text="1. } } }", named=True)
    def check(text: str, named: bool) -> None:
        try:
            parsed = bounded(records.parse, text, game_name if named else None)
        except RecordError as error:
            assert str(error)  # a refusal people can read
            return
        # Accepted: it replays, and writing it back reads the same game.
        again = bounded(records.parse, records.write(parsed), None)
        assert (again.game, again.initial, again.moves) == (parsed.game, parsed.initial, parsed.moves)

    check()


@fuzz_settings(100)
@given(data=st.one_of(st.binary(max_size=200), st.text(fs.CHARS, max_size=100).map(lambda t: t.encode())))
def test_record_bytes_decode_or_refuse(data: bytes) -> None:
    try:
        text = bounded(records.decode, data)
    except RecordError:
        return
    assert isinstance(text, str)


@pytest.mark.parametrize("game_name", GAMES)
def test_positions_parse_or_refuse(game_name: str) -> None:
    game = games.get(game_name)

    @fuzz_settings(200)
    @given(text=fs.positions(game_name))
    def check(text: str) -> None:
        def read() -> None:
            try:
                state = game.parse_position(text)
            except GameError:
                return
            # Whatever is accepted is a position the site can serve: its moves, its end,
            # and a canonical text that reads back to the same position.
            game.to_move(state)
            game.outcome(state)
            for move in game.legal_moves(state)[:50]:
                game.format_move(move)
            canonical = game.format_position(state)
            assert game.format_position(game.parse_position(canonical)) == canonical

        bounded(read)

    check()


@pytest.mark.parametrize("game_name", GAMES)
def test_moves_parse_or_refuse(game_name: str) -> None:
    game = games.get(game_name)
    positions, _moves = fs.playout(game_name)

    @fuzz_settings(200)
    @given(at=st.integers(0, len(positions) - 1), text=fs.moves(game_name))
    def check(at: int, text: str) -> None:
        state = game.parse_position(positions[at])

        def read() -> None:
            try:
                move = game.parse_move(state, text)
            except GameError:
                return
            # An accepted move is one of the legal ones, whatever the text looked like.
            assert game.format_move(move) in {game.format_move(m) for m in game.legal_moves(state)}

        bounded(read)
        with contextlib.suppress(GameError):
            bounded(game.check_move_syntax, text)

    check()


@fuzz_settings(300)
@given(
    text=st.one_of(
        st.text(fs.CHARS, max_size=40),
        st.builds(
            lambda w, rest: w + rest,
            st.sampled_from(sorted(describe.COMMANDS) + [k.upper() for k in describe.COMMANDS]),
            st.text(fs.CHARS, max_size=20),
        ),
    )
)
def test_typed_commands_parse(text: str) -> None:
    command = bounded(describe.parse_command, text)
    assert command is None or command[0] in set(describe.COMMANDS.values())
