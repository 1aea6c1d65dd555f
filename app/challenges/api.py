"""``/api/challenges``: challenge an account, list, accept, decline, cancel (issue 32)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Path, Request, Response
from pydantic import BaseModel, Field, StrictBool

from app.accounts.api import SESSION, me
from app.challenges.service import DECLINE_REASONS, ChallengeService
from app.rate_limits import request_client_hash
from app.schemas import Strict, TimeControlBody, documented

router = APIRouter(prefix="/api", tags=["challenges"])

ID = Path(max_length=16, pattern=r"^[A-Za-z0-9_-]{1,16}$", description="the challenge's id")


class ChallengeCreate(Strict):
    #: The challenged account's username.
    to: str = Field(min_length=1, max_length=40)
    game: str = Field(max_length=32, description="bashni, morris, bobail or bilsang")
    #: null: untimed.
    time_control: TimeControlBody | None = None
    rated: StrictBool = False
    #: The challenger's side.
    side: Literal["first", "second", "random"] = "random"


class ChallengeDecline(Strict):
    reason: Literal[tuple(DECLINE_REASONS)] | None = None  # type: ignore[valid-type]


class ChallengePublic(BaseModel):
    id: str
    #: The challenger's and the challenged account's usernames.
    from_: str = Field(alias="from", serialization_alias="from")
    to: str
    game: str
    time_control: dict[str, Any] | None
    rated: bool
    side: str
    #: pending | accepting | accepted | declined | cancelled | expired
    status: str
    decline_reason: str | None
    match_id: str | None
    created_at: str
    expires_at: str


class ChallengeLists(BaseModel):
    #: Waiting for your answer, oldest first.
    incoming: list[ChallengePublic]
    #: Yours from the last 24 hours, newest first, whatever became of them.
    outgoing: list[ChallengePublic]


class Accepted(BaseModel):
    match_id: str


_COMMON = {
    "_401": "not signed in: challenges are between accounts",
    "_429": "too many requests from this client",
    "_503": "the database is unavailable for a moment",
}
_POSTS = {"_400": "the body is not UTF-8 JSON, or nested too deep", "_413": "the body is over 64 KiB"}
CREATE = documented(
    **_COMMON,
    **_POSTS,
    _403="the player does not take challenges from you; or a cross-site request",
    _404="there is no player with that username",
    _409="you already challenged this player, or have five challenges waiting (twenty from your network)",
    _422="yourself, an unknown game or side, a time control we do not offer, or a rated game never rated",
)
LIST = documented(**_COMMON, _422="not a valid request")
ANSWER = documented(
    **_COMMON,
    **_POSTS,
    _403="a cross-site request",
    _404="no such challenge for you to answer",
    _409="the challenge is no longer waiting for an answer",
    _422="an unknown reason, or a bad id",
)
CANCEL = documented(
    **_COMMON,
    _403="a cross-site request",
    _404="no such challenge of yours",
    _409="the challenge is no longer waiting for an answer",
    _422="a bad id",
)


def service(request: Request) -> ChallengeService:
    state = request.app.state
    found = getattr(state, "challenges", None)
    if found is None:
        found = state.challenges = ChallengeService(state.sessions, state.matches, state.matches.clock)
        notifier = getattr(state, "notifier", None)
        if notifier is not None:
            found.on_received = notifier.challenge_received
            found.on_accepted = notifier.challenge_accepted
    return found


@router.post(
    "/challenges",
    status_code=201,
    response_model=ChallengePublic,
    responses=CREATE,
    operation_id="create_challenge",
    dependencies=SESSION,
)
def create_challenge(body: ChallengeCreate, request: Request) -> dict[str, Any]:
    """Challenge an account to a game. It lives 24 hours; a real-time or untimed one only
    while you are on the site. The player sees it on any page and by push."""
    control = body.time_control.model_dump() if body.time_control is not None else None
    return service(request).create(
        me(request),
        body.to,
        body.game,
        control,
        body.rated,
        body.side,
        client_key=request_client_hash(request.scope),
    )


@router.get(
    "/challenges",
    response_model=ChallengeLists,
    responses=LIST,
    operation_id="list_challenges",
    dependencies=SESSION,
)
def list_challenges(request: Request) -> dict[str, Any]:
    """The challenges waiting for your answer, and yours of the last 24 hours."""
    return service(request).lists(me(request))


@router.post(
    "/challenges/{challenge_id}/accept",
    response_model=Accepted,
    responses=ANSWER,
    operation_id="accept_challenge",
    dependencies=SESSION,
)
def accept_challenge(request: Request, challenge_id: str = ID) -> dict[str, str]:
    """Accept: the match is made with both of you seated, and the challenger is told."""
    return {"match_id": service(request).accept(me(request), challenge_id)}


@router.post(
    "/challenges/{challenge_id}/decline",
    status_code=204,
    responses=ANSWER,
    operation_id="decline_challenge",
    dependencies=SESSION,
)
def decline_challenge(
    request: Request, body: ChallengeDecline | None = None, challenge_id: str = ID
) -> Response:
    """Decline, with a reason the challenger reads in its own language: generic, later,
    too_fast, too_slow, casual, rated or game."""
    service(request).decline(me(request), challenge_id, body.reason if body is not None else None)
    return Response(status_code=204)


@router.delete(
    "/challenges/{challenge_id}",
    status_code=204,
    responses=CANCEL,
    operation_id="cancel_challenge",
    dependencies=SESSION,
)
def cancel_challenge(request: Request, challenge_id: str = ID) -> Response:
    """Withdraw a challenge of yours that is still waiting."""
    service(request).cancel(me(request), challenge_id)
    return Response(status_code=204)
