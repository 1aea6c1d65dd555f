"""Game records: the tag-pair format of PDN/PGN, written and read for all four games.

A record is a block of tag pairs (``[Name "value"]``, one a line) and the movetext:
the plies in the game's own notation (RULES.md), numbered per move pair
(``1. c3-d4 f6-g5 2. …``), ending with the result. Bashni's file is PDN
(``2-0``/``0-2``/``1-1``, the draughts way); the other games use PGN's
``1-0``/``0-1``/``1/2-1/2``, as Sanmill writes mill games. ``*`` is an
unfinished game.

Tags written: ``Event``, ``Site``, ``Date``, ``White``, ``Black`` (Bilsang: player 1
and player 2), ``Result``, ``GameType`` (Bashni only: PDN's numeric types have no
number for Bashni, so its value is the name), ``Variant`` (every game: which game
this is), ``Termination`` (the reason key of a finished game) and ``Position``
(the project's position string, only for a start other than the standard one,
like a handicap or a game started from a position). Unknown tags are kept, and so
is ``TimeControl``, which the site writes in PGN's form: ``"300+3"`` (seconds, then
the increment per move), ``"1/259200"`` (correspondence: one move in so many
seconds, here 3 days, as daily-chess sites write it) and ``"-"`` (untimed); a
record's value is kept as it is, never refused.

A game the site ended before its rules did has a ``Termination`` saying how: a win
by ``resignation``, ``timeout``, ``abandonment`` (claimed) or ``abandoned`` (left
against the computer), a draw by ``agreement`` or ``abandonment``; a match that
ended unplayed (``aborted``, ``expired``) has no result, ``*``, and its
``Termination``.

Reading checks every move with the engine and stops at the first bad line with
its number and the reason (``RecordError``); nothing of a bad record is used.
Moves whose notation holds spaces are grouped without ambiguity: a Bobail ply
is two slides except the game-ending one, which can only be the last; a Bilsang
ply starts with its axis letter (``h``, ``v``) or ``x``.

Pure: no web, no database; ``games`` engines only.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import games
from games.base import BadMove, BadPosition, Game, IllegalMove, Outcome, UnknownGame

#: Bigger records are refused before anything reads them (a long Bilsang game at
#: its 1000-ply quiet limit is about 15 KB).
MAX_BYTES = 48 * 1024
#: No game the site plays comes near this many plies.
MAX_PLIES = 5000
LINE_WIDTH = 80

#: Result forms per game: (first player wins, second player wins, draw).
RESULT_FORMS: dict[str, tuple[str, str, str]] = {
    "bashni": ("2-0", "0-2", "1-1"),
    "morris": ("1-0", "0-1", "1/2-1/2"),
    "bobail": ("1-0", "0-1", "1/2-1/2"),
    "bilsang": ("1-0", "0-1", "1/2-1/2"),
}
#: Also read (never written): draughts files written the chess way.
EXTRA_RESULT_FORMS: dict[str, tuple[str, str, str]] = {"bashni": ("1-0", "0-1", "1/2-1/2")}
UNFINISHED = "*"
ALL_RESULT_TOKENS = {"2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", UNFINISHED}

#: Reasons a record may name in ``Termination``: the engines' and the site's own.
ENGINE_REASONS = (
    "no-moves",
    "too-few-pieces",
    "quiet",
    "ply-limit",
    "repetition",
    "neutron-home",
    "last-buoy",
)
#: How the site ends a game before its rules do, by the result each goes with.
DECISIVE_ENDINGS = ("resignation", "timeout", "abandonment", "abandoned")
DRAWN_ENDINGS = ("agreement", "abandonment")
#: A match over before it was played: it has no result (``*``), though it is over.
NO_RESULT_ENDINGS = ("aborted", "expired")
SITE_REASONS = tuple(dict.fromkeys(DECISIVE_ENDINGS + DRAWN_ENDINGS + NO_RESULT_ENDINGS))

#: The PGN standard's own Termination values that name one of ours (or none: "normal" and
#: "unterminated" say only what the Result and the moves already say), so records from
#: other sites import; the others ("adjudication", "rules infraction"…) have no equivalent.
PGN_TERMINATIONS: dict[str, str | None] = {"normal": None, "unterminated": None, "time forfeit": "timeout"}

#: Tags the writer derives from the game itself; values kept in ``tags`` are ignored.
DERIVED_TAGS = ("Result", "GameType", "Variant", "Termination", "Position")
DESCRIPTIVE_ORDER = ("Event", "Site", "Date", "White", "Black")

_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]$')
_MARKER = re.compile(r"^(\d+)(\.\.\.|\.)(.*)$")
_DATE = re.compile(r"^(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})$")


class RecordError(ValueError):
    """A record that cannot be read. ``line`` is 1-based (``None``: the record as a whole).

    ``code`` is a stable key and ``params`` its values, so the web layer can say it
    in the reader's language; ``str()`` is the English sentence.
    """

    def __init__(self, line: int | None, code: str, message: str, **params: Any) -> None:
        self.line = line
        self.code = code
        self.template = message
        self.params = params
        text = message % params if params else message
        super().__init__(f"line {line}: {text}" if line is not None else text)


@dataclass(frozen=True)
class GameRecord:
    """One game: the start, the plies in notation, and how it ended.

    ``reason`` is ``None`` for an unfinished game; then ``winner`` is ``None`` too.
    ``tags`` are descriptive tag pairs (``Event``, ``White``, …) in order.
    ``positions`` (start first) is filled in by ``parse``; ``write`` ignores it.
    """

    game: str
    initial: str
    moves: tuple[str, ...]
    winner: str | None = None
    reason: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    positions: tuple[str, ...] = field(default=(), compare=False)

    @property
    def finished(self) -> bool:
        return self.reason is not None

    def tag(self, name: str, default: str = "") -> str:
        for key, value in self.tags:
            if key == name:
                return value
        return default


# ------------------------------------------------------------------- writing


def result_token(game_name: str, winner: str | None, reason: str | None) -> str:
    """The result as the game's records write it; ``*`` for a game with no result."""
    if reason is None or reason in NO_RESULT_ENDINGS:
        return UNFINISHED
    first, second, draw = RESULT_FORMS[game_name]
    engine = games.get(game_name)
    if winner is None:
        return draw
    return first if winner == engine.sides[0] else second


def standard_start(game: Game) -> str:  # type: ignore[type-arg]
    return game.format_position(game.initial())


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def write(record: GameRecord) -> str:
    """The record as text (PDN for Bashni, the same tag-pair format for the others)."""
    game = games.get(record.game)
    given = {k: v for k, v in record.tags if k not in DERIVED_TAGS}
    lines = []
    for name in DESCRIPTIVE_ORDER:
        lines.append((name, given.pop(name, "?" if name != "Date" else "????.??.??")))
    token = result_token(record.game, record.winner, record.reason)
    lines.append(("Result", token))
    if record.game == "bashni":
        lines.append(("GameType", game.title))
    lines.append(("Variant", game.title))
    if record.reason is not None:
        lines.append(("Termination", record.reason))
    if record.initial != standard_start(game):
        lines.append(("Position", record.initial))
    lines.extend(given.items())
    head = "\n".join(f'[{name} "{_quote(value)}"]' for name, value in lines)
    return f"{head}\n\n{movetext(game, record.initial, record.moves, token)}\n"


def movetext(game: Game, initial: str, moves: Iterable[str], token: str) -> str:  # type: ignore[type-arg]
    """The plies numbered per move pair, wrapped, never inside a move, then the result."""
    first_side = game.sides[0]
    offset = 0 if game.to_move(game.parse_position(initial)) == first_side else 1
    words: list[str] = []
    for i, move in enumerate(moves):
        k = i + offset
        if k % 2 == 0:
            words.append(f"{k // 2 + 1}. {move}")
        elif i == 0:
            words.append(f"{k // 2 + 1}... {move}")
        else:
            words.append(move)
    words.append(token)
    out: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > LINE_WIDTH:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return "\n".join(out)


# ------------------------------------------------------------------- reading


class RecordTooLarge(RecordError):
    def __init__(self, size: int) -> None:
        super().__init__(
            None,
            "too-large",
            "the record is %(size)s bytes; at most %(limit)s are read",
            size=size,
            limit=MAX_BYTES,
        )


class RecordTooSlow(RecordError):
    def __init__(self, line: int, seconds: float, plies: int) -> None:
        super().__init__(
            line,
            "too-slow",
            "checking the record took over %(seconds)s seconds of CPU (%(plies)s plies checked); "
            "send a shorter one",
            seconds=f"{seconds:g}",
            plies=plies,
        )


def decode(data: bytes) -> str:
    """The record's text; a record must be UTF-8 (a leading byte-order mark is dropped)."""
    if len(data) > MAX_BYTES:
        raise RecordTooLarge(len(data))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RecordError(
            line, "not-utf8", "the record is not UTF-8 text (byte %(offset)s)", offset=exc.start
        ) from None
    return text.removeprefix("\ufeff")


@dataclass
class _Token:
    text: str
    line: int


def _game_named(value: str) -> str | None:
    wanted = value.strip().lower()
    for engine in games.all():
        if wanted in (engine.name, engine.title.lower()):
            return engine.name
    aliases = {"nine men's morris": "morris", "molino": "morris", "mill": "morris", "neutron": "bobail"}
    return aliases.get(wanted)


def _read_tags(lines: list[str]) -> tuple[list[tuple[str, str, int]], int]:
    """The tag pairs (name, value, line) and the index of the first movetext line."""
    tags: list[tuple[str, str, int]] = []
    seen: set[str] = set()
    index = 0
    while index < len(lines):
        raw = lines[index].strip()
        number = index + 1
        if not raw:
            index += 1
            continue
        if not raw.startswith("["):
            break
        found = _TAG.match(raw)
        if found is None:
            if index == len(lines) - 1 and not raw.endswith("]"):
                raise RecordError(number, "truncated", "the record ends inside a tag pair")
            raise RecordError(
                number,
                "bad-tag",
                'a tag pair is written [Name "value"]; this line is not one: %(text)s',
                text=raw[:60],
            )
        name, value = found.group(1), _unquote(found.group(2))
        if name in seen:
            raise RecordError(number, "bad-tag", "the tag %(name)s appears twice", name=name)
        seen.add(name)
        tags.append((name, value, number))
        index += 1
    return tags, index


def _tokens(lines: list[str], start: int) -> list[_Token]:
    """Movetext words with their line numbers; comments and annotation glyphs dropped."""
    out: list[_Token] = []
    in_comment_from: int | None = None
    for index in range(start, len(lines)):
        number = index + 1
        text = lines[index]
        position = 0
        while position < len(text):
            if in_comment_from is not None:
                end = text.find("}", position)
                if end < 0:
                    break
                in_comment_from = None
                position = end + 1
                continue
            char = text[position]
            if char == "{":
                in_comment_from = number
                position += 1
                continue
            if char == ";":
                break
            if char in "()":
                raise RecordError(number, "variation", "variations in parentheses are not supported")
            if char == "[":
                raise RecordError(number, "bad-tag", "a tag pair after the moves began")
            if char == "}":
                # A word never starts at "}", so without this the loop below would not move on.
                raise RecordError(number, "stray-brace", "a } closes a comment that was never opened")
            if char.isspace():
                position += 1
                continue
            end = position
            while end < len(text) and not text[end].isspace() and text[end] not in "{};()":
                end += 1
            word = text[position:end]
            position = end
            if word.startswith("$") or word in {"!", "?", "!!", "??", "!?", "?!"}:
                continue  # annotation glyphs say nothing about the moves
            out.append(_Token(word.rstrip("!?"), number))
    if in_comment_from is not None:
        raise RecordError(in_comment_from, "truncated", "a comment opened with { is never closed")
    return out


@dataclass
class _Ply:
    text: str
    line: int


def _group(game_name: str, words: list[_Token]) -> list[_Ply]:
    """Words between two move numbers, grouped into plies (see the module's note)."""
    if game_name == "bobail":
        plies = []
        for i in range(0, len(words), 2):
            pair = words[i : i + 2]
            plies.append(_Ply(" ".join(w.text for w in pair), pair[0].line))
        return plies
    if game_name == "bilsang":
        plies = []
        for word in words:
            if word.text in ("h", "v", "x") or not plies:
                plies.append(_Ply(word.text, word.line))
            else:
                plies[-1].text += " " + word.text
        return plies
    return [_Ply(w.text, w.line) for w in words]


@dataclass
class _Segment:
    number: int | None
    second: bool  # "N..." : the segment starts with the second player's ply
    line: int
    words: list[_Token] = field(default_factory=list)


def _segments(tokens: list[_Token]) -> tuple[list[_Segment], _Token | None]:
    """Split at move numbers; the result token (if any) is returned apart."""
    result: _Token | None = None
    segments: list[_Segment] = []
    for token in tokens:
        if result is not None:
            raise RecordError(
                token.line, "after-result", "text after the result: %(text)s", text=token.text[:40]
            )
        if token.text in ALL_RESULT_TOKENS:
            result = token
            continue
        marker = _MARKER.match(token.text)
        if marker is not None:
            segments.append(_Segment(int(marker.group(1)), marker.group(2) == "...", token.line))
            rest = marker.group(3).lstrip(".")
            if rest:
                segments[-1].words.append(_Token(rest, token.line))
            continue
        if not segments:
            segments.append(_Segment(None, False, token.line))
        segments[-1].words.append(token)
    return segments, result


def parse(text: str, game_name: str | None = None, seconds: float | None = None) -> GameRecord:
    """Read a record (or a bare list of moves), checking every move with the engine.

    ``game_name`` is which game a record without a ``Variant`` (or ``GameType``)
    tag is, as for a bare list of moves. Raises ``RecordError`` naming the first
    bad line. ``seconds`` bounds the work, in this thread's CPU time (a busy machine or
    other threads holding the GIL do not spend it): past it, the replay stops at the
    ply it reached with a ``RecordTooSlow`` (a server gives each record it is sent a budget).
    """
    deadline = None if seconds is None else time.thread_time() + seconds
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise RecordTooLarge(len(text.encode("utf-8")))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    tags, body_start = _read_tags(lines)
    tag_value = {name: (value, line) for name, value, line in tags}
    game_name = _which_game(tag_value, game_name)
    game = games.get(game_name)

    initial_text = standard_start(game)
    if "Position" in tag_value:
        value, line = tag_value["Position"]
        try:
            initial_text = game.format_position(game.parse_position(value))
        except BadPosition as exc:
            raise RecordError(
                line, "bad-position", "the Position tag is not a position: %(reason)s", reason=str(exc)
            ) from None
    declared = None
    if "Result" in tag_value:
        value, line = tag_value["Result"]
        declared = _read_result(game_name, value, line)
    if "Date" in tag_value:
        value, line = tag_value["Date"]
        if value and not _DATE.match(value):
            raise RecordError(
                line, "bad-tag", "the Date tag is written YYYY.MM.DD, not %(text)s", text=value[:20]
            )
    termination = None
    if "Termination" in tag_value:
        value, line = tag_value["Termination"]
        if value.lower() in PGN_TERMINATIONS:
            mapped = PGN_TERMINATIONS[value.lower()]
            termination = None if mapped is None else (mapped, line)
        elif value not in ENGINE_REASONS + SITE_REASONS:
            raise RecordError(
                line, "bad-tag", "the Termination tag names no known ending: %(text)s", text=value[:40]
            )
        else:
            termination = (value, line)

    segments, result = _segments(_tokens(lines, body_start))
    numbered = any(s.number is not None for s in segments)
    state = game.parse_position(initial_text)
    offset = 0 if game.to_move(state) == game.sides[0] else 1
    positions = [initial_text]
    states = [state]
    repetitions: Counter[Hashable] = Counter()
    _count_repetition(game, state, repetitions)
    moves: list[str] = []
    outcome: Outcome | None = game.outcome(state)
    last_line = len(lines)
    truncated_hint = declared is not None and result is None
    for segment in segments:
        ply_index = len(moves)
        k = ply_index + offset
        if numbered:
            expected_second = k % 2 == 1
            expected = f"{k // 2 + 1}{'...' if expected_second else '.'}"
            found = f"{segment.number}{'...' if segment.second else '.'}"
            if segment.number is None or found != expected:
                where = segment.line
                if segment.number is None:
                    raise RecordError(
                        where,
                        "move-number",
                        "a move number is missing; %(expected)s was expected",
                        expected=expected,
                    )
                raise RecordError(
                    where,
                    "move-number",
                    "move number %(found)s where %(expected)s was expected",
                    found=found,
                    expected=expected,
                )
        plies = _group(game_name, segment.words)
        if numbered:
            room = 1 if segment.second else 2
            if not plies:
                if truncated_hint or segment is segments[-1]:
                    raise RecordError(segment.line, "truncated", "the record ends after a move number")
                raise RecordError(segment.line, "move-number", "a move number with no move after it")
            if len(plies) > room:
                raise RecordError(
                    plies[room].line,
                    "move-number",
                    "a move number is missing before %(text)s",
                    text=plies[room].text[:40],
                )
        for ply in plies:
            if deadline is not None and time.thread_time() > deadline:
                raise RecordTooSlow(ply.line, seconds or 0.0, len(moves))
            if len(moves) >= MAX_PLIES:
                raise RecordError(ply.line, "too-long", "more than %(limit)s plies", limit=MAX_PLIES)
            number = len(moves) + 1
            if outcome is not None:
                raise RecordError(
                    ply.line,
                    "after-end",
                    "ply %(ply)s (%(move)s) comes after the game was over",
                    ply=number,
                    move=ply.text[:40],
                )
            try:
                move = game.parse_move(state, ply.text)
            except (BadMove, IllegalMove) as exc:
                if truncated_hint and ply is plies[-1] and segment is segments[-1]:
                    raise RecordError(
                        ply.line,
                        "truncated",
                        "the record seems cut short: ply %(ply)s (%(move)s) is incomplete or wrong, "
                        "and the result is missing",
                        ply=number,
                        move=ply.text[:40],
                    ) from None
                kind = "bad-move" if isinstance(exc, BadMove) else "illegal-move"
                raise RecordError(
                    ply.line,
                    kind,
                    "ply %(ply)s, %(move)s: %(reason)s",
                    ply=number,
                    move=ply.text[:40],
                    reason=str(exc),
                ) from None
            state = game.apply(state, move)
            moves.append(game.format_move(move))
            positions.append(game.format_position(state))
            states.append(state)
            outcome = _outcome(game, state, repetitions)
    if result is not None:
        token_result = _read_result(game_name, result.text, result.line)
        if declared is not None and token_result != declared:
            raise RecordError(
                result.line,
                "bad-result",
                "the result %(found)s differs from the Result tag",
                found=result.text,
            )
        declared = token_result
        last_line = result.line
    elif truncated_hint and declared != "*":
        raise RecordError(
            last_line, "truncated", "the record seems cut short: the moves do not end with the result"
        )
    winner, reason = _settle(game, outcome, declared, termination, last_line)
    kept = tuple((name, value) for name, value, _line in tags if name not in DERIVED_TAGS)
    return GameRecord(game_name, initial_text, tuple(moves), winner, reason, kept, tuple(positions))


def _which_game(tag_value: dict[str, tuple[str, int]], given: str | None) -> str:
    named: str | None = None
    for tag in ("Variant", "GameType"):
        if tag in tag_value:
            value, line = tag_value[tag]
            found = _game_named(value)
            if found is None:
                raise RecordError(
                    line,
                    "bad-tag",
                    "the %(tag)s tag names no game of this site: %(text)s",
                    tag=tag,
                    text=value[:40],
                )
            if named is not None and found != named:
                raise RecordError(line, "bad-tag", "the Variant and GameType tags name different games")
            named = found
    if named is not None:
        return named
    if given is None:
        raise RecordError(None, "no-game", "the record does not say which game it is: choose the game")
    try:
        return games.get(given).name
    except UnknownGame as exc:
        raise RecordError(None, "no-game", "%(reason)s", reason=str(exc)) from None


def _read_result(game_name: str, token: str, line: int) -> str:
    """'first', 'second', 'draw' or '*'."""
    if token == UNFINISHED:
        return UNFINISHED
    for forms in (RESULT_FORMS[game_name], EXTRA_RESULT_FORMS.get(game_name, ())):
        for name, form in zip(("first", "second", "draw"), forms, strict=False):
            if token == form:
                return name
    allowed = ", ".join((*RESULT_FORMS[game_name], UNFINISHED))
    raise RecordError(
        line,
        "bad-result",
        "%(found)s is not a result of this game (one of %(allowed)s)",
        found=token[:20],
        allowed=allowed,
    )


def _count_repetition(game: Game, state: Any, counts: Counter[Hashable]) -> int:  # type: ignore[type-arg]
    key = game.repetition_key(state)
    if key is None:
        return 0
    counts[key] += 1
    return counts[key]


def _outcome(game: Game, state: Any, counts: Counter[Hashable]) -> Outcome | None:  # type: ignore[type-arg]
    # Game.outcome_after over the whole history, counted incrementally: long records
    # would otherwise cost a pass over every earlier position per ply.
    seen = _count_repetition(game, state, counts)
    result = game.outcome(state)
    if result is not None:
        return result
    if seen >= 3:
        return Outcome(None, "repetition")
    return None


def _settle(
    game: Game,  # type: ignore[type-arg]
    outcome: Outcome | None,
    declared: str | None,
    termination: tuple[str, int] | None,
    line: int,
) -> tuple[str | None, str | None]:
    """(winner, reason) from what the moves prove and what the record says."""
    first, second = game.sides
    if outcome is not None:
        proved = "draw" if outcome.winner is None else ("first" if outcome.winner == first else "second")
        if declared not in (None, UNFINISHED, proved):
            raise RecordError(
                line,
                "bad-result",
                "the record says %(found)s, but the moves end the game as %(proved)s",
                found=declared,
                proved=proved,
            )
        if termination is not None and termination[0] != outcome.reason:
            raise RecordError(
                termination[1],
                "bad-tag",
                "Termination says %(found)s, but the game ended by %(proved)s",
                found=termination[0],
                proved=outcome.reason,
            )
        return outcome.winner, outcome.reason
    if termination is not None and termination[0] in ENGINE_REASONS:
        raise RecordError(
            termination[1],
            "bad-tag",
            "Termination says %(found)s, but the moves do not end the game",
            found=termination[0],
        )
    winner = None if declared == "draw" else (first if declared == "first" else second)
    if termination is None:
        # A result the moves do not prove, with no word on how: what players usually do.
        if declared in (None, UNFINISHED):
            return None, None
        return winner, ("agreement" if declared == "draw" else "resignation")
    ending, where = termination
    if declared in (None, UNFINISHED):
        if ending in NO_RESULT_ENDINGS:
            return None, ending
        raise RecordError(where, "bad-tag", "Termination is given for an unfinished game")
    if ending in NO_RESULT_ENDINGS:
        raise RecordError(
            where, "bad-tag", "Termination %(found)s is a game with no result: its Result is *", found=ending
        )
    if declared == "draw" and ending not in DRAWN_ENDINGS:
        raise RecordError(
            where,
            "bad-tag",
            "a draw before the end of the game is by %(allowed)s, not %(found)s",
            allowed=", ".join(DRAWN_ENDINGS),
            found=ending,
        )
    if declared != "draw" and ending not in DECISIVE_ENDINGS:
        raise RecordError(
            where,
            "bad-tag",
            "a win before the end of the game is by %(allowed)s, not %(found)s",
            allowed=", ".join(DECISIVE_ENDINGS),
            found=ending,
        )
    return winner, ending
