"""The board as a picture file: the page's own board template, made a standalone SVG.

The board partials are styled by site.css; a downloaded file has no page around
it, so the board rules of site.css (with their colour variables and colour mixes
resolved, for viewers that know neither) go into the file's own ``<style>``. The
PNG is that same SVG rasterised by resvg (``resvg_py``: Rust, no system library;
the labels use the machine's sans-serif font, DejaVu Sans in the Docker image).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import resvg_py

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
#: ``color-mix(in srgb, #4a7bd0 28%, transparent)``: the colour at that opacity.
_MIX = re.compile(r"color-mix\(in srgb,\s*#([0-9a-fA-F]{6})\s+([\d.]+)%,\s*transparent\)")
#: The page's text is sans-serif; a lone file would fall back to a viewer's serif.
_TEXT_RULE = ".board text {font-family: system-ui, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif;}"


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
    text = _MIX.sub(_rgba, text)
    # A value the page sets elsewhere (a layout size, say) means nothing in a lone file.
    return re.sub(r"[\w-]+\s*:[^;{}]*var\(--[^;{}]*;?", "", text)


def _rgba(mix: re.Match[str]) -> str:
    red, green, blue = (int(mix.group(1)[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({red}, {green}, {blue}, {float(mix.group(2)) / 100:g})"


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
    style = f"<style>\n{board_css()}\n{_TEXT_RULE}\n.board .hit {{ fill: none; }}\n</style>"
    svg = svg.replace(">", ">" + style, 1)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n"


@lru_cache(maxsize=64)
def board_png(svg: str) -> bytes:
    """The SVG ``board_svg`` made, as a PNG of the same size (480 pixels wide).

    resvg holds the GIL while it draws (tens of milliseconds), so the same picture asked
    again (a shared link) is answered from this small cache (about 25 KB each), and the
    route is rate-limited like a create (app/security.py).
    """
    return bytes(resvg_py.svg_to_bytes(svg_string=svg))
