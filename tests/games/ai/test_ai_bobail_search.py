"""Bobail's master search (games.ai.bobail_search) against a plain minimax over the engine.

The reference below knows nothing of bit masks, move order, the table or windows:
it plays every legal move of ``games.bobail`` and scores the leaves with
``BobailEvaluation``, a Neutron slide home as won at once. Equal scores on
seeded positions say the fast search prunes nothing it should not.
"""

from __future__ import annotations

import random
from functools import cache

from games.ai import bobail_search
from games.ai.eval_bobail import (
    ELECTRON_MOBILITY,
    NEUTRON_RANK,
    SAFE_CAP,
    SAFE_SLIDE,
    _electron_slides,
    neutron_rank,
)
from games.ai.levels import choose_move, evaluation_for
from games.ai.search import WIN, is_forced_result, search
from games.bobail import GAME, RAYS, BobailState, slide_stop


def home_slide(state: BobailState) -> bool:
    """Whether the mover can slide the Neutron onto their home rank now."""
    neutron = state.board.index("n")
    home = range(20, 25) if state.side == "w" else range(5)
    return any(slide_stop(state.board, ray) in home for ray in RAYS[neutron])


def horizon(state: BobailState, ply: int) -> int:
    """The leaf score by brute force: the evaluation's terms with a Neutron slide
    counted as safe only if some electron move after it leaves no slide home."""
    moves = GAME.legal_moves(state)
    if not moves:
        return -(WIN - ply)
    safe: set[int] = set()
    legal = False
    for move in moves:
        if move.electron_from is None:
            continue  # onto the other side's home rank: the mover's own was checked first
        legal = True
        if not home_slide(GAME.apply(state, move)):
            safe.add(move.neutron_to)
    if not safe:
        return -(WIN - ply - 2) if legal else -(WIN - ply - 1)
    other = "b" if state.side == "w" else "w"
    rank = neutron_rank(state.board.index("n"))
    nearer = 3 - rank if state.side == "w" else rank - 3
    mobility = _electron_slides(state.board, state.side) - _electron_slides(state.board, other)
    return NEUTRON_RANK * nearer + SAFE_SLIDE * min(len(safe), SAFE_CAP) + ELECTRON_MOBILITY * mobility


def reference(state: BobailState, depth: int, ply: int = 0) -> int:
    if home_slide(state):
        return WIN - ply - 1
    if depth <= 0:
        return horizon(state, ply)
    moves = GAME.legal_moves(state)
    if not moves:
        return -(WIN - ply)
    best = -WIN - 1
    for move in moves:
        child = GAME.apply(state, move)
        outcome = GAME.outcome(child)
        if outcome is not None and outcome.reason == "neutron-home":
            score = WIN - ply - 1 if outcome.winner == state.side else -(WIN - ply - 1)
        else:
            score = -reference(child, depth - 1, ply + 1)
        best = max(best, score)
    return best


@cache
def positions() -> list[BobailState]:
    rng = random.Random(35)
    found: list[BobailState] = []
    while len(found) < 60:
        state = GAME.initial()
        for _ in range(rng.randrange(1, 12)):
            if GAME.outcome(state) is not None:
                break
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
        if GAME.outcome(state) is None:
            found.append(state)
    return found


def fast(state: BobailState, depth: int, **options: object) -> bobail_search.Progress:
    *_, last = bobail_search.search(state, depth, **options)  # type: ignore[arg-type]
    return last


def test_one_turn_deep_scores_what_plain_minimax_scores() -> None:
    for state in positions():
        result = fast(state, 1)
        assert result.score == reference(state, 1), GAME.format_position(state)
        assert result.move in GAME.legal_moves(state)


def test_deeper_and_with_aspiration_windows_on_narrow_positions() -> None:
    narrow = sorted(positions(), key=lambda s: len(GAME.legal_moves(s)))[:8]
    for state in narrow:
        expected = reference(state, 2)
        assert fast(state, 2).score == expected, GAME.format_position(state)
        assert fast(state, 2, aspiration=1).score == expected, GAME.format_position(state)
    for state in narrow[:3]:
        assert fast(state, 3, aspiration=1).score == reference(state, 3), GAME.format_position(state)


def test_a_slide_home_is_played_and_a_position_without_a_safe_slide_is_lost() -> None:
    # c3 slides down to c1, White's home rank.
    won = GAME.parse_position("w bbbbb..w....n.......ww.ww")
    assert GAME.format_move(fast(won, 3).move) == "c3-c1" and fast(won, 3).score == WIN - 1
    # White's Neutron on b2 is hemmed in but for the b-file up to b5, Black's home: a legal move that loses.
    lost = GAME.parse_position("w b.bb......b.b..wnw..www..")
    moves = GAME.legal_moves(lost)
    assert [GAME.format_move(m) for m in moves] == ["b2-b5"]
    result = fast(lost, 2)
    assert result.move == moves[0] and result.score == -(WIN - 1)


def test_a_position_met_twice_before_is_a_draw_unless_the_neutron_slides_home() -> None:
    checked = 0
    for state in positions()[:30]:
        for move in GAME.legal_moves(state)[:5]:
            child = GAME.apply(state, move)
            if GAME.outcome(child) is not None:
                continue
            # The child met twice already: reaching it again is the third time, a draw.
            searcher = bobail_search.BobailSearcher(history=[child, child])
            score, _ = searcher.negamax(*bobail_search.masks(child), 1, -WIN - 1, WIN + 1, 1)
            assert score == (WIN - 2 if home_slide(child) else 0)
            fresh = bobail_search.BobailSearcher(history=[child])
            once = fresh.negamax(*bobail_search.masks(child), 1, -WIN - 1, WIN + 1, 1)[0]
            assert once == reference(child, 1, 1)
            checked += 1
    assert checked >= 50


def open_position() -> BobailState:
    return next(s for s in positions() if not is_forced_result(fast(s, 3).score))


def test_the_master_uses_it_and_a_node_budget_repeats() -> None:
    open_game = open_position()
    text = GAME.format_position(open_game)
    first = choose_move("bobail", text, 5, seed=3, nodes=30_000)
    again = choose_move("bobail", text, 5, seed=3, nodes=30_000)
    del first[1]["ms"], again[1]["ms"]
    assert first == again and first[1]["nodes"] <= 30_000 + bobail_search.STOP_CHECK_NODES
    # The generic search with the master's options gets less deep on the same budget.
    *_, generic = search(
        GAME, open_game, evaluation_for("bobail"), 64, max_nodes=30_000, aspiration=25, reductions=True
    )
    assert first[1]["depth"] > generic.depth


def test_the_master_varies_its_openings_with_the_seed_and_repeats_each_seed() -> None:
    # The start is symmetric left to right, so mirrored moves score alike: without a
    # shuffle of the root the master opened every game the same way, and a player
    # could replay one winning line against it forever.
    start = GAME.format_position(GAME.initial())
    played = {seed: choose_move("bobail", start, 5, seed=seed, nodes=5_000)[0] for seed in range(12)}
    assert len(set(played.values())) >= 2, played
    assert all(choose_move("bobail", start, 5, seed=seed, nodes=5_000)[0] == played[seed] for seed in (0, 4))
    # Whatever the shuffle, the search finds the same best score.
    scores = set()
    for seed in range(4):
        *_, last = bobail_search.search(GAME.initial(), 3, rng=random.Random(seed))
        scores.add(last.score)
    *_, plain = bobail_search.search(GAME.initial(), 3)
    assert scores == {plain.score}
