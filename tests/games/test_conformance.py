"""One conformance test for every registered game (issue 28, item 7): random games played
through the ``Game`` interface, checking at every position what every part of the site
relies on, whatever the game:

- a position's text reads back to the same text and the same legal moves;
- no two moves share a text, and a move's text reads back to the same move (a few moves
  per position: each reading generates the legal moves);
- playing a move leaves the position it was played from unchanged;
- the click paths cover exactly the legal moves: every path of a move, walked in the click
  tree the page is sent (``app.services.clicks.click_tree``), ends at that move and goes
  no further, so no legal move is out of reach by taps and no taps play another move;
  for a few moves per position the same taps are also judged by ``follow``, the server's
  own reading of taps (all of them is quadratic: a minute for two Bilsang games).

Perft counts stay in each game's own tests (tests/games/test_<game>.py and data/), each
agreed with an independent reference implementation.
"""

from __future__ import annotations

import random

import pytest

import games
from app.services.clicks import click_tree, follow

#: Seeded games per game and their length cap: a few seconds for all four games.
GAMES_PER_GAME = 8
MAX_PLIES = 100


def check_position(game: games.Game, state: object, rng: random.Random) -> list[object]:  # type: ignore[type-arg]
    text = game.format_position(state)
    tree = click_tree(game, state)
    count = len(game.legal_moves(state))
    judged = set(rng.sample(range(count), min(4, count)))
    again = game.parse_position(text)
    assert game.format_position(again) == text
    legal = game.legal_moves(state)
    texts = [game.format_move(m) for m in legal]
    assert sorted(texts) == sorted(game.format_move(m) for m in game.legal_moves(again)), text
    assert len(set(texts)) == len(texts), f"two moves share a text in {text}"
    for index, (move, move_text) in enumerate(zip(legal, texts, strict=True)):
        if index in judged:  # each parse generates the legal moves: a sample, not all
            assert game.format_move(game.parse_move(state, move_text)) == move_text
        paths = game.click_paths(move)
        assert paths, f"{move_text} cannot be tapped in {text}"
        assert game.clicks(move) in paths
        for path in paths:
            node = tree
            for point in path:
                node = node["next"][point]
            assert node.get("move") == move_text and not node.get("next"), f"taps {path} in {text}"
            if index in judged:
                played = follow(game, state, tuple(path)).complete
                assert played == move_text, f"taps {path} play {played!r}, not {move_text} in {text}"
        after = game.apply(state, move)
        assert game.format_position(state) == text, f"{move_text} changed the position it was played from"
        assert after is not state
    return legal


@pytest.mark.parametrize("name", games.names())
def test_random_games_keep_every_promise_of_the_interface(name: str) -> None:
    game = games.get(name)
    rng = random.Random(f"conformance {name}")
    positions = 0
    for _ in range(GAMES_PER_GAME):
        state = game.initial()
        for _ply in range(MAX_PLIES):
            legal = check_position(game, state, rng)
            positions += 1
            if game.outcome(state) is not None or not legal:
                break
            state = game.apply(state, rng.choice(legal))
    assert positions >= GAMES_PER_GAME * 5  # the games were played, not ended at once
