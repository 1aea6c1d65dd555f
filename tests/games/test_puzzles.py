"""The puzzle miner (issue 29): known puzzles are found, ambiguous positions rejected, and
a sample of the shipped set still holds."""

from __future__ import annotations

import random

import pytest

import games
from games.puzzles import store
from games.puzzles.miner import idea, judge, mine, recheck, solve

#: Black has three pieces; only the mill a1-a4 wins at once (whatever it removes).
MORRIS_MILL = "w bbw.......ww..b......ww. 0 0 0"
#: Two different mills both win: g4-g7 and g4-g1.
MORRIS_TWO_MILLS = "w ww...b.b......w..b...ww. 0 0 0"
#: The man on d6 captures e7, is crowned on f8 and captures g7 as a king; a1:c3 loses.
BASHNI_CHAIN = "w a1:w,b2:b,d6:w,e7:b,g7:b 0 0"


def test_a_forced_morris_mill() -> None:
    game = games.get("morris")
    puzzle = solve(game, game.parse_position(MORRIS_MILL), 4)
    assert puzzle is not None
    assert puzzle.kind == "forced" and puzzle.line[0].startswith("a1-a4x")
    assert {"mill", "win-in-1"} <= set(puzzle.themes)
    assert recheck(puzzle)


def test_a_bashni_capture_chain() -> None:
    game = games.get("bashni")
    puzzle = solve(game, game.parse_position(BASHNI_CHAIN), 4)
    assert puzzle is not None and puzzle.line[0] == "d6:f8:h6"
    assert {"capture-chain", "king"} <= set(puzzle.themes)
    assert recheck(puzzle)


def test_two_equally_good_moves_are_rejected() -> None:
    game = games.get("morris")
    state = game.parse_position(MORRIS_TWO_MILLS)
    winners = [t for t in game.move_texts(state) if game.outcome(game.play(state, t))]
    assert {t.split("x")[0] for t in winners} == {"g4-g1", "g4-g7"}
    assert judge(game, state, 4) is None
    assert solve(game, state, 4) is None


def test_a_score_far_beyond_the_chance_scale_is_decided() -> None:
    # Bobail's evaluation can reach scores where e^(score / scale) overflows; the miner
    # used to stop there with OverflowError.
    from games.puzzles.miner import _chance

    assert _chance("bobail", -200_000) == 0.0
    assert _chance("bobail", 200_000) == 1.0


def test_a_small_seeded_run_is_reproducible() -> None:
    first = [(p.as_dict(), ok) for p, ok in mine("morris", seed=3, seconds=600, max_games=1, max_plies=60)]
    again = [(p.as_dict(), ok) for p, ok in mine("morris", seed=3, seconds=600, max_games=1, max_plies=60)]
    assert first == again
    for puzzle, _ok in first:
        assert puzzle["line"] and puzzle["position"]


SAMPLE = 3


@pytest.mark.parametrize("game_name", games.names())
def test_a_sample_of_the_shipped_set(game_name: str) -> None:
    """Every line legal, ending with the solver's move; the first move still the re-check's choice."""
    rows = list(store.load(game_name))
    if not rows:
        pytest.skip(f"no {game_name} puzzles shipped")
    game = games.get(game_name)
    for row in random.Random(29).sample(rows, min(SAMPLE, len(rows))):
        state = game.parse_position(row["position"])
        assert game.format_position(state) == row["position"]
        assert len(row["line"]) % 2 == 1
        for text in row["line"]:
            assert game.outcome(state) is None
            state = game.play(state, text)
        found = judge(game, game.parse_position(row["position"]), row["depth"] + 2)
        assert found is not None and idea(game, found.move) == idea(game, row["line"][0]), row["id"]


def test_the_mine_command() -> None:
    import io
    import json

    from games.cli import main

    out = io.StringIO()
    assert main(["puzzles", "mine", "morris", "--seconds", "0", "--dry-run"], stdout=out) == 0
    summary = json.loads(out.getvalue().splitlines()[-1])
    assert summary["game"] == "morris" and summary["found"] == 0
    assert summary["shipped"] == len(store.load("morris"))
