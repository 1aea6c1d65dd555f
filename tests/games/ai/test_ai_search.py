"""The generic search, on two toy games small enough to solve by brute force.

Tic-tac-toe checks the search's values against plain minimax on every
position; a game played on a small graph checks the repetition rule and move
preferences with hand-set values.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable
from functools import cache
from typing import Any

import pytest

import games
from games.ai.levels import bashni_level, choose_move, level_count, level_for
from games.ai.search import WIN, Evaluation, Progress, best_move, is_forced_result, search
from games.base import BadPosition, Game, IllegalMove, Outcome, UnknownGame

# ------------------------------------------------------------------ tic-tac-toe

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
Board = tuple[str, str]  # (nine cells of "x", "o", "."; side to move)


class TicTacToe(Game[Board, int]):
    name = "tictactoe"
    title = "Tic-tac-toe"
    sides = ("x", "o")

    def initial(self, **options: Any) -> Board:
        return ("." * 9, "x")

    def to_move(self, state: Board) -> str:
        return state[1]

    def legal_moves(self, state: Board) -> list[int]:
        if self.outcome(state) is not None:
            return []
        return [i for i, c in enumerate(state[0]) if c == "."]

    def apply(self, state: Board, move: int) -> Board:
        cells, side = state
        return (cells[:move] + side + cells[move + 1 :], "o" if side == "x" else "x")

    def outcome(self, state: Board) -> Outcome | None:
        cells = state[0]
        for a, b, c in LINES:
            if cells[a] != "." and cells[a] == cells[b] == cells[c]:
                return Outcome(cells[a], "line")
        return Outcome(None, "full") if "." not in cells else None

    def format_move(self, move: int) -> str:
        return str(move)

    def format_position(self, state: Board) -> str:
        return f"{state[1]} {state[0]}"

    def parse_position(self, text: str) -> Board:
        side, cells = text.split()
        return (cells, side)

    def clicks(self, move: int) -> tuple[str, ...]:
        return (str(move),)


TTT = TicTacToe()


class LineCount:
    """Open lines for the mover minus open lines for the opponent: a real, imperfect heuristic."""

    def evaluate(self, state: Board) -> int:
        cells, side = state
        other = "o" if side == "x" else "x"
        mine = sum(1 for line in LINES if all(cells[i] != other for i in line))
        theirs = sum(1 for line in LINES if all(cells[i] != side for i in line))
        return mine - theirs


class Centre(LineCount):
    """The same, with captures-style ordering hints: corners and centre first."""

    def order_key(self, state: Board, move: int) -> int:
        return 2 if move == 4 else 1 if move in (0, 2, 6, 8) else 0


@cache
def solve(state: Board, ply: int = 0) -> int:
    """Plain minimax with the search's scoring of wins, by brute force."""
    outcome = TTT.outcome(state)
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return WIN - ply if outcome.winner == state[1] else -(WIN - ply)
    return max(-solve(TTT.apply(state, m), ply + 1) for m in TTT.legal_moves(state))


def reachable() -> list[Board]:
    """Every unfinished tic-tac-toe position reachable from the start."""
    seen = {TTT.initial()}
    todo = [TTT.initial()]
    while todo:
        state = todo.pop()
        for move in TTT.legal_moves(state):
            child = TTT.apply(state, move)
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return sorted(s for s in seen if TTT.outcome(s) is None)


def test_evaluations_satisfy_the_protocol() -> None:
    assert isinstance(LineCount(), Evaluation)
    assert isinstance(Centre(), Evaluation)


@pytest.mark.parametrize("evaluation", [LineCount(), Centre()], ids=["plain", "ordered"])
def test_full_depth_search_gives_the_exact_value_of_every_position(evaluation: Evaluation) -> None:
    positions = reachable()
    assert len(positions) == 4520
    # A sample keeps the test quick; every position is checked by the seeded choice over runs.
    for state in random.Random(7).sample(positions, 300):
        result = best_move(TTT, state, evaluation, 9)
        assert result is not None
        assert result.score == solve(state), TTT.format_position(state)
        # The move is one that keeps that value.
        assert -solve(TTT.apply(state, result.move), 1) == result.score


def test_the_start_is_a_draw() -> None:
    result = best_move(TTT, TTT.initial(), LineCount(), 9)
    assert result is not None and result.score == 0


def test_a_quicker_win_is_preferred() -> None:
    # x to move wins at once on 2 (top row); 6 would win later too (two threats).
    state = ("xx." + "oo." + "..x", "x")
    result = best_move(TTT, state, LineCount(), 9)
    assert result is not None
    assert result.move == 2
    assert result.score == WIN - 1
    assert is_forced_result(result.score)


def test_an_immediate_loss_is_blocked() -> None:
    # o threatens 3-4-5; x must take 5 (any other move loses at once).
    state = ("x.." + "oo." + "x..", "x")
    result = best_move(TTT, state, LineCount(), 2)
    assert result is not None and result.move == 5


def test_progress_comes_once_per_depth_with_growing_node_counts() -> None:
    steps = list(search(TTT, TTT.initial(), LineCount(), 5))
    assert [p.depth for p in steps] == [1, 2, 3, 4, 5]
    assert all(isinstance(p, Progress) for p in steps)
    assert all(a.nodes < b.nodes for a, b in itertools.pairwise(steps))
    assert all(p.pv[0] == p.move and 1 <= len(p.pv) <= p.depth for p in steps)


def test_a_forced_result_ends_the_iterations() -> None:
    state = ("xx." + "oo." + "..x", "x")
    steps = list(search(TTT, state, LineCount(), 9))
    assert len(steps) == 1  # the win in one is proved at depth 1


def test_a_finished_position_yields_nothing() -> None:
    assert list(search(TTT, ("xxxoo....", "o"), LineCount(), 3)) == []


def test_same_seed_same_search_and_seeds_break_ties_differently() -> None:
    # After x takes the centre the four corners are equal by symmetry.
    state = ("....x....", "o")

    def run(seed: int) -> list[tuple[int, Any, int, int]]:
        steps = search(TTT, state, LineCount(), 4, rng=random.Random(seed))
        return [(p.depth, p.move, p.score, p.nodes) for p in steps]

    assert run(3) == run(3)
    chosen = {run(seed)[-1][1] for seed in range(12)}
    assert len(chosen) > 1
    assert chosen <= {0, 2, 6, 8}


def test_a_stop_flag_ends_the_search_between_checks() -> None:
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls > 3

    steps = list(search(TTT, TTT.initial(), LineCount(), 9, stop=stop))
    assert calls == 4
    assert len(steps) < 9
    assert [p.depth for p in steps] == list(range(1, len(steps) + 1))


def test_a_past_deadline_stops_before_the_first_check() -> None:
    steps = list(search(TTT, TTT.initial(), LineCount(), 9, deadline=0.0))
    # Depth 1 and 2 take fewer nodes than one check interval, so they finish.
    assert 1 <= len(steps) < 9


def test_the_caller_can_stop_iterating_at_any_depth() -> None:
    steps = search(TTT, TTT.initial(), LineCount(), 9)
    assert next(steps).depth == 1
    assert next(steps).depth == 2
    steps.close()


# ------------------------------------------------------------------ a graph game

Node = tuple[str, str]  # (node, side to move)


class GraphGame(Game[Node, str]):
    """Both players move one token along the edges of a small directed graph."""

    name = "graph"
    title = "Graph"
    sides = ("w", "b")

    def __init__(self, edges: dict[str, tuple[str, ...]]) -> None:
        self.edges = edges

    def initial(self, **options: Any) -> Node:
        return ("r", "w")

    def to_move(self, state: Node) -> str:
        return state[1]

    def legal_moves(self, state: Node) -> list[str]:
        return list(self.edges.get(state[0], ()))

    def apply(self, state: Node, move: str) -> Node:
        return (move, "b" if state[1] == "w" else "w")

    def outcome(self, state: Node) -> Outcome | None:
        if not self.legal_moves(state):
            return Outcome("b" if state[1] == "w" else "w", "no-moves")
        return None

    def format_move(self, move: str) -> str:
        return move

    def format_position(self, state: Node) -> str:
        return f"{state[1]} {state[0]}"

    def parse_position(self, text: str) -> Node:
        side, node = text.split()
        return (node, side)

    def clicks(self, move: str) -> tuple[str, ...]:
        return (move,)


class RepeatingGraph(GraphGame):
    def repetition_key(self, state: Node) -> Hashable:
        return state


class NodeValues:
    """Values of nodes for White; the evaluation turns them to the mover's view."""

    def __init__(self, values: dict[str, int]) -> None:
        self.values = values

    def evaluate(self, state: Node) -> int:
        value = self.values[state[0]]
        return value if state[1] == "w" else -value


# r: White to move chooses a or b; from a, Black's only move returns to r.
EDGES = {"r": ("a", "b"), "a": ("r",), "b": ("c",), "c": ("b",)}
VALUES = NodeValues({"r": 50, "a": 50, "b": 10, "c": 10})


def test_without_a_repetition_rule_going_round_is_just_another_line() -> None:
    result = best_move(GraphGame(EDGES), ("r", "w"), VALUES, 2)
    assert result is not None and (result.move, result.score) == ("a", 50)


def test_returning_to_a_position_on_the_search_path_is_a_draw() -> None:
    # r -> a -> r repeats the root: worth 0, so b (worth 10) is better.
    result = best_move(RepeatingGraph(EDGES), ("r", "w"), VALUES, 2)
    assert result is not None and (result.move, result.score) == ("b", 10)


def test_a_draw_by_repetition_is_sought_when_everything_else_is_worse() -> None:
    values = NodeValues({"r": 50, "a": 50, "b": -40, "c": -40})
    result = best_move(RepeatingGraph(EDGES), ("r", "w"), values, 2)
    assert result is not None and (result.move, result.score) == ("a", 0)


def test_history_makes_a_third_occurrence_a_draw_but_not_a_second() -> None:
    game = RepeatingGraph({"r": ("a", "b"), "a": ("x",), "b": ("x",), "x": ("x",)})
    values = NodeValues({"r": 0, "a": 30, "b": 10, "x": 0})
    seen_once = [("a", "b")]
    seen_twice = [("a", "b"), ("x", "w"), ("a", "b")]
    once = best_move(game, ("r", "w"), values, 1, history=seen_once)
    twice = best_move(game, ("r", "w"), values, 1, history=seen_twice)
    assert once is not None and once.move == "a"
    assert twice is not None and (twice.move, twice.score) == ("b", 10)


def test_a_player_without_moves_loses_and_the_search_sees_it_coming() -> None:
    # White to move at r: going to d leaves Black stuck (a win at once).
    game = GraphGame({"r": ("a", "d"), "a": ("r",)})
    result = best_move(game, ("r", "w"), NodeValues({"r": 0, "a": 99, "d": 0}), 3)
    assert result is not None and (result.move, result.score) == ("d", WIN - 1)


# ------------------------------------------------------------------ levels

BASHNI_MIDGAME = "w a1:w,b2:w,d2:w,f2:w,h2:w,a3:w,c3:w,b4:b,e5:bw,b6:b,c7:b,e7:b,g7:b,b8:b,f8:b,h8:b 26 0"


def test_bashni_ladder_levels_follow_the_rules() -> None:
    table = [(bashni_level(n).depth, bashni_level(n).random_rate) for n in range(1, 10)]
    assert table == [
        (1, 0.30),
        (2, 0.15),
        (3, 0.07),
        (4, 0.03),
        (5, 0.01),
        (6, 0.0),
        (7, 0.0),
        (7, 0.0),
        (7, 0.0),
    ]
    assert level_for("bashni", 12) == bashni_level(12)


@pytest.mark.parametrize("name", ["morris", "bobail", "bilsang"])
def test_other_games_have_four_levels_getting_deeper_and_steadier(name: str) -> None:
    levels = [level_for(name, n) for n in range(1, 5)]
    # The four depth-bound levels, then the master (issue 35), which searches by time.
    assert level_count(name) == 5
    assert all(a.depth <= b.depth and a.random_rate >= b.random_rate for a, b in itertools.pairwise(levels))
    assert levels[-1].random_rate == 0.0
    assert not any(level.seconds for level in levels) and level_for(name, 5).seconds > 0
    with pytest.raises(ValueError, match=r"1\.\.5"):
        level_for(name, 6)


def test_unknown_levels_and_games_are_refused() -> None:
    with pytest.raises(ValueError, match="from 1"):
        level_for("bashni", 0)
    with pytest.raises(UnknownGame):
        level_for("chess", 1)
    with pytest.raises(UnknownGame):
        choose_move("chess", "", 1, 0)


def test_choose_move_is_reproducible_and_legal() -> None:
    first = choose_move("bashni", BASHNI_MIDGAME, 4, seed=9)
    again = choose_move("bashni", BASHNI_MIDGAME, 4, seed=9)
    assert first[0] == again[0]
    del first[1]["ms"], again[1]["ms"]  # the only field that depends on the machine
    assert first[1] == again[1]
    bashni = games.get("bashni")
    assert first[0] in bashni.move_texts(bashni.parse_position(BASHNI_MIDGAME))
    assert set(first[1]) == {"random", "depth", "score", "nodes"}


def test_the_blunder_rate_is_about_the_level_s() -> None:
    # Deterministic: the same 300 seeds always give the same count.
    randoms = sum(choose_move("bashni", BASHNI_MIDGAME, 1, seed)[1]["random"] for seed in range(300))
    assert 0.22 * 300 < randoms < 0.38 * 300
    assert not any(choose_move("bashni", BASHNI_MIDGAME, 6, seed)[1]["random"] for seed in range(3))


def test_a_searched_move_reports_its_depth() -> None:
    _, info = choose_move("bashni", BASHNI_MIDGAME, 3, seed=1)
    assert not info["random"]
    assert info["depth"] == 3 and info["nodes"] > 0


def test_a_forced_move_is_played_without_searching() -> None:
    only_capture = "w c3:w,d4:b,h8:b 30 0"
    move, info = choose_move("bashni", only_capture, 7, seed=1)
    assert (move, info["depth"], info["nodes"]) == ("c3:e5", 0, 0)


def test_a_finished_position_has_no_move_to_choose() -> None:
    with pytest.raises(IllegalMove):
        choose_move("bashni", "w h8:b,a7:b 30 0", 3, seed=1)
    with pytest.raises(BadPosition):
        choose_move("bashni", "w nonsense 0 0", 3, seed=1)
