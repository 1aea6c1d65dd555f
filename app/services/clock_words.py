"""The match clocks in words, for the typed "clocks" command and the spoken low-time warnings.

Every figure is the server's (the time-control fields of a match state, measured by
``matches.clock_state``); this only says them. The page speaks the warnings itself, when
``static/clocks.js`` counts the viewer's own running clock down past one of
``LOW_TIME_WARNINGS_MS``: the words for each limit are written here, on the clock, so the
script knows no language and no rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from app.services.clocks import MS_PER_DAY, ms_between
from app.services.describe import Tr, side_words
from app.texts import N_
from games.base import Game

Ngettext = Callable[[str, str, int], str]

#: When the viewer's own clock is said aloud, once each per move, as it goes under each:
#: real time 60, 20 and 10 seconds; correspondence one hour and ten minutes. A limit not
#: below the allowance is left out (a 1+0 game does not start with "one minute left").
LOW_TIME_WARNINGS_MS: dict[str, tuple[int, ...]] = {
    "realtime": (60_000, 20_000, 10_000),
    "correspondence": (3_600_000, 600_000),
}


def _unit(ngettext: Ngettext, unit: str, count: int) -> str:
    # One literal pair per unit, so the catalogue extractor finds every plural form.
    if unit == "day":
        text = ngettext("%(num)s day", "%(num)s days", count)
    elif unit == "hour":
        text = ngettext("%(num)s hour", "%(num)s hours", count)
    elif unit == "minute":
        text = ngettext("%(num)s minute", "%(num)s minutes", count)
    else:
        text = ngettext("%(num)s second", "%(num)s seconds", count)
    return text % {"num": count}


def duration(ngettext: Ngettext, ms: int, realtime: bool) -> str:
    """ "4 minutes 12 seconds" (real time, whole seconds rounded down, as the clock shows
    them) or "2 days 3 hours 5 minutes" (correspondence: no seconds above a minute)."""
    seconds = max(0, ms) // 1000
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if realtime:
        parts = [("hour", hours + 24 * days), ("minute", minutes), ("second", seconds)]
    elif days or hours or minutes:
        parts = [("day", days), ("hour", hours), ("minute", minutes)]
    else:
        parts = [("second", seconds)]
    words = [_unit(ngettext, unit, count) for unit, count in parts if count]
    return " ".join(words) or _unit(ngettext, "second", 0)


def clocks_answer(
    *,
    tr: Tr,
    ngettext: Ngettext,
    game: Game,  # type: ignore[type-arg]
    timing: dict[str, Any],
    status: str,
    to_move: str,
    names: dict[str, str],
    computer: set[str],
) -> str | None:
    """What the "clocks" command says of a timed match; ``None`` when it has no time control.

    "White (Ana): 4 minutes 12 seconds; Black (Bo): 3 minutes 5 seconds. White (Ana) to move."
    """
    control = timing.get("time_control")
    if control is None:
        return None
    realtime = control["kind"] == "realtime"
    left = timing.get("clocks")
    if status == "waiting":
        allowance = control["initial_seconds"] * 1000 if realtime else control["days"] * MS_PER_DAY
        return tr(N_("The clocks start when an opponent joins, with %(time)s each.")) % {
            "time": duration(ngettext, allowance, realtime)
        }
    if not left:
        return tr(N_("The game is over."))  # it ended (expired) before anyone joined
    sides = "; ".join(
        tr(N_("%(side)s: %(time)s"))
        % {
            "side": side_words(tr, game, side, names, computer),
            "time": duration(ngettext, left[side], realtime),
        }
        for side in game.sides
    )
    text = sides + "."
    if status == "playing":
        who = side_words(tr, game, to_move, names, computer)
        if timing.get("grace") and timing.get("deadline") and timing.get("clocks_at"):
            wait = ms_between(timing["clocks_at"], timing["deadline"])
            text += " " + tr(
                N_("%(side)s to move; the clock starts after the first move, due within %(time)s.")
            ) % {"side": who, "time": duration(ngettext, wait, True)}
        else:
            text += " " + tr(N_("%(side)s to move.")) % {"side": who}
    elif status == "finished":
        text += " " + tr(N_("The game is over."))
    return text


def low_time_said(tr: Tr, ngettext: Ngettext, control: dict[str, Any] | None) -> str:
    """The warnings for the viewer's own clock as JSON (limit in ms -> words), or ""."""
    if control is None:
        return ""
    realtime = control["kind"] == "realtime"
    allowance = control["initial_seconds"] * 1000 if realtime else control["days"] * MS_PER_DAY
    words = {
        str(limit): tr(N_("%(time)s left on your clock.")) % {"time": duration(ngettext, limit, realtime)}
        for limit in LOW_TIME_WARNINGS_MS[control["kind"]]
        if limit < allowance
    }
    return json.dumps(words, ensure_ascii=False, separators=(",", ":")) if words else ""
