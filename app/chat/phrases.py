"""The phrases everyone may say: stored by key, shown in each reader's language.

Guests speak only in these, so nothing a guest says can be abusive or carry a link; the
key is what is stored, and every reader gets the English text translated by its own
catalogue (``app/translations/es.po``).
"""

from __future__ import annotations

from collections.abc import Callable

from app.texts import N_

Gettext = Callable[[str], str]

#: key -> English text, in the order the chat panel offers them.
PHRASES: dict[str, str] = {
    "hello": N_("Hello"),
    "good-luck": N_("Good luck"),
    "have-fun": N_("Have fun"),
    "your-turn": N_("Your turn"),
    "take-your-time": N_("Take your time"),
    "nice-move": N_("Nice move"),
    "oops": N_("Oops"),
    "thanks": N_("Thanks"),
    "well-played": N_("Well played"),
    "good-game": N_("Good game"),
    "one-more": N_("One more?"),
    "sorry": N_("Sorry about that"),
    "back-soon": N_("Back in a minute"),
    "have-to-go": N_("I have to go"),
    "bye": N_("Bye"),
}


def phrase_text(key: str, gettext: Gettext) -> str:
    """The phrase ``key`` in the reader's language (``gettext`` is the reader's)."""
    return gettext(PHRASES[key])


def phrase_list(gettext: Gettext) -> list[dict[str, str]]:
    return [{"key": key, "text": gettext(text)} for key, text in PHRASES.items()]
