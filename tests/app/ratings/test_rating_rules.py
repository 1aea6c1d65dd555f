"""Which games are rated and in which category, and the damping of repeated pairings
(app/ratings/rules.py), on plain values as the matches table holds them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import games
from app.matches.judge import start_position
from app.matches.lifecycle import build_match
from app.ratings import rules
from app.ratings.glicko2 import NEW, Rating, Result, rate_game
from app.ratings.rules import Unrated, damped, damping, unrated_reason


def stored(game: str, options: dict[str, Any] | None = None, position: str | None = None) -> dict[str, Any]:
    """The options and start a match of ``game`` stores, built by the service's own
    ``build_match`` (a new match's options default to the game's new-match options)."""
    engine = games.get(game)
    chosen = dict(engine.new_match_options) if options is None else options
    initial = None if position is None else start_position(engine, position)
    match = build_match(engine, chosen, [], status="waiting", initial=initial)
    return {"options": match.options, "initial_position": match.initial_position}


def reason(game: str = "morris", **changes: Any) -> Unrated | None:
    facts: dict[str, Any] = {
        "game": game,
        **stored(game),
        "time_control_kind": "realtime",
        "against_computer": False,
        "plies": 30,
    }
    facts.update(changes)
    return unrated_reason(**facts)


@pytest.mark.parametrize("game", games.names())
def test_a_timed_game_between_people_from_the_start_is_rated(game: str) -> None:
    assert reason(game) is None
    assert reason(game, time_control_kind="correspondence") is None
    assert reason(game, plies=None) is None  # asked before the game


def test_categories() -> None:
    assert rules.category_of("realtime") == "realtime"
    assert rules.category_of("correspondence") == "correspondence"
    assert rules.category_of(None) is None
    assert rules.category_of("blitz") is None
    assert rules.CATEGORIES == ("realtime", "correspondence")


@pytest.mark.parametrize("game", games.names())
def test_untimed_games_are_never_rated(game: str) -> None:
    assert reason(game, time_control_kind=None) is Unrated.UNTIMED


def test_games_against_the_computer_are_never_rated() -> None:
    assert reason(against_computer=True) is Unrated.COMPUTER


def test_bilsang_with_other_than_the_default_rules_is_never_rated() -> None:
    assert reason("bilsang") is None
    assert reason("bilsang", **stored("bilsang", {"line": True, "quiet": 300})) is None
    free = stored("bilsang", {})
    assert reason("bilsang", **free) is Unrated.RULES
    long_quiet = stored("bilsang", {"line": True, "quiet": 1000})
    assert reason("bilsang", **long_quiet) is Unrated.RULES
    # The dict form is read the same as the stored JSON text.
    assert reason("bilsang", options={"quiet": 300, "line": True}) is None
    assert reason("bilsang", options=json.dumps({"line": False, "quiet": 300})) is Unrated.RULES


def test_a_bashni_handicap_is_not_the_default_rules() -> None:
    assert reason("bashni", **stored("bashni", {"handicap": 2})) is Unrated.RULES


def test_games_from_a_set_up_position_are_never_rated() -> None:
    morris = games.get("morris")
    start = morris.initial()
    after_one = morris.format_position(morris.apply(start, morris.legal_moves(start)[0]))
    assert reason("morris", **stored("morris", position=after_one)) is Unrated.SET_UP


def test_a_bilsang_start_with_other_rules_in_its_position_is_a_set_up_position() -> None:
    """From a position the match stores the default options, but the rules are the
    position's ninth field: the start differs from the standard one."""
    standard = rules.standard_start("bilsang")
    free_rules = games.get("bilsang").format_position(games.get("bilsang").initial())
    assert free_rules != standard
    assert reason("bilsang", **stored("bilsang", position=free_rules)) is Unrated.SET_UP


def test_the_standard_start_given_as_a_position_is_the_standard_start() -> None:
    """Starting "from a position" that is exactly the start is the ordinary game."""
    standard = rules.standard_start("bobail")
    assert reason("bobail", **stored("bobail", position=standard)) is None


@pytest.mark.parametrize(
    ("plies", "expected"), [(0, Unrated.UNPLAYED), (1, Unrated.UNPLAYED), (2, None), (3, None)]
)
def test_games_that_end_before_each_side_has_moved_are_never_rated(
    plies: int, expected: Unrated | None
) -> None:
    assert reason(plies=plies) is expected


def test_every_reason_has_a_sentence() -> None:
    assert set(rules.WHY) == set(Unrated)


# ---------------------------------------------------------------- damping


def test_damping_factors() -> None:
    assert [damping(n) for n in range(7)] == [1.0, 1.0, 1.0, 0.5, 0.25, 0.125, 0.0625]
    with pytest.raises(ValueError):
        damping(-1)


def test_a_day_of_one_pair_weighs_at_most_four_games() -> None:
    assert sum(damping(n) for n in range(40)) < rules.FULL_GAMES + 1
    assert sum(damping(n) for n in range(1000)) <= rules.FULL_GAMES + 1


def test_a_pair_farming_wins_gains_a_bounded_amount() -> None:
    """Account A beats account B fifty times in a day. The first three games count
    whole; all the other 47 together move A less than one more whole game would,
    where undamped they would have added over 150 points."""
    a, b = NEW, NEW
    plain_a, plain_b = NEW, NEW
    three_a, three_b = NEW, NEW
    for n in range(50):
        after_a, after_b = rate_game(a, b, Result.A_WINS, 0, 0)
        a, b = damped(a, after_a, damping(n)), damped(b, after_b, damping(n))
        plain_a, plain_b = rate_game(plain_a, plain_b, Result.A_WINS, 0, 0)
        if n == 2:
            assert (a, b) == (plain_a, plain_b)
            three_a, three_b = a, b
    one_more_a, one_more_b = rate_game(three_a, three_b, Result.A_WINS, 0, 0)
    assert 0 < a.rating - three_a.rating < one_more_a.rating - three_a.rating
    assert 0 < three_b.rating - b.rating < three_b.rating - one_more_b.rating
    assert plain_a.rating - a.rating > 150


def test_damped_scales_the_rating_change_only() -> None:
    before = Rating(1600, 80, 0.06)
    after = Rating(1640, 76, 0.0601)
    half = damped(before, after, 0.5)
    assert half == Rating(1620, 76, 0.0601)
    assert damped(before, after, 1.0) == after
    assert damped(before, after, 0.0).rating == 1600
    with pytest.raises(ValueError):
        damped(before, after, 1.5)


ratings = st.builds(
    Rating, rating=st.floats(400, 3500), rd=st.floats(45, 500), volatility=st.floats(0.01, 0.1)
)


@given(ratings, ratings, st.sampled_from(list(Result)), st.integers(0, 40))
def test_damping_never_changes_the_direction_nor_leaves_the_clamps(
    a: Rating, b: Rating, result: Result, count: int
) -> None:
    after_a, after_b = rate_game(a, b, result, 0, 0)
    factor = damping(count)
    for before, after in ((a, after_a), (b, after_b)):
        smaller = damped(before, after, factor)
        assert abs(smaller.rating - before.rating) <= abs(after.rating - before.rating)
        assert (smaller.rating - before.rating) * (after.rating - before.rating) >= 0
        assert smaller.rating >= 400
