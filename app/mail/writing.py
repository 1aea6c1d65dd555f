"""What each mail says, in the account's language (its preference, else English).

Plain text only: nothing in a mail is markup, so a name or a game can say anything and
still be only text (the message's own encoding keeps it out of the headers). Every link
is absolute, from the configured origin (``Settings.origin``), never from a request.
"""

from __future__ import annotations

from dataclasses import dataclass

from app import i18n
from app.texts import N_

VERIFY_SUBJECT = N_("Confirm your email address for Tablero")
VERIFY_BODY = N_(
    "Hello %(name)s,\n\n"
    "this address was added to the Tablero account %(name)s. To confirm it, open this link "
    "within 24 hours:\n\n%(link)s\n\n"
    "If it was not you, ignore this email: nothing more will be sent to this address."
)
DIGEST_INTRO = N_("Hello %(name)s,\n\nthese correspondence games are waiting for your move on Tablero:")
DIGEST_GAME = N_("%(game)s against %(opponent)s")
TIME_LEFT = N_("%(time)s left")
DIGEST_END = N_(
    "You get this email at most once a day because you asked for it in your account's settings.\n"
    "To stop it, open this link: %(link)s"
)


@dataclass(frozen=True)
class Mail:
    subject: str
    body: str
    #: The digest's unsubscribe link (for List-Unsubscribe); none on a verification mail.
    unsubscribe: str | None = None


@dataclass(frozen=True)
class Waiting:
    """One game waiting for the reader's move, as the digest lists it."""

    game: str  # the game's English title (translated here)
    opponent: str
    url: str
    #: Milliseconds to the deadline; None when the game has none.
    left_ms: int | None


def verification(lang: str, username: str, link: str) -> Mail:
    gettext = i18n.translations(lang).gettext
    return Mail(gettext(VERIFY_SUBJECT), gettext(VERIFY_BODY) % {"name": username, "link": link})


def digest(lang: str, username: str, games: list[Waiting], unsubscribe: str) -> Mail:
    from app.services.clock_words import duration

    translation = i18n.translations(lang)
    gettext, ngettext = translation.gettext, translation.ngettext
    subject = ngettext(
        "%(num)s game is waiting for your move", "%(num)s games are waiting for your move", len(games)
    ) % {"num": len(games)}
    lines = [gettext(DIGEST_INTRO) % {"name": username}, ""]
    for game in games:
        line = gettext(DIGEST_GAME) % {"game": gettext(game.game), "opponent": game.opponent}
        if game.left_ms is not None:
            line += " · " + gettext(TIME_LEFT) % {"time": duration(ngettext, game.left_ms, realtime=False)}
        lines += [f"- {line}", f"  {game.url}", ""]
    lines.append(gettext(DIGEST_END) % {"link": unsubscribe})
    return Mail(subject, "\n".join(lines), unsubscribe)
