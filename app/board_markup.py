"""The board templates' attributes of one point, written in Python.

They were Jinja macros (``boards/macros.html``, ``partials/a11y_point.html``), called three
times for each point of a board, and a macro call costs Jinja a new context and a capture:
as functions, a Morris view renders in 0.97 ms instead of 1.21 (issue 28). The same text,
escaped the same way (f-strings and ``escape``; ``Markup.format`` would run Python's
pure-Python formatter, 40 µs a call).
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
        out.append(
            f'\n  <g class="point{point_class(view, name)}" data-point="{escape(name)}" '
            f"{point_a11y(name, labels, click_tree)} {tap_attrs(match, view, name)} {head}{drawn}\n  </g>\n  "
        )
    return Markup("".join(out))


def register(globals_: dict[str, Any]) -> None:
    for helper in (tap_attrs, point_class, point_a11y, board_a11y, morris_frame, morris_points):
        globals_[helper.__name__] = helper
