"""Every text the site shows has a Spanish translation in the catalogue."""

from __future__ import annotations

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app import i18n
from app.config import ROOT

METHODS = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
KEYWORDS = {"_": None, "N_": None}


def extracted() -> set[str]:
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map=METHODS, keywords=KEYWORDS
    ):
        found.add(message)
    return found


def test_every_message_is_translated_to_spanish() -> None:
    with (ROOT / "app" / "translations" / "es.po").open("rb") as fh:
        catalog = read_po(fh)
    translated = {m.id for m in catalog if m.id and m.string and not m.fuzzy}
    missing = extracted() - translated
    assert not missing, f"add Spanish for: {sorted(missing)}"


def test_placeholders_survive_translation() -> None:
    with (ROOT / "app" / "translations" / "es.po").open("rb") as fh:
        catalog = read_po(fh)
    for message in catalog:
        if message.id and "%(" in message.id:
            for name in ("%(name)s", "%(game)s", "%(n)s", "%(total)s"):
                assert (name in message.id) == (name in message.string), message.id


def test_negotiation() -> None:
    assert i18n.negotiate(None, "es-AR,es;q=0.9,en;q=0.8") == "es"
    assert i18n.negotiate(None, "fr-FR, en;q=0.4") == "en"
    assert i18n.negotiate(None, None) == "en"
    assert i18n.negotiate("es", "en") == "es"
    assert i18n.negotiate("xx", "en;q=0.1, es;q=0.9") == "es"
    assert i18n.negotiate(None, "en;q=bogus, es") == "es"
