"""The rules pages' figures: small boards drawn by the pages' own board templates, each a
position and a move it allows or forbids, with the move drawn on it.

Every figure is data: the moves that lead from the game's start to the position shown
(played by the engine, so the position is one the game can reach) and the move, which
the engine must accept (``allowed``) or refuse (``forbidden``); tests/app/test_rule_figures.py
holds every figure to that. The drawing is the board template's SVG with arrows, dots and
crosses added on the move's points, named by ``boards.move_steps`` (a forbidden move,
which the engine cannot parse, names its slides itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from markupsafe import Markup, escape

import games
from app import boards
from app.texts import N_
from app.web import templates


@dataclass(frozen=True)
class Figure:
    key: str
    game: str
    before: tuple[str, ...]  # the moves from the start (with the game's new-match options)
    move: str
    allowed: bool
    caption: str  # a msgid
    #: A forbidden move's slides, (from, to) pairs: the engine cannot name them for it.
    slides: tuple[tuple[str, str], ...] = ()


FIGURES: dict[str, Figure] = {
    f.key: f
    for f in (
        Figure("bashni-step", "bashni", (), "c3-d4", True, N_("A man steps one square diagonally forward.")),
        Figure(
            "bashni-capture",
            "bashni",
            ("c3-d4", "f6-g5", "d4-e5"),
            "d6:f4",
            True,
            N_("Black jumps the white man on e5 and takes it, making a column; a capture must be made."),
        ),
        Figure(
            "bashni-must-capture",
            "bashni",
            ("c3-d4", "f6-g5", "d4-e5"),
            "b6-a5",
            False,
            N_("Not allowed: a quiet move while a capture is possible."),
            slides=(("b6", "a5"),),
        ),
        Figure(
            "morris-place",
            "morris",
            (),
            "d2",
            True,
            N_("While pieces are in hand, a turn places one on any empty point."),
        ),
        Figure(
            "morris-mill",
            "morris",
            ("a1", "b2", "d1", "b4"),
            "g1xb2",
            True,
            N_("White closes the mill a1–d1–g1 and removes a black piece (b2)."),
        ),
        Figure(
            "bobail-turn",
            "bobail",
            (),
            "c3-c4 a1-a4",
            True,
            N_("A turn: the Neutron moves first, then one of your pieces slides as far as it can."),
        ),
        Figure(
            "bobail-short",
            "bobail",
            (),
            "c3-c4 a1-a3",
            False,
            N_("Not allowed: a piece may not stop before the end of its slide."),
            slides=(("c3", "c4"), ("a1", "a3")),
        ),
        Figure(
            "bilsang-pair",
            "bilsang",
            (),
            "h 4,1+ 0,1-",
            True,
            N_("A pair move: two buoys move one cell along the axis, in opposite senses."),
        ),
        Figure(
            "bilsang-forbidden",
            "bilsang",
            ("h 4,1+ 0,1-",),
            "v 5,1+ -1,1-",
            False,
            N_("Not allowed: the two buoys just moved (marked ✕) may not move together again."),
            slides=(("5,1", "5,2"), ("-1,1", "-1,0")),
        ),
        Figure(
            "bilsang-switch",
            "bilsang",
            ("h 4,1+ 0,1-",),
            "h 4,2+ 0,2-",
            True,
            N_("A switch: a pair move along the other axis; the opponent is then penalised."),
        ),
        Figure(
            "bilsang-penalty",
            "bilsang",
            ("h 4,1+ 0,1-", "h 4,2+ 0,2-"),
            "v 0,0-",
            True,
            N_("Penalised: this turn only one buoy moves, along the axis still owed."),
        ),
    )
}

_SVG_END = re.compile(r"</svg>\s*$")


def _start(game: games.Game) -> Any:  # type: ignore[type-arg]
    return game.initial(**game.new_match_options)


def position_of(figure: Figure) -> Any:
    game = games.get(figure.game)
    state = _start(game)
    for text in figure.before:
        state = game.play(state, text)
    return state


def _marks(figure: Figure, state: Any) -> list[tuple[str, ...]]:
    """("arrow", a, b), ("dot", p) and ("cross", p) on the board's points."""
    game = games.get(figure.game)
    if not figure.allowed:
        marks: list[tuple[str, ...]] = [("arrow", a, b) for a, b in figure.slides]
        return [*marks, ("cross", figure.slides[-1][1])]
    move = game.parse_move(state, figure.move)
    if figure.game == "morris":
        points = game.clicks(move)
        if move.origin is not None:
            marks = [("arrow", points[0], points[1])]
            rest = points[2:]
        else:
            marks = [("dot", points[0])]
            rest = points[1:]
        return marks + [("cross", p) for p in rest]
    return [("arrow", a, b) for a, b in boards.move_steps(game, state, figure.move)]


def _centres(game_name: str, board: dict[str, Any]) -> dict[str, tuple[float, float]]:
    if game_name == "morris":
        return {p["name"]: (p["x"], p["y"]) for p in board["points"]}
    cells = board.get("squares") or board.get("grid") or []
    return {c["name"]: (c["x"] + 0.5, c["y"] + 0.5) for c in cells}


def _drawing(kind: str, marks: list[tuple[str, ...]], centres: dict[str, tuple[float, float]]) -> str:
    parts = [f'<g class="figure-marks {kind}" aria-hidden="true">']
    for mark in marks:
        if mark[0] == "arrow":
            (x1, y1), (x2, y2) = centres[mark[1]], centres[mark[2]]
            length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
            # Stop short of the target's centre, so the head does not hide what is there.
            ex, ey = x2 - (x2 - x1) / length * 0.22, y2 - (y2 - y1) / length * 0.22
            parts.append(
                f'<line x1="{x1:g}" y1="{y1:g}" x2="{ex:.3f}" y2="{ey:.3f}" marker-end="url(#head-{kind})"/>'
            )
        elif mark[0] == "dot":
            x, y = centres[mark[1]]
            parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="0.3" class="dot"/>')
        else:
            x, y = centres[mark[1]]
            d = 0.25
            path = f"M{x - d:g} {y - d:g} L{x + d:g} {y + d:g} M{x + d:g} {y - d:g} L{x - d:g} {y + d:g}"
            parts.append(f'<path d="{path}" class="x"/>')
    parts.append("</g>")
    return "".join(parts)


MARKERS = (
    '<defs><marker id="head-allowed" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" '
    'orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="head allowed"/></marker>'
    '<marker id="head-forbidden" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" '
    'orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="head forbidden"/></marker></defs>'
)


@cache
def _svg(key: str) -> str:
    """The figure's board with its marks, one language-free SVG (cached: the data is fixed)."""
    figure = FIGURES[key]
    game = games.get(figure.game)
    state = position_of(figure)
    view = boards.BoardView(
        game=figure.game,
        state=state,
        targets=frozenset(),
        chosen=(),
        last=(),
        position_text=game.format_position(state),
        extra={},
    )
    board = boards.board_data(view)
    html = templates.get_template(f"boards/{figure.game}.html").render(
        view=view, board=board, match=None, _=lambda s: s
    )
    svg = html[html.index("<svg") : html.rindex("</svg>") + len("</svg>")]
    # A picture, not a board to play on: one image role, no ids that would repeat on the page.
    svg = re.sub(
        r' (role|aria-label|aria-describedby|data-nav|data-said-[a-z]+|id|data-label)="[^"]*"', "", svg
    )
    svg = re.sub(r" data-nav='[^']*'", "", svg)
    kind = "allowed" if figure.allowed else "forbidden"
    drawing = MARKERS.replace('id="head-', f'id="{key}-head-') + _drawing(
        kind, _marks(figure, state), _centres(figure.game, board)
    ).replace("url(#head-", f"url(#{key}-head-")
    return _SVG_END.sub(drawing + "</svg>", svg)


def figure_html(key: str, gettext: Any) -> Markup:
    """The figure as the rules page shows it: the board and its caption, in the reader's language."""
    figure = FIGURES[key]
    caption = escape(gettext(figure.caption))
    kind = "allowed" if figure.allowed else "forbidden"
    svg = _svg(key).replace("<svg ", f'<svg role="img" aria-labelledby="fig-{key}" ', 1)
    return Markup(
        f'<figure class="rule-figure {kind}" data-figure="{key}">{svg}'
        f'<figcaption id="fig-{key}">{caption}</figcaption></figure>'
    )
