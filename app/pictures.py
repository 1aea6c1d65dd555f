"""The board as a picture file: the page's own board template, made a standalone SVG.

The board partials are styled by site.css; a downloaded file has no page around
it, so the board rules of site.css (with their colour variables resolved, for
viewers that know no CSS variables) go into the file's own ``<style>``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import games
from app import boards
from app.config import ROOT
from app.web import templates

_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_VAR = re.compile(r"var\((--[a-z0-9-]+)\)")
#: Rules for the board itself (`.board …`), not for what merely starts so (`.board-wrap`).
_BOARD = re.compile(r"\.board(?![\w-])")
_SVG = re.compile(r"<svg\b.*?</svg>", re.S)
_VIEWBOX = re.compile(r'viewBox="([-\d. ]+)"')


def view_at(
    game_name: str,
    positions: tuple[str, ...],
    moves: tuple[str, ...],
    ply: int,
    **extra: Any,
) -> boards.BoardView:
    """The board after ``ply`` plies, the last move marked."""
    game = games.get(game_name)
    state = game.parse_position(positions[ply])
    before = game.parse_position(positions[ply - 1]) if ply > 0 else None
    last = boards.last_move_points(game, before, moves[ply - 1] if ply > 0 else None)
    return boards.BoardView(game=game_name, state=state, last=last, position_text=positions[ply], **extra)


@lru_cache(maxsize=1)
def board_css() -> str:
    css = (ROOT / "static" / "site.css").read_text(encoding="utf-8")
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    variables: dict[str, str] = {}
    rules = []
    for selector, body in _RULE.findall(css):
        selector = selector.strip()
        if selector == ":root":
            for name, value in re.findall(r"(--[a-z0-9-]+)\s*:\s*([^;]+)", body):
                variables[name] = value.strip()
        elif _BOARD.match(selector) and ":hover" not in selector and ":focus" not in selector:
            rules.append(f"{selector} {{{body.strip()}}}")
    text = _VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), "\n".join(rules))
    # A value the page sets elsewhere (a layout size, say) means nothing in a lone file.
    return re.sub(r"[\w-]+\s*:[^;{}]*var\(--[^;{}]*;?", "", text)


def board_svg(view: boards.BoardView, gettext: Any) -> str:
    """A standalone SVG document of the board ``view`` shows."""
    template = templates.get_template(f"boards/{view.game}.html")
    html = template.render(view=view, board=boards.board_data(view), match=None, _=gettext)
    found = _SVG.search(html)
    assert found is not None, "every board template draws one <svg>"
    svg = found.group(0)
    width, height = 480, 480
    box = _VIEWBOX.search(svg)
    if box is not None:
        _x, _y, w, h = (float(v) for v in box.group(1).split())
        height = round(width * h / w)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{width}" height="{height}"'
    )
    svg = svg.replace("<svg", head, 1)
    # SVG 1.1 viewers know only xlink:href on <use>.
    svg = re.sub(r'<use href="', '<use xlink:href="', svg)
    style = f"<style>\n{board_css()}\n.board .hit {{ fill: none; }}\n</style>"
    svg = svg.replace(">", ">" + style, 1)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n"
