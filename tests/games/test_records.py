"""Game records: write -> parse gives the same game back; bad records name their first bad line."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games import records
from games.records import GameRecord, RecordError

GAMES = ["bashni", "morris", "bobail", "bilsang"]
#: A seeded random Bobail game that ends with a player left without a move.
BOBAIL_NO_MOVES_SEED = 8


def playout(game_name: str, seed: int, start: str | None = None, stop_at: int | None = None) -> GameRecord:
    """A random game from ``start``: to its end, or cut at ``stop_at`` plies (unfinished)."""
    game = games.get(game_name)
    rng = random.Random(seed)
    initial = start or records.standard_start(game)
    state = game.parse_position(initial)
    history = [state]
    moves: list[str] = []
    outcome = game.outcome_after(history)
    while outcome is None and (stop_at is None or len(moves) < stop_at):
        move = rng.choice(game.legal_moves(state))
        moves.append(game.format_move(move))
        state = game.apply(state, move)
        history.append(state)
        outcome = game.outcome_after(history)
    winner = outcome.winner if outcome else None
    reason = outcome.reason if outcome else None
    tags = (("Event", "Test"), ("White", 'Ana "la" Pérez'), ("Black", "Bo"), ("Date", "2026.12.01"))
    return GameRecord(game_name, initial, tuple(moves), winner, reason, tags)


def positions_of(record: GameRecord) -> list[str]:
    game = games.get(record.game)
    state = game.parse_position(record.initial)
    out = [game.format_position(state)]
    for text in record.moves:
        state = game.play(state, text)
        out.append(game.format_position(state))
    return out


def assert_round_trip(record: GameRecord) -> GameRecord:
    text = records.write(record)
    back = records.parse(text)
    assert back.game == record.game
    assert back.initial == record.initial
    assert back.moves == record.moves
    assert list(back.positions) == positions_of(record)
    assert (back.winner, back.reason) == (record.winner, record.reason)
    assert back.tag("White") == record.tag("White", "?") and back.tag("Black") == record.tag("Black", "?")
    assert records.write(back) == text
    return back


@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=12)
@given(seed=st.integers(0, 10**9))
def test_random_finished_games_round_trip(game_name: str, seed: int) -> None:
    record = playout(game_name, seed)
    assert record.finished
    assert_round_trip(record)


@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=8)
@given(
    seed=st.integers(0, 10**9),
    cut=st.integers(0, 30),
    ending=st.sampled_from(["first", "second", "agreement", "*"]),
)
def test_games_ended_by_the_players_round_trip(game_name: str, seed: int, cut: int, ending: str) -> None:
    """Resignation by either side, a draw agreed, and an unfinished game, at any ply."""
    game = games.get(game_name)
    record = playout(game_name, seed, stop_at=cut)
    if record.finished:
        return  # the game ended by the rules before the cut: the other test covers it
    if ending == "*":
        winner, reason = None, None
    elif ending == "agreement":
        winner, reason = None, "agreement"
    else:
        winner, reason = game.sides[0 if ending == "first" else 1], "resignation"
    assert_round_trip(GameRecord(game_name, record.initial, record.moves, winner, reason, record.tags))


@pytest.mark.parametrize("game_name", GAMES)
@settings(max_examples=8)
@given(seed=st.integers(0, 10**9), skip=st.integers(1, 15))
def test_non_standard_starts_round_trip(game_name: str, seed: int, skip: int) -> None:
    """A start reached by other moves (possibly with the second player to move) is a Position tag."""
    middle = playout(game_name, seed, stop_at=skip)
    if middle.finished:
        return
    start = positions_of(middle)[-1]
    record = playout(game_name, seed + 1, start=start)
    text = records.write(record)
    assert f'[Position "{start}"]' in text
    assert_round_trip(record)


def test_a_bashni_handicap_start_and_the_pdn_result_forms() -> None:
    game = games.get("bashni")
    start = game.format_position(game.initial(handicap=3))
    record = playout("bashni", 5, start=start)
    text = records.write(record)
    assert '[GameType "Bashni"]' in text and '[Variant "Bashni"]' in text
    assert {"w": '[Result "2-0"]', "b": '[Result "0-2"]', None: '[Result "1-1"]'}[record.winner] in text
    assert_round_trip(record)


#: One game per engine ending: (game, start or None, seed or explicit moves, reason).
ENDINGS = [
    ("bashni", None, 0, "no-moves"),
    ("bashni", "w a1:W,c7:B 60 48", 3, "quiet"),
    ("bashni", "w a1:w,h8:b 248 0", 1, "ply-limit"),
    ("morris", None, 0, "too-few-pieces"),
    ("morris", "w w.b...b...w..b...w...b.w 0 0 98", 1, "quiet"),
    ("morris", "w w.b...b...w..b...w...b.w 0 0 0", ["a7-d7", "g7-g4", "d7-a7", "g4-g7"] * 2, "repetition"),
    ("bobail", None, 0, "neutron-home"),
    ("bobail", None, BOBAIL_NO_MOVES_SEED, "no-moves"),
    ("bilsang", None, 0, "quiet"),
    ("bilsang", "1 h 0 9 9 0 0,0;1,0 -", 1, "last-buoy"),
]


@pytest.mark.parametrize(("game_name", "start", "how", "reason"), ENDINGS)
def test_every_engine_ending_round_trips(game_name: str, start: str | None, how: object, reason: str) -> None:
    if isinstance(how, list):
        game = games.get(game_name)
        record = records.parse(" ".join(how), game_name) if start is None else None
        if record is None:
            line = records.movetext(game, start, how, "*").removesuffix(" *")
            record = records.parse(f'[Variant "{game.title}"]\n[Position "{start}"]\n\n{line}\n')
    else:
        assert isinstance(how, int)
        record = playout(game_name, how, start=start)
    assert record.reason == reason
    back = assert_round_trip(
        GameRecord(game_name, record.initial, record.moves, record.winner, record.reason, record.tags)
    )
    assert back.reason == reason


def test_movetext_is_numbered_per_move_pair_and_the_black_first_start() -> None:
    game = games.get("bashni")
    after_one = game.format_position(game.play(game.initial(), "c3-d4"))
    record = GameRecord("bashni", after_one, ("f6-g5", "d4-e5", "g5-h4"), None, None)
    text = records.write(record)
    assert "1... f6-g5 2. d4-e5 g5-h4 *" in text


def test_a_bare_list_of_moves_needs_the_game_and_is_read_with_numbers_or_without() -> None:
    with pytest.raises(RecordError) as caught:
        records.parse("c3-d4 f6-g5")
    assert caught.value.code == "no-game"
    plain = records.parse("c3-d4 f6-g5 d4-e5", "bashni")
    numbered = records.parse("1. c3-d4 f6-g5 2. d4-e5", "bashni")
    assert plain.moves == numbered.moves == ("c3-d4", "f6-g5", "d4-e5")
    assert not plain.finished
    bobail = records.parse("1. c3-c4 c1-e3 c4-c1", "bobail")
    assert bobail.moves == ("c3-c4 c1-e3", "c4-c1") and bobail.winner == "w"


def test_comments_and_glyphs_are_skipped() -> None:
    text = (
        '[Variant "Bashni"]\n\n1. c3-d4! {a good start\nover two lines} f6-g5?! $2 ; the rest\n2. d4-e5 *\n'
    )
    assert records.parse(text).moves == ("c3-d4", "f6-g5", "d4-e5")


# ---------------------------------------------------------------- errors


GOOD = '[Event "x"]\n[Variant "Bashni"]\n[Result "*"]\n\n1. c3-d4 f6-g5 2. d4-e5 d6:f4\n3. g3:e5 *\n'


def refusal(text: str, game: str | None = None) -> RecordError:
    with pytest.raises(RecordError) as caught:
        records.parse(text, game)
    return caught.value


def test_the_good_sample_is_good() -> None:
    assert len(records.parse(GOOD).moves) == 5


def test_a_bad_tag_is_named_with_its_line() -> None:
    error = refusal(GOOD.replace('[Event "x"]', "[Event x]"))
    assert (error.line, error.code) == (1, "bad-tag")
    assert str(error).startswith("line 1: ")
    assert refusal(GOOD.replace('[Variant "Bashni"]', '[Variant "Chess"]')).line == 2
    assert refusal(GOOD.replace('[Result "*"]', '[Result "3-0"]')).code == "bad-result"
    assert refusal(GOOD.replace('[Event "x"]', '[Date "yesterday"]')).line == 1
    assert refusal(GOOD.replace('[Event "x"]', '[Variant "Bashni"]')).code == "bad-tag"  # twice


def test_a_bad_move_number_is_named() -> None:
    error = refusal(GOOD.replace("2. d4-e5", "4. d4-e5"))
    assert (error.line, error.code) == (5, "move-number")
    assert "4." in str(error) and "2." in str(error)
    missing = refusal(GOOD.replace("2. d4-e5", "d4-e5"))
    assert (missing.line, missing.code) == (5, "move-number")


def test_an_illegal_move_is_named_with_ply_and_reason() -> None:
    error = refusal(GOOD.replace("3. g3:e5", "3. e5-f6"))
    assert (error.line, error.code) == (6, "illegal-move")
    assert error.params["ply"] == 5 and error.params["move"] == "e5-f6"
    assert "not a legal move" in str(error)
    assert refusal(GOOD.replace("d6:f4", "d6-zz")).code == "bad-move"


def test_moves_after_the_end_and_a_result_the_moves_contradict() -> None:
    text = '[Variant "Bobail"]\n[Result "1-0"]\n\n1. c3-c4 c1-e3 c4-c1 2. a1-a2 1-0\n'
    assert refusal(text).code == "after-end"
    wrong = '[Variant "Bobail"]\n[Result "0-1"]\n\n1. c3-c4 c1-e3 c4-c1 0-1\n'
    assert refusal(wrong).code == "bad-result"


def test_a_truncated_file() -> None:
    cut_in_tag = '[Event "x"]\n[Variant "Bas'
    assert refusal(cut_in_tag).code == "truncated"
    cut_in_moves = '[Variant "Bashni"]\n[Result "2-0"]\n\n1. c3-d4 f6-g5 2. d4-e5'
    error = refusal(cut_in_moves)
    assert (error.code, error.line) == ("truncated", 4)
    cut_after_number = '[Variant "Bashni"]\n[Result "2-0"]\n\n1. c3-d4 f6-g5 2.'
    assert refusal(cut_after_number).code == "truncated"
    cut_mid_move = '[Variant "Bilsang"]\n[Result "1-0"]\n\n1. h 4,0+'
    assert refusal(cut_mid_move).code == "truncated"
    assert refusal('[Variant "Bashni"]\n\n1. c3-d4 {never closed').code == "truncated"


@pytest.mark.parametrize(
    "text",
    [
        '[Variant "Morris"]\n\n1. a1 }',  # the 27 bytes that once hung the server
        '[Variant "Bashni"]\n\n1. c3-d4 } f6-g5',
        '[Variant "Bobail"]\n\n}',
    ],
)
def test_a_stray_closing_brace_is_named_with_its_line(text: str) -> None:
    error = refusal(text)
    assert (error.code, error.line) == ("stray-brace", 3)


def test_a_huge_file_and_non_utf8() -> None:
    with pytest.raises(records.RecordTooLarge):
        records.decode(b"1. c3-d4 " * (records.MAX_BYTES // 8))
    with pytest.raises(RecordError) as caught:
        records.decode('[Event "caf\u00e9"]\n'.encode("latin-1"))
    assert (caught.value.code, caught.value.line) == ("not-utf8", 1)
    assert records.decode("\ufeff1. c3-d4".encode()) == "1. c3-d4"


def test_a_bad_position_tag_names_the_field() -> None:
    error = refusal('[Variant "Morris"]\n[Position "w ..... 9 9 0"]\n\n*\n')
    assert error.line == 2 and error.code == "bad-position"


# ------------------------------------------------- the site's own endings, time controls


#: How the site ends a game before its rules do: (reason, winner index or None, Result).
SITE_ENDINGS = [
    ("timeout", 0, "1-0"),
    ("timeout", 1, "0-1"),
    ("abandonment", 1, "0-1"),
    ("abandonment", None, "1/2-1/2"),
    ("abandoned", 0, "1-0"),
    ("agreement", None, "1/2-1/2"),
    ("aborted", None, "*"),
    ("expired", None, "*"),
]


@pytest.mark.parametrize(("reason", "winner", "token"), SITE_ENDINGS)
def test_the_sites_endings_round_trip_with_their_result(reason: str, winner: int | None, token: str) -> None:
    game = games.get("morris")
    moves = () if reason == "expired" else ("d1",) if reason == "aborted" else ("d1", "d2", "d3")
    side = None if winner is None else game.sides[winner]
    record = GameRecord("morris", records.standard_start(game), moves, side, reason)
    text = records.write(record)
    assert f'[Result "{token}"]' in text and f'[Termination "{reason}"]' in text
    assert text.rstrip().endswith(token)
    back = assert_round_trip(record)
    assert back.finished


def test_a_termination_must_fit_the_result() -> None:
    head = '[Variant "Morris"]\n[Result "%s"]\n[Termination "%s"]\n\n1. d1 d2 %s\n'
    no_result = refusal(head % ("1-0", "aborted", "1-0"))
    assert (no_result.line, no_result.code) == (3, "bad-tag") and "*" in str(no_result)
    drawn = refusal(head % ("1/2-1/2", "timeout", "1/2-1/2"))
    assert drawn.code == "bad-tag" and "agreement, abandonment" in str(drawn) and "timeout" in str(drawn)
    won = refusal(head % ("0-1", "agreement", "0-1"))
    assert won.code == "bad-tag" and "resignation, timeout" in str(won)
    unfinished = refusal(head % ("*", "timeout", "*"))
    assert unfinished.code == "bad-tag" and "unfinished" in str(unfinished)
    assert refusal(head % ("1-0", "flag", "1-0")).code == "bad-tag"


@pytest.mark.parametrize(
    ("value", "result", "reason"),
    [("time forfeit", "0-1", "timeout"), ("normal", "1-0", "resignation"), ("unterminated", "*", None)],
)
def test_the_pgn_standards_own_terminations_import(value: str, result: str, reason: str | None) -> None:
    record = records.parse(
        f'[Variant "Morris"]\n[Result "{result}"]\n[Termination "{value}"]\n\n1. d1 d2 {result}\n'
    )
    assert record.reason == reason


@pytest.mark.parametrize(
    "value", ["300+3", "60+0", "1/259200", "-", "?", "40/9000:300", "*180", "anything at all", ""]
)
def test_any_time_control_tag_is_kept_as_written(value: str) -> None:
    text = f'[Variant "Bashni"]\n[TimeControl "{value}"]\n[Result "*"]\n\n1. c3-d4 *\n'
    record = records.parse(text)
    assert record.tag("TimeControl", "absent") == value
    assert f'[TimeControl "{value}"]' in records.write(record)
