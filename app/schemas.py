"""Pydantic schemas of the JSON API (DESIGN.md's contract), named as a family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, field_validator

from app.services import clocks
from app.services.names import NAME_PATTERN, clean_name

#: The display-name rule, published as the pattern the server applies (names.py).
NAME_RULE: dict[str, Any] = {
    "pattern": NAME_PATTERN,
    "minLength": 1,
    "description": "1-32 characters after trimming; no control or invisible characters; "
    "whitespace inside folds to single spaces",
}


def name_field() -> Any:
    return Field(json_schema_extra=NAME_RULE)


class Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Opponent(Strict):
    """The computer's level: Bashni has the ladder's 18 and 19, the master (about 2 s a move)."""

    level: int = Field(ge=1, le=19)


class RealtimeControl(Strict):
    """Fischer clock: an initial allowance, and an increment added after every move."""

    kind: Literal["realtime"]
    initial_seconds: int = Field(ge=clocks.MIN_INITIAL_SECONDS, le=clocks.MAX_INITIAL_SECONDS)
    increment_seconds: int = Field(default=0, ge=0, le=clocks.MAX_INCREMENT_SECONDS)


class CorrespondenceControl(Strict):
    """Days per move; the allowance is restored after each move."""

    kind: Literal["correspondence"]
    days: Literal[1, 2, 3, 5, 7, 14]


TimeControlBody = Annotated[RealtimeControl | CorrespondenceControl, Field(discriminator="kind")]


class SmallOpponent(Strict):
    """The computer's level: 1..4 (easy to strongest) and 5, the master (about 2 s a move)."""

    level: int = Field(ge=1, le=5)


class _MatchCreate(Strict):
    name: str = name_field()
    side: Literal["first", "second", "random"] = "random"
    public: StrictBool = False
    #: The other games have no rule options: only `{}` or null.
    options: dict[str, StrictBool | StrictInt] | None = Field(default=None, max_length=0)
    #: null (or absent): untimed, as before time controls existed.
    time_control: TimeControlBody | None = None
    #: Start from this position string instead of the game's start (issue 18).
    position: str | None = Field(default=None, max_length=2000)
    rated: StrictBool = Field(
        default=False,
        description=(
            "A rated game (issue 31): needs a signed-in creator (403 otherwise) and a game that can "
            "be rated (422 otherwise: a time control, not against the computer, the standard start, "
            "the game's default rules); joining it needs an account (403); takebacks are refused (409)."
        ),
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class BashniCreate(_MatchCreate):
    game: Literal["bashni"]
    opponent: Opponent | None = None


class MorrisCreate(_MatchCreate):
    game: Literal["morris"]
    opponent: SmallOpponent | None = None


class BobailCreate(_MatchCreate):
    game: Literal["bobail"]
    opponent: SmallOpponent | None = None


class BilsangOptions(Strict):
    """Bilsang's rule options (RULES.md, "Bilsang rule options"); `{}` is free pairs."""

    model_config = ConfigDict(extra="forbid")  # an unknown option is a mistake, not noise

    line: StrictBool = False
    quiet: StrictInt = Field(default=100, ge=100, le=1000)


class BilsangCreate(_MatchCreate):
    game: Literal["bilsang"]
    opponent: SmallOpponent | None = None
    # Narrower than the base's field on purpose (pydantic validates each subclass's own);
    # mypy only sees a subclass changing an attribute's type.
    options: BilsangOptions | None = Field(  # type: ignore[assignment]
        default=None,
        description=(
            "Rule options for the game's start position, fixed for the whole match. Bilsang: "
            "`line` (true: pair moves within one row or column) and `quiet` (100..1000, the plies "
            "without a removal that end the game); absent or null: the game's default for new "
            'matches, Bilsang `{"line": true, "quiet": 300}`; `{}`: none (Bilsang\'s free pairs). '
            "The match's `position` carries them (Bilsang: its ninth field). Unknown options or "
            "values out of range are refused with 422."
        ),
        examples=[{"line": True, "quiet": 300}],
    )


#: One shape per game, told apart by "game", so the document says which levels each takes.
MatchCreate = Annotated[
    BashniCreate | MorrisCreate | BobailCreate | BilsangCreate, Field(discriminator="game")
]


class MatchJoin(Strict):
    name: str = name_field()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class MoveCreate(Strict):
    move: str = Field(min_length=1, max_length=200)
    ply: int = Field(ge=0)


class OfferAction(Strict):
    action: Literal["offer", "accept", "decline"]


class ClaimAction(Strict):
    claim: Literal["win", "draw"]


class MatchCreated(BaseModel):
    id: str
    invite_url: str
    seat: str


class SeatTaken(BaseModel):
    seat: str


class Player(BaseModel):
    side: str
    #: As stored: a person's chosen name, or "Computer N" for a computer (kept as it was).
    name: str
    computer: bool = False
    #: A computer's level (the ladder's opponent number in Bashni); null for a person.
    level: int | None = None
    #: A computer's name as the pages show it in English ("Computer (easy)"); null for a person.
    label: str | None = None


class Result(BaseModel):
    winner: str | None
    reason: str


class RatingChangePublic(BaseModel):
    before: float
    after: float
    delta: float


class MatchPublic(BaseModel):
    id: str
    game: str
    status: Literal["waiting", "playing", "finished"]
    position: str
    ply: int
    to_move: str
    result: Result | None
    moves: list[str]
    players: list[Player]
    version: int
    draw_offer: str | None = None
    takeback_offer: str | None = None
    rematch_id: str | None = None
    #: As given at creation; null when untimed.
    time_control: RealtimeControl | CorrespondenceControl | None = None
    #: Milliseconds each side has left, measured at ``clocks_at``; null when untimed.
    clocks: dict[str, int] | None = None
    #: The side whose clock is counting down (null in a grace period, or when stopped).
    clock_running: str | None = None
    #: When the server measured ``clocks`` (ISO 8601).
    clocks_at: str | None = None
    #: When the side to move runs out (of its grace period, during one), or null.
    deadline: str | None = None
    #: The side to move is making its first move: its clock does not run yet.
    grace: bool = False
    #: Before both sides have moved the match can be aborted without a result.
    abortable: bool = False
    #: The side to move of a real-time match that has been away for a minute (claimable).
    away: str | None = None

    #: On a finished match, the side asking for a rematch (see ``/rematch`` with an action).
    rematch_offer: str | None = None
    #: A rated game (issue 31).
    rated: bool = False
    #: Once a rated match is finished and rated: each side's rating before, after, and
    #: the change (unrounded); null otherwise.
    rating_changes: dict[str, RatingChangePublic] | None = None


class MyMatch(BaseModel):
    id: str
    game: str
    status: Literal["waiting", "playing", "finished"]
    side: str
    opponent: str | None
    your_move: bool
    deadline: str | None
    time_control: RealtimeControl | CorrespondenceControl | None = None
    result: Result | None
    updated_at: str


class MyMatches(BaseModel):
    matches: list[MyMatch]


class LegalMoves(BaseModel):
    ply: int
    moves: list[str]


class ErrorDetail(BaseModel):
    detail: str


class RunningComputerGame(BaseModel):
    """One of the player's games against the computer, listed by the refusal of one too many."""

    id: str
    game: str
    opponent: str
    level: int
    ply: int
    your_move: bool
    ladder: bool
    url: str
    resign: str  # POST it (no body) to resign that game


class ComputerGamesRefusal(ErrorDetail):
    """A 409; when the player already has the most games against the computer going,
    ``games`` lists them (each with its resign call); otherwise absent."""

    games: list[RunningComputerGame] | None = None


def refusals_with_computer_games(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The refusals of a call that starts a game against the computer (409 with its list)."""
    answers = refusals(*codes)
    answers[409] = {**answers[409], "model": ComputerGamesRefusal}
    return answers


class RunCreate(Strict):
    name: str = name_field()

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)


class RunCreated(BaseModel):
    id: str
    opponent: int
    match_id: str


class RunPublic(BaseModel):
    id: str
    name: str
    status: Literal["playing", "finished"]
    opponent: int
    wins: int
    think_ms_won: int
    score: int
    match_id: str | None


class LeaderboardEntry(BaseModel):
    rank: int
    name: str
    wins: int
    avg_think_ms: int | None
    score: int
    finished_at: str | None
    run_id: str
    #: The account's username when the run belongs to an account (added); null for a guest.
    account: str | None = None


class RunInProgress(BaseModel):
    name: str
    #: The opponent being played now (1..18): how far the run has come.
    opponent: int
    wins: int
    avg_think_ms: int | None
    #: The score so far (what the run would score if it ended now).
    score: int
    started_at: str | None
    run_id: str
    account: str | None = None


class Leaderboard(BaseModel):
    #: The ranking: finished runs only.
    entries: list[LeaderboardEntry]
    page: int
    pages: int
    #: Added: the runs still being played, best score first, at most 10 (the same on
    #: every page); never ranked in ``entries`` until they finish.
    in_progress: list[RunInProgress] = []


_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}
_REFUSALS: dict[int, dict[str, Any]] = {
    400: {"description": "the body is not UTF-8 JSON, or nested too deep"},
    403: {"description": "no seat in this match, or a cross-site request"},
    404: {"description": "no such match or run"},
    409: {"description": "the request conflicts with the match's state (or a per-client limit)"},
    413: {"description": "the body is over 64 KiB"},
    422: {"description": "the request is not valid"},
    429: {"description": "too many requests from this client", "headers": _RETRY_AFTER},
    503: {"description": "the database is unavailable for a moment", "headers": _RETRY_AFTER},
}
#: What a reading call and a changing call can be refused with, for the OpenAPI document.
READ_REFUSALS = (404, 422, 429, 503)
WRITE_REFUSALS = (400, 403, 404, 409, 413, 422, 429, 503)


def refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorDetail, **_REFUSALS[code]} for code in codes}


def described(descriptions: Mapping[int, str], *codes: int) -> dict[int | str, dict[str, Any]]:
    """Refusals for the OpenAPI document from a module's own descriptions of each status
    (accounts, chat): the error model, and ``Retry-After`` on 429 and 503."""
    answer: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        entry: dict[str, Any] = {"model": ErrorDetail, "description": descriptions[code]}
        if code in (429, 503):
            entry["headers"] = _RETRY_AFTER
        answer[code] = entry
    return answer


def documented(**codes: str) -> dict[int | str, dict[str, Any]]:
    """Refusals described per operation, as ``_409="what it means here"`` (seeks, challenges)."""
    return {int(code[1:]): {"model": ErrorDetail, "description": what} for code, what in codes.items()}
