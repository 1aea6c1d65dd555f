"""Which email addresses are taken, and how two are compared.

An address is one line of printable ASCII in the common ``local@domain`` form: no CR, LF
or other control character (it ends up in a header: no header injection), no space, no
quoted local part, a domain of at least two dot-separated labels. Anything else is
refused with the rule it breaks (422). The local part is kept as typed; the domain is
compared without regard to case (``key``), as mail servers treat it.
"""

from __future__ import annotations

import re

from app.services.errors import Invalid
from app.texts import N_

MAX_ADDRESS = 254
MAX_LOCAL = 64
#: RFC 5322's dot-atom characters, without the quoted forms nobody types.
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_DOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})+")


def check(text: str) -> str:
    """The address as typed (surrounding spaces cut), or ``Invalid`` naming the rule."""
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise Invalid(N_("an email address is one line, without control characters"))
    address = text.strip()
    if not address:
        raise Invalid(N_("type an email address"))
    if len(address) > MAX_ADDRESS:
        raise Invalid(N_("an email address has at most 254 characters"))
    if not address.isascii():
        raise Invalid(N_("this site takes email addresses in plain ASCII letters only"))
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise Invalid(N_("an email address looks like name@example.com"))
    if len(local) > MAX_LOCAL or not _LOCAL.fullmatch(local) or not _DOMAIN.fullmatch(domain):
        raise Invalid(N_("an email address looks like name@example.com"))
    return address


def key(address: str) -> str:
    """What two addresses are compared by: the local part as typed, the domain in lower case."""
    local, _, domain = address.rpartition("@")
    return f"{local}@{domain.lower()}"
