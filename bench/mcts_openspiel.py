"""Bashni's master level against OpenSpiel's Monte-Carlo tree search (issue 35).

A benchmark dependency, not the site's: OpenSpiel (``open_spiel``, with numpy and
scipy) goes in a virtualenv of its own, and ``games`` (pure Python, no
dependencies) is read from the checkout::

    python3 -m venv /tmp/mcts && /tmp/mcts/bin/pip install open_spiel==2.0.2
    cd bench && PYTHONPATH=.. nice -n 5 /tmp/mcts/bin/python mcts_openspiel.py --games 10

The searcher is OpenSpiel's own ``MCTSBot`` (UCT, ``uct_c=2``, 10,000 simulations a
move, the solver on, as the issue measured it) over ``TableroBashni``, a pyspiel game
written here over ``games.get("bashni")``: an action is the index of a move in the
engine's list of legal moves in that position. Its leaves are valued by one random
playout each, exactly what OpenSpiel's ``RandomRolloutEvaluator(n_rollouts=1)`` does
(uniform random moves to the end of the game, then the returns), but played on the
engine's own positions instead of through pyspiel's state bindings, which cost most of
a playout's time; its prior is that evaluator's (uniform). The master (level 19) thinks
``--seconds`` a move by the wall clock, as on the site.

The games start from ``bench/ai_strength.py``'s seeded openings, each twice with the
colours swapped. Prints every game, then W/D/L from our side and both sides'
median time a move. ``--level 18`` plays the ladder's last opponent instead, as the issue
measured (its 10,000-simulation searcher won both its games against opponent 18).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from ai_strength import opening  # bench/: the same seeded starts as every strength match
from machine import load_average, machine_line
from open_spiel.python.algorithms import mcts  # type: ignore[import-not-found]

import games
from games.ai.levels import MASTER_LEVEL, choose, level_for

ENGINE = games.get("bashni")
FIRST = ENGINE.sides[0]
SEED = 20261206
#: Bashni has at most a few dozen moves a position; a bound OpenSpiel asks for.
MAX_ACTIONS = 1024

GAME_TYPE = pyspiel.GameType(
    short_name="tablero_bashni",
    long_name="Bashni over Tablero's engine",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={},
)
GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=MAX_ACTIONS,
    max_chance_outcomes=0,
    num_players=2,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=300,  # the rules' ply limit is 250
)


def returns_of(position: Any) -> list[float]:
    """Player 0 (the side that moves first in Bashni) and player 1's returns."""
    outcome = ENGINE.outcome(position)
    if outcome is None or outcome.winner is None:
        return [0.0, 0.0]
    return [1.0, -1.0] if outcome.winner == FIRST else [-1.0, 1.0]


class TableroBashni(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, params: Any = None) -> None:
        super().__init__(GAME_TYPE, GAME_INFO, params or {})

    def new_initial_state(self, position: Any = None) -> BashniState:
        return BashniState(self, ENGINE.initial() if position is None else position)


class BashniState(pyspiel.State):  # type: ignore[misc]
    """An engine position (Bashni's outcome depends on the position alone: no repetition rule)."""

    def __init__(self, game: TableroBashni, position: Any) -> None:
        super().__init__(game)
        self.position = position
        self._moves: list[Any] | None = None
        self._done = ENGINE.outcome(position) is not None

    def moves(self) -> list[Any]:
        if self._moves is None:
            self._moves = ENGINE.legal_moves(self.position)
        return self._moves

    def current_player(self) -> int:
        if self._done:
            return int(pyspiel.PlayerId.TERMINAL)
        return 0 if ENGINE.to_move(self.position) == FIRST else 1

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(self.moves())))

    def _apply_action(self, action: int) -> None:
        self.position = ENGINE.apply(self.position, self.moves()[action])
        self._moves = None
        self._done = ENGINE.outcome(self.position) is not None

    def _action_to_string(self, player: int, action: int) -> str:
        return ENGINE.format_move(self.moves()[action])

    def is_terminal(self) -> bool:
        return self._done

    def returns(self) -> list[float]:
        return returns_of(self.position)

    def __str__(self) -> str:
        return ENGINE.format_position(self.position)


pyspiel.register_game(GAME_TYPE, TableroBashni)


class EngineRollouts(mcts.Evaluator):  # type: ignore[misc]
    """``RandomRolloutEvaluator(n_rollouts=1)``'s playouts, on the engine's positions."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def evaluate(self, state: BashniState) -> np.ndarray:
        position = state.position
        while ENGINE.outcome(position) is None:
            position = ENGINE.apply(position, self.rng.choice(ENGINE.legal_moves(position)))
        return np.array(returns_of(position))

    def prior(self, state: BashniState) -> list[tuple[int, float]]:
        actions = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(actions)) for action in actions]


def play_game(index: int, simulations: int, seconds: float, uct_c: float, level: int) -> dict[str, Any]:
    """Game ``index``: our side (``level``, the master by default) moves first on even indexes."""
    game = TableroBashni()
    start = opening(ENGINE, index // 2)
    state = game.new_initial_state(start)
    master_side = (
        ENGINE.to_move(start)
        if index % 2 == 0
        else next(s for s in ENGINE.sides if s != ENGINE.to_move(start))
    )
    bot = mcts.MCTSBot(
        game,
        uct_c=uct_c,
        max_simulations=simulations,
        evaluator=EngineRollouts(random.Random(f"{SEED} rollouts {index}")),
        solve=True,
        random_state=np.random.RandomState(SEED + index),
    )
    master = level_for("bashni", level)
    rng = random.Random(f"{SEED} master {index}")
    times: dict[str, list[float]] = {"master": [], "mcts": []}
    while not state.is_terminal():
        began = time.perf_counter()
        if ENGINE.to_move(state.position) == master_side:
            move = choose(ENGINE, state.position, master, rng, seconds=seconds).move
            action = state.moves().index(move)
            times["master"].append(time.perf_counter() - began)
        else:
            action = bot.step(state)
            times["mcts"].append(time.perf_counter() - began)
        state.apply_action(action)
    outcome = ENGINE.outcome(state.position)
    assert outcome is not None
    winner = None if outcome.winner is None else ("master" if outcome.winner == master_side else "mcts")
    return {"winner": winner, "reason": outcome.reason, "plies": state.position.plies, "times": times}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--first", type=int, default=0, help="index of the first game (to split a match)")
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=2.0, help="the master's think time a move")
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument(
        "--level",
        type=int,
        default=MASTER_LEVEL["bashni"],
        help="our side: the master (19) by default; 18 is the ladder's last opponent, as the issue measured",
    )
    args = parser.parse_args(argv)
    print(machine_line())
    print(
        f"bashni: level {args.level} ({args.seconds:g} s a move if the master) against OpenSpiel MCTS "
        f"({args.simulations} simulations a move, uct_c {args.uct_c:g}, random playouts), "
        f"games {args.first + 1}..{args.first + args.games}",
        flush=True,
    )
    began = time.perf_counter()
    results = []
    for index in range(args.first, args.first + args.games):
        result = play_game(index, args.simulations, args.seconds, args.uct_c, args.level)
        results.append(result)
        t = result["times"]
        print(
            f"  game {index + 1} (master {'first' if index % 2 == 0 else 'second'}): "
            f"{result['winner'] or 'draw'} ({result['reason']}, {result['plies']} plies); median s a move "
            f"master {statistics.median(t['master']):.2f}, mcts {statistics.median(t['mcts']):.2f}",
            flush=True,
        )
    won = sum(r["winner"] == "master" for r in results)
    lost = sum(r["winner"] == "mcts" for r in results)
    times = {side: [x for r in results for x in r["times"][side]] for side in ("master", "mcts")}
    print()
    print(f"master W / D / L: {won} / {len(results) - won - lost} / {lost}")
    for side, values in times.items():
        median, slowest = statistics.median(values), max(values)
        print(f"{side}: median {median:.2f} s a move, max {slowest:.2f}, {len(values)} moves")
    took = time.perf_counter() - began
    print(f"took {took:.0f} s; load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
