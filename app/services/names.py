"""Display names: what people call themselves on the site.

One rule, written once as a regular expression that the OpenAPI document publishes
and the server applies (so the two cannot disagree): after trimming the whitespace
around it, a name is 1 to 32 characters with no control, format (invisible),
surrogate or private-use character; whitespace inside folds to single spaces.
"""

from __future__ import annotations

import re

from app.services.errors import Invalid
from app.texts import N_

MAX_NAME = 32


def _ranges(spans: list[tuple[int, int]]) -> str:
    def char(c: int) -> str:
        # BMP as \\uXXXX escapes; beyond it the character itself (an ECMA-262 "u" pattern
        # and Python's re read both the same way).
        return f"\\u{c:04x}" if c <= 0xFFFF else chr(c)

    return "".join(char(a) if a == b else f"{char(a)}-{char(b)}" for a, b in spans)


#: Every character str.isspace() calls whitespace (what str.split() folds).
WHITESPACE = _ranges(
    [(0x09, 0x0D), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
     (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]
)  # fmt: skip
#: Unicode categories Cc, Cf and Co (Unicode 14, Python 3.11), whitespace left out. Lone
#: surrogates (Cs) are not text at all: JSON Schema's engines cannot name them, and
#: clean_name refuses them apart.
FORBIDDEN = _ranges(
    [(0x0, 0x8), (0xE, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
     (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F),
     (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xE000, 0xF8FF), (0xFEFF, 0xFEFF),
     (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3),
     (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)]
)  # fmt: skip
#: The rule as JSON Schema's "pattern" gives it (and as the server checks it).
NAME_PATTERN = (
    f"^[{WHITESPACE}]*[^{WHITESPACE}{FORBIDDEN}]"
    f"(?:[^{FORBIDDEN}]{{0,{MAX_NAME - 2}}}[^{WHITESPACE}{FORBIDDEN}])?[{WHITESPACE}]*$"
)
_NAME = re.compile(NAME_PATTERN)
_SURROGATE = re.compile("[\ud800-\udfff]")
_FORBIDDEN = re.compile(f"[{FORBIDDEN}\\ud800-\\udfff]")


def clean_name(raw: str) -> str:
    """The name trimmed, or ``Invalid`` when it is empty, too long or holds control characters."""
    if not _NAME.match(raw) or _SURROGATE.search(raw):
        if not raw.strip():
            raise Invalid(N_("a display name is required"))
        if _FORBIDDEN.search(raw):
            raise Invalid(N_("a display name cannot contain control or invisible characters"))
        raise Invalid(N_("a display name has at most %(n)s characters"), n=MAX_NAME)
    return " ".join(raw.split())
