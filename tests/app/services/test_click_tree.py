"""The click tree the board carries for the browser: golden snapshots and its agreement with
the engines' click paths and with the server's own tap follower."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import games
from app import boards
from app.services.clicks import click_tree, follow, tree_points
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, bilsang_quiet_game, started

GOLDEN = Path(__file__).parent / "golden"
HTML = {"accept": "text/html"}

#: (name, game, moves played from the start): a start, a mill to close, a capture to go
#: on with, the Neutron then an electron, a Bilsang position some plies in.
CASES = [
    ("bashni-start", "bashni", []),
    ("bashni-capture-chain", "bashni", BASHNI_WIN[:11]),
    ("morris-start", "morris", []),
    ("morris-mill", "morris", MORRIS_WIN[:8]),
    ("morris-slide-mill", "morris", MORRIS_WIN[:18]),
    ("bobail-start", "bobail", []),
    ("bobail-second", "bobail", BOBAIL_WIN[:1]),
    ("bilsang-start", "bilsang", []),
    ("bilsang-later", "bilsang", bilsang_quiet_game(3)[:7]),
]


def position(game_name: str, line: list[str]) -> Any:
    game = games.get(game_name)
    state = game.initial()
    for text in line:
        state = game.play(state, text)
    return state


def board_tree(game_name: str, state: Any) -> dict[str, Any]:
    return boards.annotate_tree(game_name, state, click_tree(games.get(game_name), state))


def paths(tree: dict[str, Any], prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Every complete path of the tree with the move it makes."""
    found = {}
    if "move" in tree:
        found[prefix] = tree["move"]
    for point, child in tree.get("next", {}).items():
        found.update(paths(child, (*prefix, point)))
    return found


@pytest.mark.parametrize(("name", "game_name", "line"), CASES, ids=[c[0] for c in CASES])
def test_the_tree_matches_its_golden_snapshot(name: str, game_name: str, line: list[str]) -> None:
    tree = board_tree(game_name, position(game_name, line))
    golden = GOLDEN / f"click_tree-{name}.json"
    text = json.dumps(tree, indent=1, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert golden.exists(), f"run with UPDATE_GOLDEN=1 to write {golden.name}"
    assert text == golden.read_text(), f"the click tree of {name} changed; check it, then UPDATE_GOLDEN=1"


@pytest.mark.parametrize(("name", "game_name", "line"), CASES, ids=[c[0] for c in CASES])
def test_every_path_is_a_legal_move_and_every_move_has_its_paths(
    name: str, game_name: str, line: list[str]
) -> None:
    game = games.get(game_name)
    state = position(game_name, line)
    complete = paths(board_tree(game_name, state))
    expected = {
        path: game.format_move(move) for move in game.legal_moves(state) for path in game.click_paths(move)
    }
    assert complete == expected
    # Walking the tree and asking the server's follower agree at every prefix.
    for path, move in expected.items():
        for depth in range(len(path)):
            node = board_tree(game_name, state)
            for point in path[:depth]:
                node = node["next"][point]
            assert set(node["next"]) == follow(game, state, path[:depth]).next_points
        assert follow(game, state, path).complete == move


def test_the_hints_name_the_step_that_needs_them() -> None:
    mill = board_tree("morris", position("morris", MORRIS_WIN[:8]))
    closing = mill["next"]["f6"]  # f6 closes b6-d6-f6: a removal follows
    assert closing["hint"] == "remove" and closing["draw"] == [["place", "f6"]]
    assert "hint" not in mill["next"]["a1"]  # a plain placement
    slide = board_tree("morris", position("morris", MORRIS_WIN[:18]))
    assert slide["next"]["f4"]["next"]["e4"]["draw"] == [["move", "f4", "e4"]]
    bobail = board_tree("bobail", position("bobail", BOBAIL_WIN[:1]))
    for first, node in bobail["next"].items():
        for second, after in node["next"].items():
            if "next" in after:
                assert after["hint"] == "electron" and after["draw"] == [["move", first, second]]
    chain = board_tree("bashni", position("bashni", BASHNI_WIN[:11]))
    assert chain["next"]["c7"]["next"]["e5"]["hint"] == "capture"
    assert set(boards.STEP_HINTS) == {"remove", "electron", "capture"}


@pytest.mark.parametrize(
    ("game_name", "line"),
    [
        ("bashni", BASHNI_WIN[:11]),
        ("morris", MORRIS_WIN[:8]),
        ("bobail", []),
        ("bilsang", bilsang_quiet_game(3)[:6]),
    ],
)
def test_the_page_carries_the_tree_and_every_point_it_names(
    alice: TestClient, bob: TestClient, game_name: str, line: list[str]
) -> None:
    # The line is played by the engine's bare rules: Bilsang's free pairs, not its default options.
    match_id = started(alice, bob, game_name, **({"options": {}} if game_name == "bilsang" else {}))
    for ply, text in enumerate(line):
        answer = (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
        assert answer.status_code == 200, answer.text
    mover = (alice, bob)[len(line) % 2]
    page = mover.get(f"/matches/{match_id}", headers=HTML).text
    found = re.search(r'data-clicks="([^"]+)"', page)
    assert found is not None
    carried = json.loads(html.unescape(found.group(1)))
    assert carried == board_tree(game_name, position(game_name, line))
    drawn = set(re.findall(r'data-point="([^"]+)"', page))
    assert tree_points(carried) <= drawn
    # The player waiting for their turn gets no tree: nothing to walk.
    other = (alice, bob)[(len(line) + 1) % 2].get(f"/matches/{match_id}", headers=HTML).text
    assert "data-clicks" not in other and 'data-point="' in other


@pytest.mark.parametrize(
    ("game_name", "count"), [("bashni", 32), ("morris", 24), ("bobail", 25), ("bilsang", None)]
)
def test_every_board_point_has_its_name(
    alice: TestClient, bob: TestClient, game_name: str, count: int | None
) -> None:
    match_id = started(alice, bob, game_name)
    page = alice.get(f"/matches/{match_id}", headers=HTML).text
    names = re.findall(r'data-point="([^"]+)"', page)
    assert len(names) == len(set(names))
    if count is not None:
        assert len(names) == count
    game = games.get(game_name)
    state = game.initial()
    for move in game.legal_moves(state):
        assert set(game.clicks(move)) <= set(names)
