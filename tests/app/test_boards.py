"""Board partials render what the position holds: columns, kings, far-flung buoys."""

from __future__ import annotations

import re
from types import SimpleNamespace

import games
from app import boards
from app.i18n import translations
from app.web import templates


def render(
    game_name: str, position: str, targets: frozenset[str] = frozenset(), flipped: bool = False
) -> str:
    game = games.get(game_name)
    state = game.parse_position(position)
    view = boards.BoardView(
        game=game_name, state=state, targets=targets, flipped=flipped, position_text=position
    )
    template = templates.env.get_template(f"boards/{game_name}.html")
    return template.render(
        match=SimpleNamespace(id="m1", ply=0),
        view=view,
        board=boards.board_data(view),
        _=translations("en").gettext,
    )


def columns(svg: str) -> dict[str, str]:
    return dict(re.findall(r'data-point="([a-h][1-8])" data-column="([wWbB]*)"', svg))


TALL = "w a1:bbwbwW,c3:wwwwwwwb,e5:bBbwB,h8:B,d2:w 40 3"


def test_bashni_tall_columns_show_top_height_and_the_whole_stack() -> None:
    svg = render("bashni", TALL)
    assert columns(svg)["a1"] == "bbwbwW"
    assert columns(svg)["c3"] == "wwwwwwwb"
    # Height labels for the columns taller than one piece, none for single pieces.
    heights = sorted(re.findall(r'class="height">(\d+)<', svg))
    assert heights == ["5", "6", "8"]
    # The tooltip gives the stack bottom to top, and the list under the board too.
    assert "<title>a1: bbwbwW (bottom to top)</title>" in svg
    assert re.search(r"<code>c3</code>: (<span[^>]*>[wb]</span>){8}", svg)
    # Bands below the top piece: at most five are drawn for an eight-high column.
    c3 = svg.split('data-point="c3"')[1].split("</g>")[0]
    assert c3.count("piece layer") == 5 and c3.count("piece top side-b") == 1


def test_bashni_kings_wear_crowns_also_when_buried() -> None:
    svg = render("bashni", TALL)
    crowned = set(re.findall(r'data-point="([a-h][1-8])"[^>]*>(?:(?!</g>).)*href="#crown"', svg, re.S))
    assert crowned == {"a1", "e5", "h8"}  # tops W, B, B; c3's top is a man
    # The buried black king in e5 (bBbwB: a king at the bottom too) is listed as a king.
    e5_chips = svg.split("<code>e5</code>")[1].split("</li>")[0]
    assert e5_chips.count("king") == 2


def test_bashni_board_turns_for_black() -> None:
    plain = render("bashni", TALL)
    turned = render("bashni", TALL, flipped=True)
    a1 = r'data-point="a1"[^>]*>\s*<rect x="(\d+)" y="(\d+)"'
    assert re.search(a1, plain).groups() == ("0", "7")
    assert re.search(a1, turned).groups() == ("7", "0")


def test_targets_are_tappable_and_nothing_else() -> None:
    svg = render("bashni", TALL, targets=frozenset({"d2"}))
    assert re.findall(r'data-point="([a-h][1-8])"[^>]*tabindex="0"', svg) == ["d2"]
    # A point posts nothing itself: play.js walks the click tree and posts the whole move.
    assert "hx-post" not in svg


def test_bilsang_negative_and_spread_out_universes_fit_the_view() -> None:
    cells = "-7,-3;-6,-3;-5,-2;-4,-1;-3,0;-2,1;-1,2;0,3;1,4;2,5;3,6;12,6;" + ";".join(
        f"{x},7" for x in range(4, 12)
    )
    position = f"2 v 1 0 0 17 {cells} 4,7;5,7"
    game = games.get("bilsang")
    state = game.parse_position(position)
    svg = render("bilsang", position)
    view = boards.bilsang_view(state)
    # Every buoy is drawn, inside a frame with a margin of one cell all round.
    drawn = set(
        re.findall(
            r'data-point="(-?\d+,-?\d+)"[^>]*>\s*<rect[^>]*/>\s*'
            r'(?:<circle[^>]*origin[^>]*/>\s*)?<circle[^>]*class="piece buoy"',
            svg,
        )
    )
    assert drawn == {f"{x},{y}" for x, y in state.cells}
    assert view["columns"][0] == -8 and view["columns"][-1] == 13
    assert view["rows"][0] == 8 and view["rows"][-1] == -4
    assert 'viewBox="-0.7 -0.1 22.8 13.75"' in svg
    # The forbidden pair is crossed out.
    assert svg.count('class="cross"') == 2


def test_bilsang_view_grows_to_include_targets_and_keeps_a_minimum_size() -> None:
    game = games.get("bilsang")
    single = game.parse_position("1 h 0 9 10 0 5,5 -")
    view = boards.bilsang_view(single)
    assert view["width"] >= 7 and view["height"] >= 5
    assert any(c["name"] == "5,5" and c["buoy"] for c in view["grid"])
    wider = boards.bilsang_view(single, frozenset({"20,5"}))
    assert wider["columns"][-1] == 21


def test_bobail_marks_home_rows_and_previews_the_neutron_move() -> None:
    start = "w bbbbb.......n.......wwwww"
    svg = render("bobail", start)
    assert svg.count("home home-b") == 5 and svg.count("home home-w") == 5
    state = games.get("bobail").parse_position(start)
    view = boards.BoardView(game="bobail", state=state, chosen=("c3", "c2"))
    squares = {sq["name"]: sq["piece"] for sq in boards.board_data(view)["squares"]}
    assert squares["c2"] == "n" and squares["c3"] is None
