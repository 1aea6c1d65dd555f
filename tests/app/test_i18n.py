"""Every text the site shows has a Spanish translation in the catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from app import i18n
from app.config import ROOT

METHODS = [("app/**.py", "python"), ("templates/**.html", "jinja2")]
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


def extracted() -> set[str | tuple[str, ...]]:
    """Every catalogue id in the code: a text, or (singular, plural) for ngettext."""
    found: set[str | tuple[str, ...]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map=METHODS, keywords=KEYWORDS
    ):
        found.add(message)
    return found


def spanish() -> Catalog:
    with (ROOT / "app" / "translations" / "es.po").open("rb") as fh:
        return read_po(fh, locale="es")


def is_translated(message: Message, forms: int) -> bool:
    if not message.string or message.fuzzy:
        return False
    if message.pluralizable:
        return len(message.string) == forms and all(message.string)
    return True


def test_every_message_is_translated_to_spanish() -> None:
    catalog = spanish()
    translated = {m.id for m in catalog if m.id and is_translated(m, catalog.num_plurals)}
    missing = extracted() - translated
    assert not missing, f"add Spanish for: {sorted(missing, key=str)}"


def test_counts_go_through_plural_forms() -> None:
    """A number next to a word ("1 wins") must be an ngettext pair with every Spanish form."""
    plurals = {m for m in extracted() if isinstance(m, tuple)}
    assert ("%(num)s ply", "%(num)s plies") in plurals
    translations = i18n.translations("es")
    assert translations.ngettext("%(num)s ply", "%(num)s plies", 1) % {"num": 1} == "1 jugada"
    assert translations.ngettext("%(num)s ply", "%(num)s plies", 2) % {"num": 2} == "2 jugadas"
    catalog = spanish()
    for message in catalog:
        if message.pluralizable and message.id in plurals:
            for form in message.string:
                assert ("%(num)s" in form) == ("%(num)s" in message.id[1]), message.id


def test_placeholders_survive_translation() -> None:
    with (ROOT / "app" / "translations" / "es.po").open("rb") as fh:
        catalog = read_po(fh)
    for message in catalog:
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for name in re.findall(r"%\([a-z_]+\)s", " ".join(ids)):
            for string in strings:
                assert name in string, (message.id, name)


def test_spanish_names_the_required_axis_as_the_panel_does() -> None:
    """The Bilsang lessons send the learner to the panel ("míralo en el panel"): they must
    call its "Required axis" by the panel's name (they said "eje obligado", the panel and
    the rules page "eje obligatorio")."""
    catalog = spanish()
    panel = catalog.get("Required axis")
    assert panel is not None and panel.string == "Eje obligatorio"
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            assert "eje obligado" not in string.lower(), message.id
    rules = (ROOT / "templates" / "rules" / "bilsang.es.html").read_text(encoding="utf-8")
    assert "eje obligatorio" in rules and "eje obligado" not in rules


def test_negotiation() -> None:
    assert i18n.negotiate(None, "es-AR,es;q=0.9,en;q=0.8") == "es"
    assert i18n.negotiate(None, "fr-FR, en;q=0.4") == "en"
    assert i18n.negotiate(None, None) == "en"
    assert i18n.negotiate("es", "en") == "es"
    assert i18n.negotiate("xx", "en;q=0.1, es;q=0.9") == "es"
    assert i18n.negotiate(None, "en;q=bogus, es") == "es"


def test_make_messages_lists_texts_without_spanish(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``make messages`` (app.manage messages): a report, never a rewrite of es.po (before,
    it failed: pybabel update has no --no-location)."""
    from babel.messages.pofile import write_po

    from app.manage import missing_translations

    catalog = Catalog()
    catalog.add("Play")  # translated
    catalog.add("A text nobody has translated yet")
    template = tmp_path / "t.pot"
    with template.open("wb") as fh:
        write_po(fh, catalog)
    before = (ROOT / "app" / "translations" / "es.po").read_bytes()
    assert missing_translations(str(template)) == 1
    assert capsys.readouterr().out.splitlines() == ["A text nobody has translated yet"]
    assert (ROOT / "app" / "translations" / "es.po").read_bytes() == before
