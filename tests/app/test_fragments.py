"""The move list's rows written in Python (app/fragments.py): the same text the template's
loop wrote, a link a move to the position after it, the shown one marked."""

from __future__ import annotations

from markupsafe import Markup

from app.boards import move_rows
from app.fragments import move_items
from games import get


def test_each_move_links_to_the_position_after_it_and_the_shown_one_is_current() -> None:
    rows = move_rows(get("morris"), ["d1", "a1", "g7"])
    html = move_items(rows, "m1", shown_ply=2)
    assert isinstance(html, Markup)
    assert html == (
        '<li><span class="num">1.</span>'
        '<a href="/matches/m1?at=1" data-at="1" class="mv">d1</a>'
        '<a href="/matches/m1?at=2" data-at="2" class="mv current">a1</a></li>\n    '
        '<li><span class="num">2.</span><a href="/matches/m1?at=3" data-at="3" class="mv">g7</a></li>\n    '
    )


def test_bilsang_has_a_row_per_ply_and_every_text_is_escaped() -> None:
    rows = move_rows(get("bilsang"), ["<b>", "1,2&3"])
    html = move_items(rows, 'x"y', shown_ply=0)
    assert html.count("<li>") == 2
    assert '<a href="/matches/x&#34;y?at=1" data-at="1" class="mv">&lt;b&gt;</a>' in html
    assert ">1,2&amp;3</a>" in html
