"""The typed commands of the match page ("last", "turn", "what d4", ...): which text is a
command, and the server's answer to one, in the viewer's language (anything else typed
is a move)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from app.services.describe import Tr, board_points, pieces_of, point_words, side_words
from app.texts import N_
from games.base import Game

#: Command words (English and Spanish, and lichess-like one-letter forms) -> command.
COMMANDS = {
    "help": "help", "h": "help", "?": "help", "ayuda": "help",
    "last": "last", "l": "last", "ultima": "last", "última": "last", "u": "last",
    "turn": "turn", "t": "turn", "turno": "turn",
    "clock": "clock", "clocks": "clock", "c": "clock", "reloj": "clock", "relojes": "clock",
    "mine": "mine", "m": "mine", "mias": "mine", "mías": "mine", "mis": "mine",
    "theirs": "theirs", "o": "theirs", "opponent": "theirs", "rival": "theirs", "suyas": "theirs",
    "what": "what", "s": "what", "scan": "what", "que": "what", "qué": "what",
    "moves": "moves", "legal": "moves", "jugadas": "moves", "j": "moves",
}  # fmt: skip

HELP = N_(
    "Commands: last (l), turn (t), clock (c), mine (m), theirs (o), what POINT (s POINT), "
    "moves (legal), help (h). Anything else is taken as a move in the game's notation."
)


def parse_command(text: str) -> tuple[str, str] | None:
    """(command, argument) when ``text`` starts with a command word, else None (a move)."""
    words = text.strip().split(maxsplit=1)
    if not words:
        return None
    command = COMMANDS.get(words[0].lower())
    if command is None:
        return None
    if command != "what" and len(words) > 1:
        return None
    return command, words[1].strip() if len(words) > 1 else ""


def join_list(tr: Tr, items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else tr(N_("none"))


_CELL_RE = re.compile(r"^-?\d+,-?\d+$")


def answer(
    command: str,
    argument: str,
    *,
    tr: Tr,
    game: Game[Any, Any],
    board: dict[str, Any],
    viewer_side: str | None,
    to_move: str,
    status: str,
    last: str,
    legal: list[str],
    clocks: str,
    names: dict[str, str],
    computer: set[str],
) -> str:
    """The server's answer to one typed command, in the viewer's language."""
    if command == "help":
        return tr(HELP)
    if command == "last":
        return last or tr(N_("No move has been played yet."))
    if command == "turn":
        if status == "waiting":
            return tr(N_("Waiting for an opponent."))
        if status == "finished":
            return tr(N_("The game is over."))
        who = side_words(tr, game, to_move, names, computer)
        if to_move == viewer_side:
            return tr(N_("Your move (%(side)s).")) % {"side": who}
        return tr(N_("%(side)s to move.")) % {"side": who}
    if command == "clock":
        return clocks or tr(N_("This match has no clocks."))
    if command in ("mine", "theirs"):
        if game.name == "bilsang":
            cells = [p["name"] for p in board["grid"] if p["buoy"]]
            return tr(N_("The buoys are shared: %(points)s.")) % {"points": join_list(tr, cells)}
        sides = list(game.sides)
        side = viewer_side or sides[0]
        if command == "theirs":
            side = sides[1] if side == sides[0] else sides[0]
        found = pieces_of(game.name, tr, board, side)
        text = tr(N_("%(side)s: %(points)s.")) % {
            "side": side_words(tr, game, side, names, computer),
            "points": join_list(tr, found),
        }
        if game.name == "bobail":
            neutron = [p["name"] for p in board["squares"] if p["piece"] == "n"]
            text += " " + tr(N_("The Neutron is on %(point)s.")) % {"point": join_list(tr, neutron)}
        return text
    if command == "what":
        wanted = argument.replace(" ", "").lower()
        for p in board_points(game.name, board):
            if p["name"] == wanted:
                return point_words(game.name, tr, p)
        if game.name == "bilsang" and _CELL_RE.match(wanted):
            return tr(N_("%(point)s, empty sea")) % {"point": wanted}
        return tr(N_("There is no point %(point)s on this board.")) % {"point": argument or "?"}
    if command == "moves":
        if not legal:
            return tr(N_("You have no move to make now."))
        return tr(N_("Legal moves: %(moves)s.")) % {"moves": ", ".join(legal)}
    return tr(HELP)
