"""The master level (issue 35): a search by time, made reproducible by a node budget."""

from __future__ import annotations

import random

import pytest

import games
from games.ai import bobail_search, levels
from games.ai import search as search_module
from games.ai.levels import (
    LEVELS,
    MASTER,
    MASTER_LEVEL,
    MASTER_SECONDS,
    choose,
    choose_move,
    evaluation_for,
    is_master,
    level_count,
    level_for,
    master_seconds,
)
from games.ai.search import STOP_CHECK_NODES, WIN, best_move, search
from tests.games.ai.test_ai_levels_pinned import bashni_midgame, seeded_position
from tests.games.ai.test_ai_search import TTT, Centre, LineCount, reachable, solve

MIDGAME = bashni_midgame(2)[0]
#: A Bobail position no side wins by force within ten turns (its own search, 30 s).
OPEN_BOBAIL = "w .bbbbb....n....w....w.www"


def test_every_game_has_a_master_level_beyond_its_others() -> None:
    assert MASTER_LEVEL == {"bashni": 19, "morris": 5, "bobail": 5, "bilsang": 5}
    for name, n in MASTER_LEVEL.items():
        assert level_for(name, n) is MASTER and is_master(name, n)
        assert MASTER.seconds == MASTER_SECONDS == 2.0 and MASTER.random_rate == 0.0
    # The ladder's opponents stay depth-bound, 18 included.
    assert not any(level_for("bashni", n).seconds for n in range(1, 19))
    assert all(level_count(name) == len(LEVELS[name]) + 1 for name in LEVELS)


@pytest.mark.parametrize(
    ("left", "increment", "seconds"),
    [(None, 0, 2.0), (600, 0, 2.0), (60, 0, 1.5), (10, 0, 0.25), (2, 0, 0.2), (10, 2, 1.25), (0, 30, 2.0)],
)
def test_the_budget_is_a_share_of_the_clock(left: float | None, increment: float, seconds: float) -> None:
    assert master_seconds(left, increment) == pytest.approx(seconds)


@pytest.mark.parametrize("evaluation", [LineCount(), Centre()], ids=["plain", "ordered"])
def test_aspiration_windows_keep_every_value_exact(evaluation: object) -> None:
    for state in random.Random(11).sample(reachable(), 200):
        result = best_move(TTT, state, evaluation, 9, aspiration=1)  # type: ignore[arg-type]
        assert result is not None and result.score == solve(state), TTT.format_position(state)


def test_a_node_budget_stops_at_the_same_node_every_time() -> None:
    bashni = games.get("bashni")
    state = bashni.parse_position(MIDGAME)

    def run() -> list[tuple[int, object, int, int]]:
        found = search(bashni, state, evaluation_for("bashni"), 64, max_nodes=5000, aspiration=35)
        return [(p.depth, p.move, p.score, p.nodes) for p in found]

    first = run()
    assert first == run()
    assert first[-1][3] <= 5000 and len(first) >= 3


def test_the_master_on_a_node_budget_plays_the_same_move_on_any_machine() -> None:
    first = choose_move("bashni", MIDGAME, 19, seed=4, nodes=20_000)
    again = choose_move("bashni", MIDGAME, 19, seed=4, nodes=20_000)
    del first[1]["ms"], again[1]["ms"]
    assert first == again
    # Reductions and the budget take it deeper than the ladder's opponent 18 goes.
    deepest = choose_move("bashni", MIDGAME, 18, seed=4)[1]["depth"]
    assert first[1]["depth"] > deepest == 7
    assert first[1]["nodes"] <= 20_000 + STOP_CHECK_NODES


@pytest.mark.parametrize("name", ["bashni", "morris", "bobail", "bilsang"])
def test_a_short_clock_never_makes_the_master_shallower_than_the_strongest_level(name: str) -> None:
    game = games.get(name)
    text = MIDGAME if name == "bashni" else seeded_position(name, 6, 3)[0]
    state = game.parse_position(text)
    strongest = level_for(name, 18 if name == "bashni" else 4)
    rng = random.Random(2)
    master = choose(game, state, MASTER, rng, seconds=0.001)
    assert not master.random and master.depth >= choose(game, state, strongest, random.Random(2)).depth


def test_a_win_in_one_is_taken_a_loss_in_one_avoided_and_a_forced_move_played_at_once() -> None:
    # The positions of test_ai_eval_bashni: h6-g7 leaves Black without a move;
    # after e3-f4, g5 jumps White's last column.
    move, info = choose_move("bashni", "w f6:w,h6:w,h8:b 30 0", 19, seed=1, nodes=10_000)
    assert move == "h6-g7" and info["score"] == WIN - 1
    move, info = choose_move("bashni", "w e3:w,g5:b,a7:b 30 0", 19, seed=1, nodes=10_000)
    assert move == "e3-d4"
    move, info = choose_move("bashni", "w c3:w,d4:b 30 0", 19, seed=1, nodes=10_000)
    assert move == "c3:e5" and info["nodes"] == 0  # the only move: played without a search


def test_the_review_s_master_judges_at_least_as_deep_as_the_strongest_level() -> None:
    from games.ai.analysis import analyse

    strongest = analyse("bashni", MIDGAME)
    master = analyse("bashni", MIDGAME, master_seconds=0.01)
    assert strongest["depth"] == 7 and master["depth"] >= 7
    assert master["best"] in games.get("bashni").move_texts(games.get("bashni").parse_position(MIDGAME))


class SteppingClock:
    """``time`` for ``games.ai.levels``: each reading 5 ms after the one before, so
    the budget's arithmetic is checked without depending on the machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 0.005
        return self.now

    perf_counter = monotonic


@pytest.mark.parametrize("name", ["bashni", "morris", "bobail"])
def test_the_master_answers_within_its_budget_counted_from_the_call(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, the budget counted from the start of the search, not of the call, and
    # the search stopped only once the budget had passed: every move took a little
    # longer than its budget (a median of 2.02 s for 2 s in bench/ai_master.py).
    monkeypatch.setattr(levels, "time", SteppingClock())
    game = games.get(name)
    text = {"bashni": MIDGAME, "bobail": OPEN_BOBAIL}.get(name) or seeded_position(name, 6, 3)[0]
    choice = choose(game, game.parse_position(text), MASTER, random.Random(3), seconds=1.0)
    assert choice.depth > 0 and choice.ms <= 1000


@pytest.mark.parametrize("name", ["morris", "bobail"])
def test_the_masters_search_stops_at_the_callers_time_limit(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``analysis`` passes a time limit as its safety net. Bobail's master, which has a
    # search of its own, ignored it and ran to its own budget (here 30 s).
    clock = SteppingClock()
    monkeypatch.setattr(levels, "time", clock)
    monkeypatch.setattr(search_module, "time", clock)
    monkeypatch.setattr(bobail_search, "time", clock)
    game = games.get(name)
    text = {"bobail": OPEN_BOBAIL}.get(name) or seeded_position(name, 6, 3)[0]
    state, start = game.parse_position(text), clock.now
    progress = levels.searched(game, state, MASTER, random.Random(3), time_limit=0.5, seconds=30.0)
    assert progress.depth > 0 and clock.now - start <= 0.6
