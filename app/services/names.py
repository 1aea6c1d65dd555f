"""Display names: what people call themselves on the site."""

from __future__ import annotations

import unicodedata

from app.services.errors import Invalid
from app.texts import N_

MAX_NAME = 32


def clean_name(raw: str) -> str:
    """The name trimmed, or ``Invalid`` when it is empty, too long or holds control characters."""
    name = " ".join(raw.split())
    if not name:
        raise Invalid(N_("a display name is required"))
    if len(name) > MAX_NAME:
        raise Invalid(N_("a display name has at most %(n)s characters"), n=MAX_NAME)
    if any(unicodedata.category(c) in {"Cc", "Cf", "Cs", "Co", "Cn"} for c in name):
        raise Invalid(N_("a display name cannot contain control or invisible characters"))
    return name
