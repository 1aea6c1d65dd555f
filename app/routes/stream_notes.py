"""What a match page's event stream tells besides the match's versions: the things that
change without a version, which the page used to poll for (issue 28: an idle match page
asks for nothing).

- ``spectators``: how many watch, when that changed (``app.events.WATCHERS``).
- ``claims``: a player's abandonment claim, when it comes or goes (looked at every
  ``CLAIMS_EVERY`` seconds in a real-time game being played; absence is not a change).
- ``badge``: a signed-in viewer's challenges link in the header, when it changed, looked
  at every ``BADGE_EVERY`` seconds; the look also keeps the viewer's real-time challenges
  alive, as the header's poll does on every other page.

None of these events has an ``id``: the stream's ``Last-Event-ID`` stays the version.
"""

from __future__ import annotations

import time

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from app.accounts.identity import signed_in
from app.challenges.api import service as challenges
from app.fanout import sse_message
from app.matches.service import MatchService
from app.models import Account
from app.web import page_context, templates

CLAIMS_EVERY = 5.0
BADGE_EVERY = 10.0


class Notes:
    """One stream's notes: when each is next due, and what the page was last told."""

    def __init__(self, request: Request, match_id: str, seat_id: int | None, account: Account | None) -> None:
        self.request = request
        self.match_id = match_id
        self.seat_id = seat_id
        self.account = account
        now = time.monotonic()
        # When each look is due (None: not until the match changes, or never).
        self.claims_at: float | None = now if seat_id is not None else None
        self.badge_at: float | None = now if account is not None else None
        self.claims_told: bool | None = None  # None: what the page shows is not known
        self.claims_never = False  # no claim can arise in this match (not real time)
        self.badge_told: tuple[int, str | None] | None = None
        self.count_told: int | None = None

    @classmethod
    async def of(cls, request: Request, match_id: str, seat_id: int | None) -> Notes:
        account = await run_in_threadpool(signed_in, request)
        return cls(request, match_id, seat_id, account)

    def next_at(self) -> float | None:
        due = [at for at in (self.claims_at, self.badge_at) if at is not None]
        return min(due) if due else None

    async def due(self) -> bytes:
        """The events of every look now due (empty if none changes what the page shows)."""
        now = time.monotonic()
        told = b""
        if self.claims_at is not None and now >= self.claims_at:
            told += await self._claims()
        if self.badge_at is not None and now >= self.badge_at:
            told += await self._badge()
        return told

    def view_sent(self) -> None:
        """A view of the match went to the page: it shows the claim as it stood then."""
        if self.seat_id is not None and not self.claims_never:
            self.claims_at, self.claims_told = time.monotonic() + CLAIMS_EVERY, None

    def count(self, count: int) -> bytes:
        if count == self.count_told:
            return b""
        self.count_told = count
        return sse_message("spectators", None, str(count))

    async def _claims(self) -> bytes:
        matches: MatchService = self.request.app.state.matches
        assert self.seat_id is not None
        found = await run_in_threadpool(matches.claim_for, self.match_id, self.seat_id)
        if found is None:
            self.claims_at, self.claims_never = None, True
            return b""
        if found["match"]["status"] != "playing":  # not before the game starts (a new version)
            self.claims_at = None
            return b""
        self.claims_at = time.monotonic() + CLAIMS_EVERY
        away = found["timing"]["away"]
        claimable = away is not None and away != found["seat"]["side"]
        if claimable == self.claims_told:
            return b""
        self.claims_told = claimable
        html = templates.get_template("partials/claims.html").render(page_context(self.request, **found))
        return sse_message("claims", None, html)

    async def _badge(self) -> bytes:
        assert self.account is not None
        self.badge_at = time.monotonic() + BADGE_EVERY
        found = await run_in_threadpool(challenges(self.request).waiting_for, self.account)
        count, accepted = found
        if found == self.badge_told and accepted is None:
            return b""
        self.badge_told = found
        context = page_context(self.request, count=count, accepted=accepted, pushed=True)
        html = templates.get_template("partials/challenge_badge.html").render(context)
        return sse_message("badge", None, html)
