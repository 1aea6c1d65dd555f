"""Game records for the site: a match's record, imported records, their storage.

The format itself is ``games.records`` (pure); this module connects it to
matches and to the ``game_records`` table. An import is checked in full before
anything is stored, and stored in one transaction, so a bad record leaves nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

import games
from app.matches.model import new_match_id
from app.models import ImportedRecord, Match
from app.services import clocks as timing
from app.services.errors import Invalid, NotFound, ServiceError
from app.texts import N_
from games import records
from games.records import GameRecord, RecordError, RecordTooLarge


class TooLarge(ServiceError):
    status_code = 413


class Unsupported(ServiceError):
    status_code = 415


class RecordInvalid(Invalid):
    """A record refused at one line; keeps the parts so a page can say it in Spanish."""

    def __init__(self, error: RecordError) -> None:
        super().__init__(str(error))
        self.error = error


#: Every sentence ``games.records`` can refuse a record with, for the catalogue
#: (a test checks this list against that module's source).
RECORD_MESSAGES = (
    N_("line %(line)s: %(message)s"),
    N_("the record is not UTF-8 text (byte %(offset)s)"),
    N_("the record is %(size)s bytes; at most %(limit)s are read"),
    N_("the record ends inside a tag pair"),
    N_('a tag pair is written [Name "value"]; this line is not one: %(text)s'),
    N_("the tag %(name)s appears twice"),
    N_("variations in parentheses are not supported"),
    N_("a tag pair after the moves began"),
    N_("a comment opened with { is never closed"),
    N_("text after the result: %(text)s"),
    N_("the Position tag is not a position: %(reason)s"),
    N_("the Date tag is written YYYY.MM.DD, not %(text)s"),
    N_("the Termination tag names no known ending: %(text)s"),
    N_("a move number is missing; %(expected)s was expected"),
    N_("move number %(found)s where %(expected)s was expected"),
    N_("the record ends after a move number"),
    N_("a move number with no move after it"),
    N_("a move number is missing before %(text)s"),
    N_("more than %(limit)s plies"),
    N_("ply %(ply)s (%(move)s) comes after the game was over"),
    N_(
        "the record seems cut short: ply %(ply)s (%(move)s) is incomplete or wrong, and the result is missing"
    ),
    N_("ply %(ply)s, %(move)s: %(reason)s"),
    N_("the result %(found)s differs from the Result tag"),
    N_("the record seems cut short: the moves do not end with the result"),
    N_("the %(tag)s tag names no game of this site: %(text)s"),
    N_("the Variant and GameType tags name different games"),
    N_("the record does not say which game it is: choose the game"),
    N_("%(reason)s"),
    N_("%(found)s is not a result of this game (one of %(allowed)s)"),
    N_("the record says %(found)s, but the moves end the game as %(proved)s"),
    N_("Termination says %(found)s, but the game ended by %(proved)s"),
    N_("Termination says %(found)s, but the moves do not end the game"),
    N_("Termination is given for an unfinished game"),
    N_("Termination %(found)s is a game with no result: its Result is *"),
    N_("a draw before the end of the game is by %(allowed)s, not %(found)s"),
    N_("a win before the end of the game is by %(allowed)s, not %(found)s"),
    N_("a } closes a comment that was never opened"),
    N_(
        "checking the record took over %(seconds)s seconds of CPU (%(plies)s plies checked); "
        "send a shorter one"
    ),
)


def translate_error(error: RecordError, gettext: Any) -> str:
    """The refusal in the reader's language (engine reasons inside stay English)."""
    text = gettext(error.template) % error.params if error.params else gettext(error.template)
    if error.line is None:
        return text
    return gettext("line %(line)s: %(message)s") % {"line": error.line, "message": text}


@dataclass(frozen=True)
class Line:
    """A line of play from any source (a match or an imported record), for pages and reviews."""

    kind: str  # "match" | "record"
    id: str
    game: str
    initial: str
    moves: tuple[str, ...]
    positions: tuple[str, ...]
    winner: str | None
    reason: str | None
    names: dict[str, str]
    date: datetime | None
    finished: bool


def line_of_match(match: Match) -> Line:
    return Line(
        kind="match",
        id=match.id,
        game=match.game,
        initial=match.initial_position,
        moves=tuple(m.notation for m in match.moves),
        positions=(match.initial_position, *(m.position_after for m in match.moves)),
        winner=match.winner,
        reason=match.reason if match.status == "finished" else None,
        names={s.side: s.name for s in match.seats},
        date=match.created_at,
        finished=match.status == "finished",
    )


def line_of_record(row: ImportedRecord) -> Line:
    game = games.get(row.game)
    tags = dict(json.loads(row.tags))
    names = {}
    for side, tag in zip(game.sides, ("White", "Black"), strict=True):
        if tags.get(tag) and tags[tag] != "?":
            names[side] = tags[tag]
    return Line(
        kind="record",
        id=row.id,
        game=row.game,
        initial=row.initial_position,
        moves=tuple(json.loads(row.moves)),
        positions=tuple(json.loads(row.positions)),
        winner=row.winner,
        reason=row.reason,
        names=names,
        date=row.created_at,
        finished=row.reason is not None,
    )


def time_control_tag(control: timing.TimeControl | None) -> str:
    """PGN's ``TimeControl``: ``"300+3"`` (seconds + increment, ``"60+0"`` without one),
    ``"1/259200"`` for correspondence (one move in 3 days' seconds, the allowance
    restored after each, as daily-chess sites write it), ``"-"`` untimed."""
    if control is None:
        return "-"
    if control.realtime:
        return f"{control.initial_seconds}+{control.increment_seconds}"
    return f"1/{control.days * timing.MS_PER_DAY // 1000}"


def match_record(match: Match, site_url: str) -> GameRecord:
    game = games.get(match.game)
    names = {s.side: s.name for s in match.seats}
    line = line_of_match(match)
    tags = (
        ("Event", "Tablero"),
        ("Site", site_url),
        ("Date", match.created_at.strftime("%Y.%m.%d")),
        ("White", names.get(game.sides[0], "?")),
        ("Black", names.get(game.sides[1], "?")),
        ("TimeControl", time_control_tag(timing.loads(match.time_control))),
    )
    return GameRecord(match.game, line.initial, line.moves, line.winner, line.reason, tags)


def stored_record(row: ImportedRecord) -> GameRecord:
    line = line_of_record(row)
    tags = tuple((k, v) for k, v in json.loads(row.tags))
    return GameRecord(row.game, line.initial, line.moves, line.winner, line.reason, tags)


def file_name(game_name: str, date: datetime | None, ident: str) -> str:
    """``tablero-bashni-2026-12-01-<id>.pdn``: what it is, when, which one."""
    day = date.strftime("%Y-%m-%d") if date is not None else "undated"
    extension = "pdn" if game_name == "bashni" else "txt"
    return f"tablero-{game_name}-{day}-{ident}.{extension}"


def record_state(row: ImportedRecord) -> dict[str, Any]:
    """An imported game in the shape of a match's state (``GET /api/matches/{id}``)."""
    line = line_of_record(row)
    game = games.get(row.game)
    last = game.parse_position(row.position)
    return {
        "id": row.id,
        "game": row.game,
        "status": "finished" if line.finished else "unfinished",
        "position": row.position,
        "ply": len(line.moves),
        "to_move": game.to_move(last),
        "result": {"winner": row.winner, "reason": row.reason} if line.finished else None,
        "moves": list(line.moves),
        "players": [{"side": s, "name": line.names.get(s, "?"), "computer": False} for s in game.sides],
        "initial_position": row.initial_position,
        "tags": [list(pair) for pair in json.loads(row.tags)],
    }


class RecordService:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions

    def read(
        self, data: bytes | str, game_name: str | None = None, seconds: float | None = None
    ) -> GameRecord:
        """Check a record in full (in at most ``seconds``); raises ``RecordInvalid`` /
        ``TooLarge``, stores nothing."""
        try:
            text = records.decode(data) if isinstance(data, bytes) else data
            return records.parse(text, game_name or None, seconds)
        except RecordTooLarge as exc:
            raise TooLarge(str(exc)) from None
        except RecordError as exc:
            raise RecordInvalid(exc) from None

    def import_record(
        self, data: bytes | str, game_name: str | None = None, seconds: float | None = None
    ) -> ImportedRecord:
        parsed = self.read(data, game_name, seconds)
        row = ImportedRecord(
            id=new_match_id(),
            game=parsed.game,
            initial_position=parsed.initial,
            position=parsed.positions[-1],
            moves=json.dumps(list(parsed.moves)),
            positions=json.dumps(list(parsed.positions)),
            tags=json.dumps([list(pair) for pair in parsed.tags]),
            winner=parsed.winner,
            reason=parsed.reason,
        )
        with self.sessions.begin() as db:
            db.add(row)
        return self.get(row.id)

    def get(self, record_id: str) -> ImportedRecord:
        with self.sessions() as db:
            row = db.get(ImportedRecord, record_id)
            if row is None:
                raise NotFound(f"there is no imported game {record_id!r}")
            db.expunge(row)
            return row
