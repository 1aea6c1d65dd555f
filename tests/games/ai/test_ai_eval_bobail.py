"""The Bobail evaluation and opponent on clear-cut positions.

Besides hand-built positions, every position of some seeded random games where
a win in one exists (or where some moves hand the opponent a win in one and
others do not) checks the same two facts at scale.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from games.ai.eval_bobail import WINNING, BobailEvaluation
from games.ai.levels import Level, choose
from games.ai.search import WIN, best_move
from games.bobail import GAME, BobailMove, BobailState


def pos(text: str) -> BobailState:
    return GAME.parse_position(text)


def chosen(state: BobailState, depth: int, seed: int = 1) -> BobailMove:
    return choose(GAME, state, Level(depth, 0.0), random.Random(seed)).move


def wins_at_once(state: BobailState, move: BobailMove) -> bool:
    outcome = GAME.outcome(GAME.apply(state, move))
    return outcome is not None and outcome.winner == state.side


def gives_a_win_in_one(state: BobailState, move: BobailMove) -> bool:
    after = GAME.apply(state, move)
    if GAME.outcome(after) is not None:
        return GAME.outcome(after).winner != state.side  # type: ignore[union-attr]
    return any(wins_at_once(after, reply) for reply in GAME.legal_moves(after))


@cache
def playout_positions() -> list[BobailState]:
    rng = random.Random(21)
    found = []
    for _ in range(40):
        state = GAME.initial()
        while GAME.outcome(state) is None and len(found) < 4000:
            found.append(state)
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    return found


def test_a_neutron_slide_home_wins_at_once() -> None:
    # White to move: c3 slides down to c1, White's home rank (c1 is empty).
    state = pos("w bbbbb..w....n.......ww.ww")
    assert GAME.format_move(chosen(state, 1)) == "c3-c1"
    assert BobailEvaluation().evaluate(state) == WINNING
    result = best_move(GAME, state, BobailEvaluation(), 3)
    assert result is not None and result.score == WIN - 1


def test_a_neutron_slide_to_the_opponents_home_is_never_played() -> None:
    # c3 can slide up to c5 (Black's home) or down to c1 (White's): only c1 wins.
    state = pos("w bb.bbb....w.n.......ww.ww")
    assert GAME.format_move(chosen(state, 2)) == "c3-c1"


@pytest.mark.parametrize("depth", [1, 2])
def test_every_win_in_one_of_random_games_is_taken(depth: int) -> None:
    cases = [s for s in playout_positions() if any(wins_at_once(s, m) for m in GAME.legal_moves(s))][:60]
    assert len(cases) >= 20
    for state in cases:
        assert wins_at_once(state, chosen(state, depth)), GAME.format_position(state)


def test_every_avoidable_loss_in_one_of_random_games_is_avoided() -> None:
    cases = []
    for state in playout_positions():
        moves = GAME.legal_moves(state)
        if any(wins_at_once(state, m) for m in moves):
            continue
        giving = [gives_a_win_in_one(state, m) for m in moves]
        if any(giving) and not all(giving):
            cases.append(state)
            if len(cases) == 30:
                break
    assert len(cases) == 30
    for state in cases:
        assert not gives_a_win_in_one(state, chosen(state, 2)), GAME.format_position(state)


def test_the_evaluation_is_the_same_with_colours_exchanged() -> None:
    evaluation = BobailEvaluation()
    flip = str.maketrans("wb", "bw")
    for state in playout_positions()[::50]:
        # Turn the board round (rank 1 <-> rank 5) and exchange the colours.
        mirrored = BobailState("b" if state.side == "w" else "w", state.board[::-1].translate(flip))
        assert evaluation.evaluate(state) == evaluation.evaluate(mirrored)
