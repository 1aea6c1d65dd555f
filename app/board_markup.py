"""The board templates' attributes of one point, written in Python.

They were Jinja macros (``boards/macros.html``, ``partials/a11y_point.html``), called three
times for each point of a board, and a macro call costs Jinja a new context and a capture:
as functions, a Morris view renders in 0.97 ms instead of 1.21 (issue 28). The same text,
escaped the same way (f-strings and ``escape``; ``Markup.format`` would run Python's
pure-Python formatter, 40 µs a call).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
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


def register(globals_: dict[str, Any]) -> None:
    for helper in (tap_attrs, point_class, point_a11y, board_a11y):
        globals_[helper.__name__] = helper
