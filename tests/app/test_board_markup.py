"""The board templates' per-point attributes (app/board_markup.py), which were Jinja
macros: the same text, and every value from outside escaped for an attribute."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from markupsafe import Markup

from app.board_markup import board_a11y, morris_points, point_a11y, point_class, tap_attrs
from app.boards import BoardView


def view(**fields: object) -> SimpleNamespace:
    base: dict[str, object] = {"targets": frozenset(), "chosen": (), "last": (), "extra": {}}
    return SimpleNamespace(**{**base, **fields})


def test_a_point_out_of_reach_has_no_tap_attributes_and_one_in_reach_is_focusable() -> None:
    assert tap_attrs(None, view(targets={"a1"}), "b2") == ""
    assert tap_attrs(None, view(targets={"a1"}), "a1") == 'tabindex="0"'


def test_the_analysis_boards_tap_asks_for_the_board_after_the_taps_escaped() -> None:
    shown = view(targets={"c3"}, chosen=("a1", "b2"), extra={"tap_url": '/analysis/x"><script>/board'})
    html = tap_attrs(None, shown, "c3")
    assert isinstance(html, Markup)
    assert html == (
        'tabindex="0" hx-get="/analysis/x&#34;&gt;&lt;script&gt;/board" hx-target="#analysis-board" '
        'hx-swap="outerHTML" hx-include="#variation-state" hx-vals=\'{"taps": "a1 b2 c3"}\''
    )


def test_a_points_classes_say_its_state_in_order() -> None:
    shown = view(targets={"a1"}, chosen=("a1",), last=("a1",), extra={"hint": ("a1",)})
    assert point_class(shown, "a1") == " target chosen last hint"
    assert point_class(view(last=("b2",)), "b2") == " last"
    assert point_class(view(), "b2") == ""


def test_a_points_words_are_escaped_and_its_role_follows_whether_it_can_be_acted_on() -> None:
    labels = {"a1": 'a1, "white" <man> & co\'s'}
    html = point_a11y("a1", labels, actionable={"next": {}})
    assert html == (
        'id="pt-a1" role="button" aria-label="a1, &#34;white&#34; &lt;man&gt; &amp; co&#39;s" '
        'data-label="a1, &#34;white&#34; &lt;man&gt; &amp; co&#39;s"'
    )
    assert point_a11y("b2", None, actionable=None) == 'id="pt-b2" role="img" aria-label="b2" data-label="b2"'


def test_the_boards_keyboard_map_is_json_safe_inside_single_quotes() -> None:
    html = board_a11y({"b'1": ["<a>", None]}, lambda words: {"selected": 'chosen "now"'}.get(words, words))
    assert html == (
        'role="group" aria-describedby="board-help" '
        'data-nav=\'{"b\\u00271": ["\\u003ca\\u003e", null]}\' data-said-target="can be tapped" '
        'data-said-chosen="chosen &#34;now&#34;" data-said-last="last move"'
    )


# The board templates as they were when their loops were Jinja's (issue 28), kept beside
# this file as the statement of what the functions that replaced them must write.
OLD_BOARDS = Path(__file__).parent / "old_boards"
GAMES = ("morris", "bashni", "bobail", "bilsang")


def positions(game_name: str, seeds: range = range(5, 9)) -> list[object]:
    """Positions of seeded random games (tests/fuzz/strategies.playout), each to its end or
    200 plies: Morris's placing, moving and flying, Bashni's columns and kings, Bilsang's
    drifting sea."""
    import games
    from tests.fuzz.strategies import playout

    game = games.get(game_name)
    return [game.parse_position(text) for seed in seeds for text in playout(game_name, seed, 200)[0]]


def views(game_name: str, state: object, index: int) -> list[tuple[BoardView, str, object]]:
    """Three kinds of view of ``state`` (a spectator's; the mover's, with taps made;
    the analysis board's, with a hint), each with its click tree and words."""
    from app import boards

    board = boards.board_data(boards.BoardView(game=game_name, state=state))
    names = [cell["name"] for cell in board.get("points") or board.get("squares") or board["grid"]]
    some = names[index % len(names)], names[(index * 7 + 3) % len(names)]
    flipped = index % 2 == 1
    ended = index % 5 == 0
    return [
        (
            boards.BoardView(game=game_name, state=state, flipped=flipped, position_text="p", ended=ended),
            "",
            None,
        ),
        (
            boards.BoardView(
                game=game_name,
                state=state,
                targets=frozenset(some),
                chosen=some[:1],
                last=some[1:],
                flipped=flipped,
                position_text='<p"s>',
            ),
            '{"a":{}}',
            {some[0]: f'{some[0]}, <empty> & "x"'},
        ),
        (
            boards.BoardView(
                game=game_name,
                state=state,
                targets=frozenset(some[1:]),
                extra={"tap_url": "/analysis/1/board", "hint": some[1:]},
                flipped=not flipped,
            ),
            '{"b":{}}',
            {},
        ),
    ]


def board_context(shown: BoardView, tree: str, labels: object, to_move: str) -> dict[str, object]:
    """What a board template reads, for a view of ``views``."""
    from app import boards

    return {
        "view": shown,
        "board": boards.board_data(shown),
        "click_tree": tree,
        "point_labels": labels,
        "match": None,
        "to_move": to_move,
        "last_steps": "[]",
        "board_nav": {"a": ["b"]},
        "_": lambda words: f"«{words}»",
    }


def test_each_board_is_written_as_its_jinja_template_wrote_it() -> None:
    from app.web import templates

    compared = 0
    for game_name in GAMES:
        old = templates.env.from_string((OLD_BOARDS / f"{game_name}.html").read_text())
        now = templates.get_template(f"boards/{game_name}.html")
        for index, state in enumerate(positions(game_name)):
            for shown, tree, labels in views(game_name, state, index):
                context = board_context(shown, tree, labels, ("w", "b", '"<x>')[index % 3])
                assert now.render(context) == old.render(context), (game_name, index)
                compared += 1
    assert compared > 1000


def test_a_stone_is_drawn_on_its_point_and_a_ghost_only_where_the_mover_may_tap() -> None:
    from app import boards

    state = positions("morris")[9]
    board = boards.board_data(boards.BoardView(game="morris", state=state))
    stones = {p["name"]: p["piece"] for p in board["points"] if p["piece"]}
    html = morris_points(board["points"], view(), None, "", None, "w")
    assert html.count('class="piece side-') == len(stones) > 0
    assert "ghost" not in html
    with_tree = morris_points(board["points"], view(), None, '{"a1":{}}', None, "<b>")
    assert with_tree.count('class="ghost side-&lt;b&gt;"') == 24 - len(stones)
    assert html.count('<g class="point') == 24
