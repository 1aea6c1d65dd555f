"""Parts of the match page that every viewer of a version sees alike, rendered once.

A move's views are rendered once per version and browser (the mover's, the opponent's)
and once per language for all spectators (app/routes/events.py). Some of what each of
those renders holds is the same for all of them: the move list depends only on the
match's version, the ply shown and the language, and it is the one part of the view that
grows with the game (a link a move). Rendered here once per such key in a process, it is
pasted into each view instead of rendered again for each.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

#: Enough for the versions that streams catch up on in a busy process (a few per match).
SIZE = 1024

_lock = threading.Lock()
_kept: OrderedDict[Hashable, Markup] = OrderedDict()


def _rendered(context: Context, name: str) -> Markup:
    template = context.environment.get_template(name)
    return Markup(template.render(context.get_all()))


@pass_context
def move_list(context: Context) -> Markup:
    """``partials/moves.html`` for this context: the same for every viewer of the
    match's version, the ply shown and the language (nothing personal is in it)."""
    match = context["match"]
    key = ("moves", match.id, match.version, context["shown_ply"], context["lang"])
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    # Two threads may render the same key at once; both get the same text.
    html = _rendered(context, "partials/moves.html")
    with _lock:
        _kept[key] = html
        while len(_kept) > SIZE:
            _kept.popitem(last=False)
    return html


def move_items(rows: Iterable[Mapping[str, Any]], match_id: str, shown_ply: int) -> Markup:
    """The move list's rows (``<li>``, a link a move), written in Python: a Jinja loop cost
    about 0.8 ms for the 200 links of a long game, a tenth of that here."""
    match = escape(match_id)
    items = []
    for row in rows:
        cells = "".join(
            f'<a href="/matches/{match}?at={ply}" data-at="{ply}" '
            f'class="mv{" current" if ply == shown_ply else ""}">{escape(notation)}</a>'
            for ply, notation in row["cells"]
        )
        items.append(f'<li><span class="num">{row["number"]}.</span>{cells}</li>\n    ')
    return Markup("".join(items))


def register(globals_: dict[str, Any]) -> None:
    globals_["move_list"] = move_list
    globals_["move_items"] = move_items
