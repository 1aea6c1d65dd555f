"""English msgids for things the site names by key (sides, end reasons, refusals, computer seats)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.base import Game, GameError

Gettext = Callable[[str], str]


def N_(message: str) -> str:
    """Mark a message for the catalogue; it is translated where it is shown."""
    return message


#: So the extractor sees the game titles the engines carry.
GAME_TITLES = (N_("Bashni"), N_("Nine Men's Morris"), N_("Bobail"), N_("Bilsang"))

SIDE_LABELS = {"w": N_("White"), "b": N_("Black"), "1": N_("Player 1"), "2": N_("Player 2")}

REASONS = {
    "too-few-pieces": N_("fewer than three pieces left"),
    "no-moves": N_("no legal move left"),
    "repetition": N_("the same position occurred three times"),
    "ply-limit": N_("250 plies were played"),
    "neutron-home": N_("the Neutron reached a home row"),
    "last-buoy": N_("only one buoy is left"),
    "resignation": N_("resignation"),
    "agreement": N_("draw agreed"),
    "timeout": N_("the time ran out"),
    "aborted": N_("aborted before both sides had moved"),
    "expired": N_("nobody joined in time"),
    "abandonment": N_("claimed after the opponent left the game"),
    "abandoned": N_("the player left the game"),
}

#: Reasons of matches that ended without being played; the lobby does not list them.
UNPLAYED_REASONS = ("expired", "aborted")

QUIET_REASONS = {
    "morris": N_("100 plies without a removal"),
    "bashni": N_("50 plies without a capture or a man's move"),
    # the limit is a rule option of the match (RULES.md, "Bilsang rule options")
    "bilsang": N_("the limit of plies without a removal"),
}

#: What a player is told for each kind of engine error (``GameError.key``); the
#: engine's own English detail stays in the JSON API.
ENGINE_MESSAGES = {
    "bad-input": N_("the game could not read that"),
    "unknown-game": N_("there is no such game"),
    "bad-position": N_("that position cannot be read"),
    "bad-move": N_("that is not a move in this game's notation"),
    "illegal-move": N_("that move is not allowed in this position"),
    "game-over": N_("the game is over"),
}

#: The strength words of the new-match form, by game family and level.
STRENGTHS = {
    "easy": N_("easy"),
    "medium": N_("medium"),
    "hard": N_("hard"),
    "strongest": N_("strongest"),
    "master": N_("master (thinks 2 s)"),
}
BASHNI_LEVELS = {"easy": 1, "medium": 3, "hard": 5, "strongest": 7, "master": 19}
OTHER_LEVELS = {"easy": 1, "medium": 2, "hard": 3, "strongest": 4, "master": 5}

#: The name of a player who has given none (a seek, a form's default name).
GUEST = N_("Guest")

COMPUTER_LEVEL = N_("Computer (level %(n)s)")
#: Whole names rather than "Computer (%s)": in Spanish the word agrees with "ordenador".
COMPUTER_NAMES = {
    "easy": N_("Computer (easy)"),
    "medium": N_("Computer (medium)"),
    "hard": N_("Computer (hard)"),
    "strongest": N_("Computer (strongest)"),
    "master": N_("Computer (master)"),
}

#: The computer in a select that also offers a friend (the analysis and import pages):
#: the seat's own name, short enough for a phone, the master's thinking time kept.
OPPONENT_CHOICES = {**COMPUTER_NAMES, "master": N_("Computer (master, thinks 2 s)")}


def side_label(game: Game, side: str) -> str:  # type: ignore[type-arg]
    return SIDE_LABELS.get(side, side)


def reason_text(game_name: str, reason: str | None) -> str:
    if reason == "quiet":
        return QUIET_REASONS.get(game_name, N_("too many plies without progress"))
    return REASONS.get(reason or "", reason or "")


def computer_name(game_name: str, level: int, gettext: Gettext) -> str:
    """The computer's seat as people see it: its strength word, or its level in Bashni.

    Bashni's levels are the ladder's eighteen opponents, so a number says more there,
    except for the master (19), named as in the other games, which have exactly the
    five strengths of the form.
    """
    table = {"master": BASHNI_LEVELS["master"]} if game_name == "bashni" else OTHER_LEVELS
    for word, found in table.items():
        if found == level:
            return gettext(COMPUTER_NAMES[word])
    return gettext(COMPUTER_LEVEL) % {"n": level}


def seat_name(game_name: str, seat: Any, gettext: Gettext) -> str:
    """A seat's display name; a computer seat is named by its level, in the reader's language."""
    if getattr(seat, "ai_level", None) is not None:
        return computer_name(game_name, seat.ai_level, gettext)
    return seat.name


def localize(error: object, gettext: Gettext) -> str:
    """A refusal or an engine error as a sentence in the reader's language."""
    from app.services.errors import ServiceError

    if isinstance(error, ServiceError):
        # Only nested errors are translated; other values (ids, numbers) are shown as given.
        params = {
            name: localize(value, gettext) if isinstance(value, ServiceError | GameError) else str(value)
            for name, value in error.params.items()
        }
        text = gettext(error.message)
        return text % params if params else text
    if isinstance(error, GameError):
        return gettext(ENGINE_MESSAGES.get(error.key, ENGINE_MESSAGES["bad-input"]))
    text = str(error)
    return gettext(text) if text else text
