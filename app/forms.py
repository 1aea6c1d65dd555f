"""The new-match form's fields: each read, checked and refused with a readable 422.

A form field is text, whatever the page offered: every one is checked here before any
use, and a value kept in a cookie is the checked value, percent-encoded (a header holds
only Latin-1; a CJK ``initial_minutes`` was a 500 when it was written back raw).
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request, Response

from app import texts
from app.services.errors import Invalid
from app.texts import N_
from games.bilsang import NEW_MATCH_OPTIONS

#: The Bilsang rule sets offered on the new-match form: label and engine options
#: (RULES.md, "Bilsang rule options"); the first is the default for new matches. The labels
#: are short enough for a phone's select; the form's hint under it says the rest.
BILSANG_RULES: dict[str, tuple[str, dict[str, Any]]] = {
    "line": (N_("same-line pairs (recommended)"), dict(NEW_MATCH_OPTIONS)),
    "free": (N_("free pairs (almost always drawn)"), {}),
    "long": (N_("long game (same-line, quiet 1000)"), {"line": True, "quiet": 1000}),
}


def rule_options(game: str, choice: str) -> dict[str, Any] | None:
    """The engine options behind the form's rules choice; ``None``: the game's default."""
    if game != "bilsang":
        return None
    if choice not in BILSANG_RULES:
        raise Invalid(N_("choose the rules for Bilsang"))
    return dict(BILSANG_RULES[choice][1])


def computer_level(game: str, choice: str) -> int | None:
    """The level behind a strength on the form; "" means a friend, not the computer.

    Bashni's levels are the ladder's opponents; 7 is the deepest search there is.
    """
    if not choice:
        return None
    table = texts.BASHNI_LEVELS if game == "bashni" else texts.OTHER_LEVELS
    if choice not in table:
        raise Invalid(N_("choose a strength for the computer"))
    return table[choice]


#: The last time control chosen on the new-match form ("rt:300:3", "cd:3", "rt:custom:…").
TIME_CONTROL_COOKIE = "tablero_tc"
BAD_TIME_CONTROL = N_("choose a time control from the list, or a custom time in minutes")
#: The form's own defaults for the custom fields.
DEFAULT_MINUTES, DEFAULT_INCREMENT = "15", "10"


def _number(text: str) -> float:
    """A finite decimal number ("2,5" as well as "2.5"); ValueError for anything else
    (``inf``, ``nan`` and ``1e309`` too: round() of an infinity raised OverflowError)."""
    value = float(text.strip().replace(",", "."))
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def form_time_control(choice: str, initial_minutes: str, increment_seconds: str) -> dict[str, Any] | None:
    """The new-match form's time control, in the JSON API's form ("" is untimed).

    Only the shape is checked here; the ranges are the time control's own
    (app/services/clocks.py), refused there with the limits named."""
    kind, _, rest = choice.partition(":")
    try:
        if kind == "rt" and rest == "custom":
            return {
                "kind": "realtime",
                "initial_seconds": round(_number(initial_minutes) * 60),
                "increment_seconds": int(increment_seconds),
            }
        if kind == "rt":
            initial, increment = rest.split(":")
            return {"kind": "realtime", "initial_seconds": int(initial), "increment_seconds": int(increment)}
        if kind == "cd":
            return {"kind": "correspondence", "days": int(rest)}
    except (ValueError, OverflowError):
        raise Invalid(BAD_TIME_CONTROL) from None
    if choice:
        raise Invalid(BAD_TIME_CONTROL)  # not a choice the form offers
    return None


def _kept(text: str, default: str, whole: bool) -> str:
    """A custom field worth offering again: the number as the form shows it, else the default."""
    try:
        value = int(text) if whole else _number(text)
    except (ValueError, OverflowError):
        return default
    shown = f"{value:g}" if not whole else str(value)
    return shown if len(shown) <= (4 if whole else 8) else default


def remember_time_control(
    response: Response, choice: str, initial_minutes: str, increment_seconds: str
) -> None:
    """Keep the checked choice (call it after form_time_control accepted it); the custom
    fields only as numbers, so an untimed choice with junk in the hidden fields keeps
    the defaults rather than the junk."""
    value = "|".join(
        (
            choice,
            _kept(initial_minutes, DEFAULT_MINUTES, whole=False),
            _kept(increment_seconds, DEFAULT_INCREMENT, whole=True),
        )
    )
    response.set_cookie(
        TIME_CONTROL_COOKIE,
        quote(value, safe=":|.-"),
        max_age=400 * 24 * 3600,
        samesite="lax",
        httponly=True,
    )


def remembered_time_control(request: Request) -> dict[str, str]:
    """The form's last choice, for the form to come back with it selected."""
    parts = unquote(request.cookies.get(TIME_CONTROL_COOKIE) or "", errors="replace").split("|")
    choice = parts[0] if parts else ""
    return {
        "choice": choice[:20],
        "initial_minutes": parts[1][:8] if len(parts) > 1 else DEFAULT_MINUTES,
        "increment_seconds": parts[2][:4] if len(parts) > 2 else DEFAULT_INCREMENT,
    }
