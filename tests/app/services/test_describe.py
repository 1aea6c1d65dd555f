"""The words a screen reader hears, the keyboard cursor's map, and typed commands (issue 19)."""

from __future__ import annotations

import html
import re
from collections import deque

import pytest
from fastapi.testclient import TestClient

import games
from app import boards
from app.i18n import translations
from app.services import describe, typed_commands
from tests.app.helpers import create, play, started

EN = translations("en").gettext
ES = translations("es").gettext


def board_of(game_name: str, position: str | None = None) -> dict:
    game = games.get(game_name)
    state = game.parse_position(position) if position else game.initial()
    return boards.board_data(boards.BoardView(game=game_name, state=state))


def labels(game_name: str, position: str | None = None, tr=EN) -> dict[str, str]:
    return describe.point_labels(game_name, tr, board_of(game_name, position))


def test_a_bashni_column_says_its_top_its_height_and_its_prisoners() -> None:
    position = "w d4:bwW,a1:w,h8:B 0 0"
    said = labels("bashni", position)
    assert said["d4"] == "d4, white column of 3, white king on top, 2 white pieces in all, 1 black prisoner"
    assert said["a1"] == "a1, white man"
    assert said["h8"] == "h8, black king"
    assert said["c3"] == "c3, empty"
    spanish = labels("bashni", position, ES)
    assert spanish["d4"] == (
        "d4, columna blanca de 3, dama blanca encima, 2 piezas blancas en total, 1 prisionera negra"
    )


def test_every_game_names_its_points() -> None:
    assert labels("morris")["a7"] == "a7, empty"
    assert labels("morris", "w w....................... 8 9 0")["a7"] == "a7, white piece"
    bobail = labels("bobail")
    assert bobail["c3"] == "c3, the Neutron"
    assert bobail["a1"] == "a1, white electron, White's home row"
    assert labels("bobail", tr=ES)["a5"] == "a5, electrón negro, Fila de las negras"
    bilsang = labels("bilsang")
    assert bilsang["2,3"] == "buoy at 2,3"
    assert bilsang["5,0"] == "5,0, empty sea"


def reachable(nav: dict[str, list[str | None]], start: str) -> set[str]:
    seen, queue = {start}, deque([start])
    while queue:
        for there in nav[queue.popleft()]:
            if there is not None and there not in seen:
                seen.add(there)
                queue.append(there)
    return seen


@pytest.mark.parametrize("game_name", ["morris", "bashni", "bobail", "bilsang"])
def test_the_arrow_keys_reach_every_point(game_name: str) -> None:
    board = board_of(game_name)
    nav = describe.navigation(game_name, board)
    names = {p["name"] for p in describe.board_points(game_name, board)}
    assert set(nav) == names
    for start in names:
        assert reachable(nav, start) == names


def test_morris_moves_along_the_lines_and_grids_square_by_square() -> None:
    nav = describe.navigation("morris", board_of("morris"))
    up, right, down, left = nav["a7"]
    assert (up, right, down, left) == (None, "d7", "a4", None)
    assert nav["d3"][0] is None  # no line from d3 across the middle
    assert nav["d2"] == ["d3", "f2", "d1", "b2"]
    bobail = describe.navigation("bobail", board_of("bobail"))
    assert bobail["c3"] == ["c4", "d3", "c2", "b3"]
    bashni = describe.navigation("bashni", board_of("bashni"))
    assert bashni["d2"] == ["d4", "f2", "c1", "b2"]  # same file or rank first, else the nearest


def test_the_keyboard_map_follows_the_drawing_it_is_kept_for() -> None:
    """The map is kept per drawing (points and where they are drawn): a board turned for
    Black, or a Bilsang board whose universe spread out, gets its own map, not one kept
    for another drawing."""
    game = games.get("bashni")
    turned = boards.board_data(boards.BoardView(game="bashni", state=game.initial(), flipped=True))
    assert describe.navigation("bashni", board_of("bashni"))["d2"] == ["d4", "f2", "c1", "b2"]
    assert describe.navigation("bashni", turned)["d2"] == ["c1", "b2", "d4", "f2"]  # up is down
    bilsang = games.get("bilsang")
    start = bilsang.initial()
    spread = bilsang.apply(start, bilsang.legal_moves(start)[0])
    for state in (start, spread):
        board = boards.board_data(boards.BoardView(game="bilsang", state=state))
        names = {p["name"] for p in describe.board_points("bilsang", board)}
        assert set(describe.navigation("bilsang", board)) == names


def test_moves_in_words() -> None:
    morris = games.get("morris")
    assert describe.move_words(morris, EN, morris.initial(), "a7") == "placed a piece on a7"
    bashni = games.get("bashni")
    start = bashni.initial()
    assert describe.move_words(bashni, ES, start, "c3-d4") == "movió de c3 a d4"
    bobail = games.get("bobail")
    assert (
        describe.move_words(bobail, EN, bobail.initial(), "c3-c4 a1-a4")
        == "moved the Neutron from c3 to c4, then an electron from a1 to a4"
    )
    bilsang = games.get("bilsang")
    assert (
        describe.move_words(bilsang, EN, bilsang.initial(), "h 4,0+ 0,2-")
        == "moved the buoys 4,0 to 5,0 and 0,2 to -1,2"
    )
    # A removal is one tap: it was read as a pair and the match page failed (a 500).
    blocked = bilsang.parse_position("1 v 0 1 13 0 0,0;0,1;1,2;1,3;2,3;0,4 - line,quiet=300")
    assert describe.move_words(bilsang, EN, blocked, "x 2,3") == "removed the buoy on 2,3"
    assert describe.move_words(bilsang, ES, blocked, "x 2,3") == "retiró la boya de 2,3"


def test_commands_are_words_and_moves_are_everything_else() -> None:
    assert typed_commands.parse_command("s d4") == ("what", "d4")
    assert typed_commands.parse_command("Jugadas") == ("moves", "")
    assert typed_commands.parse_command("d2") is None
    assert typed_commands.parse_command("c3-d4") is None
    assert typed_commands.parse_command("moves now") is None
    assert typed_commands.parse_command("   ") is None


def said(page: str) -> dict[str, str]:
    found = re.search(r'<div class="said" hidden ([^>]*)>', page)
    assert found
    return {k: html.unescape(v) for k, v in re.findall(r'data-(\w+)="([^"]*)"', found.group(1))}


def test_the_live_partial_says_the_last_move_and_the_end(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    play(alice, match_id, "d2")
    words = said(bob.get(f"/matches/{match_id}/live").text)
    assert words["last"] == "White (Alice) played d2: placed a piece on d2."
    assert words["turn"] == "Your move."
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 200
    words = said(bob.get(f"/matches/{match_id}/live").text)
    assert words["end"].startswith("Game over: Black (Bob) wins, ")


def typed(client: TestClient, match_id: str, text: str, **extra: str) -> dict:
    response = client.post(f"/matches/{match_id}/typed", data={"text": text, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def test_typed_commands_and_moves(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = started(alice, bob)
    assert typed(alice, match_id, "D2") == {"move": "d2"}
    assert typed(alice, match_id, "d2-d3") == {
        "answer": "d2-d3 is not a legal move here; type “moves” to hear them."
    }
    assert typed(bob, match_id, "d2") == {"answer": "It is not your move."}
    assert typed(carol, match_id, "d2") == {"answer": "Only a player of this match can move."}
    assert typed(alice, match_id, "d2", ply="7") == {"answer": "The position changed; please look again."}
    play(alice, match_id, "d2")
    assert typed(carol, match_id, "last") == {"answer": "White (Alice) played d2: placed a piece on d2."}
    assert typed(bob, match_id, "t") == {"answer": "Your move (Black (Bob))."}
    assert typed(alice, match_id, "m") == {"answer": "White (Alice): d2."}
    assert typed(alice, match_id, "o") == {"answer": "Black (Bob): none."}
    assert typed(alice, match_id, "s d2") == {"answer": "d2, white piece"}
    assert typed(alice, match_id, "s z9") == {"answer": "There is no point z9 on this board."}
    assert typed(alice, match_id, "moves") == {"answer": "You have no move to make now."}
    assert typed(bob, match_id, "c") == {"answer": "This match has no clocks."}
    bob.cookies.set("lang", "es")
    assert typed(bob, match_id, "turno") == {"answer": "Te toca (Negras (Bob))."}


def test_typed_input_that_is_not_acceptable_is_a_readable_4xx(alice: TestClient) -> None:
    match_id = create(alice)
    too_long = alice.post(f"/matches/{match_id}/typed", data={"text": "x" * 201})
    assert too_long.status_code == 422
    missing = alice.post(f"/matches/{match_id}/typed", data={})
    assert missing.status_code == 422
    nowhere = alice.post("/matches/nope/typed", data={"text": "l"})
    assert nowhere.status_code == 404
    assert "detail" in nowhere.json()
