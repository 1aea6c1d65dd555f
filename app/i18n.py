"""English and Spanish through a gettext catalogue (Babel).

Texts are written in English in templates and code as ``_("…")``; Spanish comes
from ``app/translations/es.po``, compiled in memory at start-up so no build step
is needed. The language is the ``lang`` cookie, else the browser's Accept-Language.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LANGUAGES: dict[str, str] = {"en": "English", "es": "Español"}
DEFAULT = "en"
LANG_COOKIE = "lang"
CATALOGUES = Path(__file__).parent / "translations"


@cache
def translations(lang: str) -> gettext.NullTranslations:
    path = CATALOGUES / f"{lang}.po"
    if lang == DEFAULT or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=lang)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def negotiate(cookie: str | None, accept_language: str | None) -> str:
    if cookie in LANGUAGES:
        return cookie
    wanted = []
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag:
            wanted.append((quality, tag.replace("-", "_")))
    preferred = [tag for _q, tag in sorted(wanted, key=lambda pair: -pair[0])]
    found = Locale.negotiate(preferred, list(LANGUAGES), sep="_") if preferred else None
    return str(found.language) if found else DEFAULT
