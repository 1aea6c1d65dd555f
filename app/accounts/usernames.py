"""The username rules: 2-20 characters of [A-Za-z0-9_-], a letter first, no doubled
``_``/``-``, unique without regard to case, and not a reserved name."""

from __future__ import annotations

import re

from app.services.errors import Invalid
from app.texts import N_, STRENGTHS

MIN_LENGTH = 2
MAX_LENGTH = 20
#: The whole rule but uniqueness and the reserved list, as the OpenAPI document gives it.
USERNAME_PATTERN = r"^(?!.*[_-]{2})[A-Za-z][A-Za-z0-9_-]{1,19}$"

#: Names that would pass for the site, its staff or the computer (whose seats are named
#: "Computer N" and shown by strength): compared casefolded.
RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "tablero",
        "computer",
        "moderator",
        "mod",
        "root",
        "system",
        "support",
        "staff",
        "guest",
        "anonymous",
        "deleted",
        "deleted-player",
        "deleted_player",
        "api",
        "account",
        "me",
        "null",
        "undefined",
        "ladder",
        "bot",
        *STRENGTHS,  # easy, medium, hard, strongest: the computer levels' names
        *(f"computer{n}" for n in range(1, 19)),
        *(f"computer-{n}" for n in range(1, 19)),
        *(f"computer_{n}" for n in range(1, 19)),
        *(f"level{n}" for n in range(1, 19)),
    }
)


def username_key(name: str) -> str:
    """What uniqueness compares: the name casefolded (ASCII only, so lower())."""
    return name.lower()


def check_username(raw: object) -> str:
    """The username if it keeps every rule but uniqueness; ``Invalid`` naming the rule broken."""
    if not isinstance(raw, str):
        raise Invalid(N_("a username is required"))
    name = raw
    if not MIN_LENGTH <= len(name) <= MAX_LENGTH:
        raise Invalid(N_("a username has 2 to 20 characters"))
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name):
        raise Invalid(N_("a username has only letters a-z, digits, _ and -"))
    if not name[0].isalpha():
        raise Invalid(N_("a username starts with a letter"))
    if re.search(r"[_-]{2}", name):
        raise Invalid(N_("a username has no two _ or - in a row"))
    if username_key(name) in RESERVED:
        raise Invalid(N_("this username is reserved"))
    return name
