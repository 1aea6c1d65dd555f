"""The boards' markup written in Python: each point's attributes, each point, and the
unchanging frame (lines, squares, coordinates) of each game's board.

The attributes were Jinja macros (``boards/macros.html``, ``partials/a11y_point.html``),
called three times for each point, and a macro call costs Jinja a new context and a
capture: as functions, a Morris view rendered in 0.97 ms instead of 1.21 (issue 28). The
points and frames were Jinja loops, which escape every number they write, some 400 for a
Morris board in each view: the board was half of a view's render. Here a frame is written
once per process (and per side or extent), each point's unchanging part once, and only
what the position and the viewer change is written per view (docs/benchmarks.md).

The same text as the templates wrote, escaped the same way (f-strings and ``escape``;
``Markup.format`` would run Python's pure-Python formatter, 40 µs a call):
tests/app/test_board_markup.py renders the old templates beside these on the positions of
seeded games of each game.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup, escape

#: What Jinja's ``tojson`` filter writes: keys sorted, <, >, & and ' escaped for HTML.
_JSON_ARGS = {"sort_keys": True}


def _extra(view: Any, key: str, default: Any = None) -> Any:
    # ``view.extra.tap_url`` in a template: the dict's item, or nothing.
    return view.extra.get(key, default)


def tap_attrs(match: Any, view: Any, point: str) -> Markup:
    """A tappable point's attributes: in reach of the keyboard; on the analysis board it
    asks the server for the board after the taps (static/play.js walks the click tree
    everywhere else and posts the whole move)."""
    if point not in view.targets:
        return Markup("")
    tap_url = _extra(view, "tap_url")
    if not tap_url:
        return Markup('tabindex="0"')
    taps = escape(" ".join((*view.chosen, point)))
    return Markup(
        f'tabindex="0" hx-get="{escape(tap_url)}" hx-target="#analysis-board" hx-swap="outerHTML" '
        f'hx-include="#variation-state" hx-vals=\'{{"taps": "{taps}"}}\''
    )


def point_class(view: Any, point: str) -> str:
    """The point's state as class names, each with its leading space."""
    return (
        (" target" if point in view.targets else "")
        + (" chosen" if point in view.chosen else "")
        + (" last" if point in view.last else "")
        + (" hint" if point in _extra(view, "hint", ()) else "")
    )


def point_a11y(point: str, labels: Mapping[str, str] | None, actionable: Any) -> Markup:
    """What a screen reader hears for one point, and the handle the keyboard cursor uses
    (static/a11y.js). The words come from app/services/describe.py."""
    label = escape((labels or {}).get(point, point))
    role = "button" if actionable else "img"
    return Markup(f'id="pt-{escape(point)}" role="{role}" aria-label="{label}" data-label="{label}"')


def board_a11y(nav: Any, gettext: Callable[[str], str]) -> Markup:
    """The board's own attributes: its map for the arrow keys and the words for a point's state."""
    data_nav = htmlsafe_json_dumps(nav or {}, dumps=json.dumps, **_JSON_ARGS)
    target, chosen, last = (escape(gettext(words)) for words in ("can be tapped", "selected", "last move"))
    return Markup(
        f'role="group" aria-describedby="board-help" data-nav=\'{data_nav}\' data-said-target="{target}" '
        f'data-said-chosen="{chosen}" data-said-last="{last}"'
    )


@functools.cache
def _morris_frame(lines: tuple[tuple[int, int, int, int], ...]) -> Markup:
    """The Morris board's lines and coordinates: the same in every view."""
    drawn = "".join(
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" class="line"/>' for x1, y1, x2, y2 in lines
    )
    files = "".join(f'<text x="{i}" y="6.62" class="coord">{f}</text>' for i, f in enumerate("abcdefg"))
    ranks = "".join(f'<text x="-0.68" y="{6 - r}" class="coord">{r + 1}</text>' for r in range(7))
    return Markup(f"{drawn}\n  {files}\n  {ranks}")


def morris_frame(lines: Iterable[tuple[int, int, int, int]]) -> Markup:
    return _morris_frame(tuple(tuple(line) for line in lines))


@functools.cache
def _morris_spot(name: str, x: int, y: int) -> tuple[str, str]:
    """What a Morris point draws whatever the position: its opening tag's end and its two
    circles; and where a stone or a ghost goes, as a format with its class to fill in."""
    at = f'cx="{x}" cy="{y}"'
    head = (
        f'data-x="{x}" data-y="{y}">\n    <circle {at} r="0.42" class="hit"/>\n'
        f'    <circle {at} r="0.12" class="spot"/>\n    '
    )
    return head, f'<circle {at} r="0.33" class="{{}}"/>'


def morris_points(
    points: Iterable[Mapping[str, Any]],
    view: Any,
    labels: Mapping[str, str] | None,
    click_tree: Any,
    match: Any,
    to_move: Any,
) -> Markup:
    """Every point of a Morris board: the board's largest part, written here rather than
    in a Jinja loop, whose ~400 escapes of numbers that never change were a third of a
    match view's render (issue 28). The same text as that loop wrote."""
    ghost = f"ghost side-{escape(to_move)}" if click_tree else ""
    out = []
    for p in points:
        name = p["name"]
        head, stone = _morris_spot(name, p["x"], p["y"])
        piece = p["piece"]
        drawn = (
            stone.format(f"piece side-{escape(piece)}") if piece else (stone.format(ghost) if ghost else "")
        )
        out.append(f"{_point_open(view, name, labels, click_tree, match)}{head}{drawn}\n  </g>\n  ")
    return Markup("".join(out))


def _point_open(
    view: Any,
    name: str,
    labels: Mapping[str, str] | None,
    click_tree: Any,
    match: Any,
    classes: str = "",
    more: str = "",
) -> str:
    """A point's ``<g>`` up to its position: what the view says of it, and a game's own
    ``classes`` after the view's and attributes (``more``) after ``data-point``."""
    return (
        f'\n  <g class="point{point_class(view, name)}{classes}" data-point="{escape(name)}"{more} '
        f"{point_a11y(name, labels, click_tree)} {tap_attrs(match, view, name)} "
    )


@functools.cache
def _bobail_frame(squares: tuple[tuple[int, int, str | None], ...], flipped: bool) -> Markup:
    """The Bobail board's squares and coordinates: the same in every view from one side."""
    rects = "".join(
        f'\n    <rect x="{x}" y="{y}" width="1" height="1" class="sq{f" home home-{home}" if home else ""}"/>'
        "\n  "
        for x, y, home in squares
    )
    coords = "".join(
        f'\n    <text x="{i + 0.5}" y="5.3" class="coord">{"abcde"[4 - i if flipped else i]}</text>'
        f'\n    <text x="-0.22" y="{i + 0.5}" class="coord">{(i + 1) if flipped else (5 - i)}</text>\n  '
        for i in range(5)
    )
    return Markup(f"{rects}\n  {coords}")


def bobail_frame(squares: Iterable[Mapping[str, Any]], flipped: bool) -> Markup:
    return _bobail_frame(tuple((sq["x"], sq["y"], sq["home"]) for sq in squares), bool(flipped))


@functools.cache
def _bobail_spot(x: int, y: int) -> tuple[str, str, str]:
    """A Bobail square's end of tag and hit area; the Neutron drawn on it; a stone, as a
    format with its side to fill in."""
    head = (
        f'data-x="{x}" data-y="{y}">\n    <rect x="{x + 0.04}" y="{y + 0.04}" width="0.92" height="0.92" '
        f'rx="0.12" class="hit"/>\n    '
    )
    at = f'cx="{x + 0.5}" cy="{y + 0.5}"'
    neutron = (
        f'\n      <circle {at} r="0.3" class="piece neutron"/>'
        f'\n      <circle {at} r="0.12" class="neutron-core"/>\n    '
    )
    return head, neutron, f'\n      <circle {at} r="0.34" class="piece side-{{}}"/>\n    '


def bobail_points(
    squares: Iterable[Mapping[str, Any]],
    view: Any,
    labels: Mapping[str, str] | None,
    click_tree: Any,
    match: Any,
) -> Markup:
    """Every square of a Bobail board, as the Jinja loop wrote them (see ``morris_points``)."""
    out = []
    for sq in squares:
        head, neutron, stone = _bobail_spot(sq["x"], sq["y"])
        piece = sq["piece"]
        drawn = neutron if piece == "n" else stone.format(escape(piece)) if piece else ""
        out.append(f"{_point_open(view, sq['name'], labels, click_tree, match)}{head}{drawn}\n  </g>\n  ")
    return Markup("".join(out))


@functools.cache
def _bashni_frame(flipped: bool) -> Markup:
    """The Bashni board's 64 squares and its coordinates."""
    rects = "".join(
        f'\n    <rect x="{col}" y="{row}" width="1" height="1" '
        f'class="sq {"dark" if (col + row) % 2 else "light"}"/>\n  '
        for row in range(8)
        for col in range(8)
    )
    coords = "".join(
        f'\n    <text x="{i + 0.5}" y="8.3" class="coord">{"abcdefgh"[7 - i if flipped else i]}</text>'
        f'\n    <text x="-0.22" y="{i + 0.5}" class="coord">{(i + 1) if flipped else (8 - i)}</text>\n  '
        for i in range(8)
    )
    return Markup(f"{rects}\n  {coords}")


def bashni_frame(flipped: bool) -> Markup:
    return _bashni_frame(bool(flipped))


def _bashni_column(sq: Mapping[str, Any], gettext: Callable[[str], str]) -> str:
    """A column drawn as its top piece with a band for each piece right under it, its
    height when over one, and the whole column in its tooltip."""
    x, y, column, top = sq["x"], sq["y"], sq["column"], sq["top"]
    cx, cy = x + 0.5, y + 0.46
    under = sq["under"][::-1]
    bands = "".join(
        f'\n      <ellipse cx="{cx}" cy="{cy + 0.08 * (len(under) - i)}" rx="0.36" ry="0.2" '
        f'class="piece layer side-{escape(piece.lower())}"/>\n    '
        for i, piece in enumerate(under)
    )
    crown = (
        f'<use href="#crown" x="{cx - 0.17}" y="{cy - 0.14}" width="0.34" height="0.27" class="crown"/>'
        if top in "WB"
        else ""
    )
    height = (
        f'<text x="{x + 0.86}" y="{y + 0.17}" class="height">{len(column)}</text>' if len(column) > 1 else ""
    )
    return (
        f"\n    <title>{escape(sq['name'])}: {escape(column)} ({escape(gettext('bottom to top'))})"
        f"</title>\n    \n    {bands}\n    "
        f'<ellipse cx="{cx}" cy="{cy}" rx="0.36" ry="0.2" class="piece top side-{escape(top.lower())}"/>'
        f"\n    {crown}\n    {height}\n    "
    )


def bashni_points(
    squares: Iterable[Mapping[str, Any]],
    view: Any,
    labels: Mapping[str, str] | None,
    click_tree: Any,
    match: Any,
    gettext: Callable[[str], str],
) -> Markup:
    """Every dark square of a Bashni board, as the Jinja loop wrote them (see ``morris_points``)."""
    out = []
    for sq in squares:
        x, y, column = sq["x"], sq["y"], sq["column"]
        opened = _point_open(
            view, sq["name"], labels, click_tree, match, more=f' data-column="{escape(column)}"'
        )
        drawn = _bashni_column(sq, gettext) if column else ""
        out.append(
            f'{opened}data-x="{x}" data-y="{y}">\n    '
            f'<rect x="{x}" y="{y}" width="1" height="1" class="hit"/>\n    {drawn}\n  </g>\n  '
        )
    return Markup("".join(out))


@functools.cache
def _bilsang_frame(width: int, height: int, columns: tuple[int, ...], rows: tuple[int, ...]) -> Markup:
    """The sea in its frame: its grid and the coordinates of its columns and rows."""
    sea = f'<rect x="0" y="0" width="{width}" height="{height}" class="sea"/>'
    across = "".join(f'<line x1="{i}" y1="0" x2="{i}" y2="{height}" class="grid"/>' for i in range(width + 1))
    down = "".join(f'<line x1="0" y1="{i}" x2="{width}" y2="{i}" class="grid"/>' for i in range(height + 1))
    xs = "".join(
        f'<text x="{i + 0.5}" y="{height + 0.4}" class="coord">{escape(x)}</text>'
        for i, x in enumerate(columns)
    )
    ys = "".join(
        f'<text x="-0.35" y="{i + 0.5}" class="coord">{escape(y)}</text>' for i, y in enumerate(rows)
    )
    return Markup(f"{sea}\n  {across}\n  {down}\n  {xs}\n  {ys}")


def bilsang_frame(board: Mapping[str, Any]) -> Markup:
    return _bilsang_frame(board["width"], board["height"], tuple(board["columns"]), tuple(board["rows"]))


def bilsang_points(
    grid: Iterable[Mapping[str, Any]],
    view: Any,
    labels: Mapping[str, str] | None,
    click_tree: Any,
    match: Any,
) -> Markup:
    """Every cell of the Bilsang sea in its frame, as the Jinja loop wrote them (see
    ``morris_points``)."""
    out = []
    for c in grid:
        x, y, forbidden = c["x"], c["y"], c["forbidden"]
        opened = _point_open(view, c["name"], labels, click_tree, match, " forbidden" if forbidden else "")
        origin = f'<circle cx="{x + 0.5}" cy="{y + 0.5}" r="0.05" class="origin"/>' if c["origin"] else ""
        buoy = ""
        if c["buoy"]:
            cross = (
                f'<path d="M{x + 0.22} {y + 0.22} L{x + 0.78} {y + 0.78} M{x + 0.78} {y + 0.22} '
                f'L{x + 0.22} {y + 0.78}" class="cross"/>'
                if forbidden
                else ""
            )
            buoy = (
                f'\n      <circle cx="{x + 0.5}" cy="{y + 0.5}" r="0.33" class="piece buoy"/>'
                f'\n      <circle cx="{x + 0.5}" cy="{y + 0.5}" r="0.14" class="buoy-band"/>'
                f"\n      {cross}\n    "
            )
        out.append(
            f'{opened}data-x="{x}" data-y="{y}">\n    <rect x="{x + 0.05}" y="{y + 0.05}" width="0.9" '
            f'height="0.9" rx="0.15" class="hit"/>\n    {origin}\n    {buoy}\n  </g>\n  '
        )
    return Markup("".join(out))


def register(globals_: dict[str, Any]) -> None:
    for helper in (
        tap_attrs,
        point_class,
        point_a11y,
        board_a11y,
        morris_frame,
        morris_points,
        bobail_frame,
        bobail_points,
        bashni_frame,
        bashni_points,
        bilsang_frame,
        bilsang_points,
    ):
        globals_[helper.__name__] = helper
