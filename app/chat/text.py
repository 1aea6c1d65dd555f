"""Free text in the chat: the character rules (those of display names) and the removal
of the private parts of links.

Text is stored as typed (trimmed, whitespace runs folded to one space, as names are)
and escaped only where it is shown; what cannot be shown safely in any page — control,
format (invisible, bidi overrides), private-use characters, lone surrogates, NUL — is
refused, never stored. Length counts characters (code points), so emoji and CJK count
one each, not their UTF-8 bytes.
"""

from __future__ import annotations

import re

from app.services.errors import Invalid
from app.services.names import FORBIDDEN, WHITESPACE
from app.texts import N_

MAX_TEXT = 140

#: The rule as JSON Schema's "pattern" gives it and the server checks it: after trimming,
#: 1 to MAX_TEXT characters, none of them control, format or private-use.
TEXT_PATTERN = (
    f"^[{WHITESPACE}]*[^{WHITESPACE}{FORBIDDEN}]"
    f"(?:[^{FORBIDDEN}]{{0,{MAX_TEXT - 2}}}[^{WHITESPACE}{FORBIDDEN}])?[{WHITESPACE}]*$"
)
_TEXT = re.compile(TEXT_PATTERN)
_FORBIDDEN = re.compile(f"[{FORBIDDEN}\\ud800-\\udfff]")

#: A seat's private "continue on another device" link: the part after the match's own
#: address moves the seat to whoever opens it.
_CONTINUE = re.compile(r"(/matches/[A-Za-z0-9_-]{1,32})/continue\S*")
#: A long run of URL-safe characters with a digit in it: a player token (43), a
#: continue code (32 hex), a session id. Words are never this long and digit-laden.
_SECRET = re.compile(r"(?<![A-Za-z0-9_-])(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])")
REMOVED = "…"


def check_text(raw: str) -> str:
    """The line to store, or ``Invalid`` naming the rule it breaks."""
    if _FORBIDDEN.search(raw):
        if "\x00" in raw:
            raise Invalid(N_("text may not contain the NUL character"))
        raise Invalid(N_("a chat line cannot contain control or invisible characters"))
    if not raw.strip():
        raise Invalid(N_("a chat line cannot be empty"))
    if not _TEXT.match(raw):
        raise Invalid(N_("a chat line has at most %(n)s characters"), n=MAX_TEXT)
    return scrub(" ".join(raw.split()))


def scrub(text: str) -> str:
    """``text`` without the private parts of links: a continue link keeps only the
    match's address, and anything shaped like a token or a code becomes "…"."""
    text = _CONTINUE.sub(r"\1", text)
    return _SECRET.sub(REMOVED, text)
