"""Challenges in the database: make, list, accept (exactly once), decline, cancel, presence.

An account challenges another by username with a game, a time control, rated or casual,
and its own side. The challenged sees it on any page (the header's count, polled) and by
push, and accepts or declines with a reason. Accepting makes the match with the match
service's own ``create`` (the challenger seated) and ``join`` (the challenged), after a
conditional update from ``pending`` to ``accepting`` has made this request the only one
that may: two accepts at once, in one process or two, make one match.

A challenge lives 24 hours; a real-time or untimed one only while the challenger is on
the site (its pages' poll stamps ``last_seen_at``; unseen for ``PRESENCE_GRACE`` it is
dead), since nobody wants to accept a game whose other player has gone. Death is a
predicate in every query (``alive``), as for seeks: no worker.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

import games
from app.challenges.models import Challenge
from app.chat.models import ChatBlock
from app.db import reading
from app.matches.model import aware
from app.matches.service import MatchService
from app.models import Account
from app.ratings.wiring import check_rated
from app.services import clocks as timing
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.texts import N_

LIFETIME = timedelta(hours=24)
PRESENCE_GRACE = timedelta(seconds=30)
#: Pending challenges one account, and one address, may have made at once.
MAX_PENDING_PER_ACCOUNT = 5
MAX_PENDING_PER_ADDRESS = 20
SIDES = ("first", "second", "random")
#: Why a challenge was declined: a key each reader sees in its own language.
DECLINE_REASONS: dict[str, str] = {
    "generic": N_("I am not taking this challenge."),
    "later": N_("Not now, please ask me later."),
    "too_fast": N_("This time control is too fast for me."),
    "too_slow": N_("This time control is too slow for me."),
    "casual": N_("Please send me a casual game instead."),
    "rated": N_("Please send me a rated game instead."),
    "game": N_("I would rather play another game."),
}
NO_SUCH = N_("there is no such challenge")

#: Tells the challenged (a challenge for you) and the challenger (accepted): the push
#: notifier, when the site sends pushes. Arguments: the account's holder hash, the other
#: account's username, the game, the URL to open.
Tell = Callable[[str, str, str, str], None]


def alive(moment: datetime) -> ColumnElement[bool]:
    """A pending challenge that has not died of age or of its challenger's absence."""
    return and_(
        Challenge.status == "pending",
        Challenge.expires_at > moment,
        or_(Challenge.needs_presence.is_(False), Challenge.last_seen_at >= moment - PRESENCE_GRACE),
    )


def blocked_either_way(db: Session, one: Account, other: Account) -> bool:
    """Either account has blocked the other (the chat's block list, issue 33): a blocked
    account cannot challenge, and one does not challenge an account it has blocked."""
    pair = or_(
        and_(ChatBlock.blocker == one.holder, ChatBlock.blocked_id == other.id),
        and_(ChatBlock.blocker == other.holder, ChatBlock.blocked_id == one.id),
    )
    return db.scalar(select(ChatBlock.blocker).where(pair).limit(1)) is not None


def _control(stored: str) -> dict[str, Any] | None:
    parsed = timing.loads(stored) if stored else None
    return parsed.as_dict() if parsed is not None else None


class ChallengeService:
    def __init__(
        self, sessions: sessionmaker[Session], matches: MatchService, clock: Callable[[], datetime]
    ) -> None:
        self.sessions = sessions
        self.matches = matches
        self.clock = clock
        self.on_received: Tell = lambda *_: None
        self.on_accepted: Tell = lambda *_: None

    # ------------------------------------------------------------ making

    def create(
        self,
        challenger: Account,
        to: str,
        game: str,
        time_control: dict[str, Any] | None,
        rated: bool,
        side: str,
        client_key: str | None = None,
    ) -> dict[str, Any]:
        if game not in games.names():
            known = ", ".join(games.names())
            raise Invalid(N_("unknown game %(game)s; the games are %(games)s"), game=game[:32], games=known)
        if side not in SIDES:
            raise Invalid(N_("the side is first, second or random"))
        try:
            control = timing.parse(time_control)
        except timing.TimeControlError as exc:
            raise Invalid(str(exc)) from None
        if rated:
            kind = control.kind if control is not None else None
            check_rated(
                signed_in=True,
                game=game,
                time_control_kind=kind,
                against_computer=False,
                options=None,
                position=None,
            )
        moment = self.clock()
        with self.sessions.begin() as db:
            target = db.scalar(select(Account).where(Account.username_key == to.lower()[:40]))
            if target is None:
                # Profiles are public (/@/{name}), so saying so reveals nothing new.
                raise NotFound(N_("there is no player named %(name)s"), name=to[:40])
            if target.id == challenger.id:
                raise Invalid(N_("you cannot challenge yourself"))
            if blocked_either_way(db, challenger, target):
                raise Forbidden(N_("this player does not take challenges from you"))
            self._check_limits(db, challenger.id, target.id, client_key, moment)
            challenge = Challenge(
                id=secrets.token_urlsafe(9),
                from_account_id=challenger.id,
                to_account_id=target.id,
                game=game,
                time_control=timing.dumps(control) or "",
                rated=rated,
                side=side,
                status="pending",
                client_key=client_key,
                needs_presence=control is None or control.realtime,
                created_at=moment,
                last_seen_at=moment,
                expires_at=moment + LIFETIME,
            )
            db.add(challenge)
            db.flush()
            answer = self._public(challenge, challenger.username, target.username, moment)
            holder = target.holder
        self.on_received(holder, challenger.username, game, "/challenges")
        return answer

    def _check_limits(
        self, db: Session, challenger: int, target: int, client_key: str | None, moment: datetime
    ) -> None:
        pending = select(func.count()).select_from(Challenge).where(alive(moment))
        if db.scalar(
            pending.where(Challenge.from_account_id == challenger, Challenge.to_account_id == target)
        ):
            raise Conflict(N_("you have already challenged this player; wait for the answer"))
        if (
            db.scalar(pending.where(Challenge.from_account_id == challenger)) or 0
        ) >= MAX_PENDING_PER_ACCOUNT:
            raise Conflict(N_("you have five challenges waiting for an answer; cancel one first"))
        from_here = 0 if client_key is None else db.scalar(pending.where(Challenge.client_key == client_key))
        if (from_here or 0) >= MAX_PENDING_PER_ADDRESS:
            raise Conflict(N_("too many challenges from your network"))

    # ------------------------------------------------------------ reading

    def lists(self, account: Account, stamp: bool = True) -> dict[str, list[dict[str, Any]]]:
        """Incoming pending challenges (alive), and the account's own made in the last
        day (any status: it sees what became of them). Asking stamps the account's
        presence on its own live challenges (``stamp``; the page's poll has just done it
        through ``waiting_for``), and reads without a lock when none is alive."""
        moment = self.clock()
        with reading(self.sessions.kw["bind"]) as conn, self.sessions(bind=conn) as db:
            incoming = list(
                db.scalars(
                    select(Challenge)
                    .where(Challenge.to_account_id == account.id, alive(moment))
                    .order_by(Challenge.created_at)
                )
            )
            outgoing = list(
                db.scalars(
                    select(Challenge)
                    .where(Challenge.from_account_id == account.id, Challenge.created_at > moment - LIFETIME)
                    .order_by(Challenge.created_at.desc())
                )
            )
            names = self._names(db, incoming + outgoing)
            shown = {
                "incoming": [
                    self._public(c, names[c.from_account_id], account.username, moment) for c in incoming
                ],
                "outgoing": [
                    self._public(c, account.username, names[c.to_account_id], moment) for c in outgoing
                ],
            }
        if stamp and any(c["status"] in ("pending", "accepting") for c in shown["outgoing"]):
            with self.sessions.begin() as db:
                self._seen(db, account.id, moment)
        return shown

    def waiting_for(self, account: Account) -> tuple[int, str | None]:
        """The header's poll: how many challenges wait for this account's answer, and the
        match of one of its own challenges accepted since it last looked (told once).
        Being asked also stamps the account's presence on its real-time challenges.

        Every signed-in page asks every 10 s, so it reads first, without a lock, and
        writes only when there is something to write: an own challenge still alive (its
        presence) or an accepted one not yet told. Before, every poll took SQLite's write
        lock (``BEGIN IMMEDIATE``) for an update that mostly changed nothing.
        """
        moment = self.clock()
        with reading(self.sessions.kw["bind"]) as conn, self.sessions(bind=conn) as db:
            count = db.scalar(
                select(func.count())
                .select_from(Challenge)
                .where(Challenge.to_account_id == account.id, alive(moment))
            )
            waiting_own = db.scalar(
                select(func.count())
                .select_from(Challenge)
                .where(Challenge.from_account_id == account.id, alive(moment))
            )
            accepted = db.execute(
                select(Challenge.id, Challenge.match_id).where(
                    Challenge.from_account_id == account.id,
                    Challenge.status == "accepted",
                    Challenge.seen_by_challenger.is_(False),
                )
            ).first()
        told: str | None = None
        if waiting_own or accepted is not None:
            with self.sessions.begin() as db:
                if waiting_own:
                    self._seen(db, account.id, moment)
                if accepted is not None:
                    # Told once, even to two tabs polling at the same moment.
                    marked = db.execute(
                        update(Challenge)
                        .where(Challenge.id == accepted.id, Challenge.seen_by_challenger.is_(False))
                        .values(seen_by_challenger=True)
                    )
                    told = accepted.match_id if marked.rowcount == 1 else None  # type: ignore[attr-defined]
        return int(count or 0), told

    def _seen(self, db: Session, account_id: int, moment: datetime) -> None:
        db.execute(
            update(Challenge)
            .where(Challenge.from_account_id == account_id, alive(moment))
            .values(last_seen_at=moment)
        )

    @staticmethod
    def _names(db: Session, found: list[Challenge]) -> dict[int, str]:
        ids = {c.from_account_id for c in found} | {c.to_account_id for c in found}
        rows = db.execute(select(Account.id, Account.username).where(Account.id.in_(ids))).all()
        return {id_: name for id_, name in rows}

    def _public(self, c: Challenge, sender: str, receiver: str, moment: datetime) -> dict[str, Any]:
        status = c.status
        if status in ("pending", "accepting") and (
            aware(c.expires_at) <= moment
            or (c.needs_presence and aware(c.last_seen_at) < moment - PRESENCE_GRACE)
        ):
            status = "expired"
        return {
            "id": c.id,
            "from": sender,
            "to": receiver,
            "game": c.game,
            "time_control": _control(c.time_control),
            "rated": c.rated,
            "side": c.side,
            "status": status,
            "decline_reason": c.decline_reason,
            "match_id": c.match_id,
            "created_at": aware(c.created_at).isoformat(),
            "expires_at": aware(c.expires_at).isoformat(),
        }

    # ------------------------------------------------------------ answering

    def accept(self, account: Account, challenge_id: str) -> str:
        """Make the match (once); the challenger is told. Returns the match id."""
        moment = self.clock()
        with self.sessions.begin() as db:
            claimed = db.execute(
                update(Challenge)
                .where(Challenge.id == challenge_id, Challenge.to_account_id == account.id, alive(moment))
                .values(status="accepting", answered_at=moment)
            ).rowcount  # type: ignore[attr-defined]
            challenge = db.get(Challenge, challenge_id)
            if challenge is None or challenge.to_account_id != account.id:
                raise NotFound(NO_SUCH)
            if not claimed:
                raise Conflict(N_("this challenge can no longer be accepted"))
            challenger = db.get(Account, challenge.from_account_id)
            if challenger is None:  # closed since; its challenges went with it
                raise NotFound(NO_SUCH)
            settings = (challenge.game, challenge.side, challenge.time_control, challenge.rated)
            sender = (challenger.holder, challenger.username)
        game, side, control, rated = settings
        try:
            made = self.matches.create(
                game,
                sender[1],
                side,
                sender[0],
                time_control=_control(control),
                rated=rated,
            )
            match_id = made.match.id
            self.matches.join(match_id, account.username, account.holder)
        except BaseException:
            with self.sessions.begin() as db:
                db.execute(update(Challenge).where(Challenge.id == challenge_id).values(status="pending"))
            raise
        with self.sessions.begin() as db:
            db.execute(
                update(Challenge)
                .where(Challenge.id == challenge_id)
                .values(status="accepted", match_id=match_id)
            )
        self.on_accepted(sender[0], account.username, game, f"/matches/{match_id}")
        return match_id

    def decline(self, account: Account, challenge_id: str, reason: str | None) -> None:
        if reason is not None and reason not in DECLINE_REASONS:
            raise Invalid(N_("the reason is one of %(reasons)s"), reasons=", ".join(DECLINE_REASONS))
        values = {"status": "declined", "decline_reason": reason or "generic"}
        self._end(account, challenge_id, Challenge.to_account_id, values)

    def cancel(self, account: Account, challenge_id: str) -> None:
        self._end(account, challenge_id, Challenge.from_account_id, {"status": "cancelled"})

    def _end(self, account: Account, challenge_id: str, whose: Any, values: dict[str, Any]) -> None:
        """Answer or withdraw a pending challenge whose ``whose`` (the challenged's or the
        challenger's column) is this account; otherwise nothing changes and ``_refuse``
        says why."""
        moment = self.clock()
        with self.sessions.begin() as db:
            done = db.execute(
                update(Challenge)
                .where(Challenge.id == challenge_id, whose == account.id, alive(moment))
                .values(**values, answered_at=moment)
            ).rowcount  # type: ignore[attr-defined]
            if not done:
                self._refuse(db, challenge_id, account.id, whose.key)

    @staticmethod
    def _refuse(db: Session, challenge_id: str, account_id: int, whose: str) -> None:
        """Nothing changed: 404 for a challenge that is not this account's to answer (or
        cancel), 409 for one that is but is no longer pending."""
        challenge = db.get(Challenge, challenge_id)
        owner = None if challenge is None else getattr(challenge, whose)
        if owner != account_id:
            raise NotFound(NO_SUCH)
        raise Conflict(N_("this challenge is no longer waiting for an answer"))


def challenges_export(db: Session, account_id: int) -> list[dict[str, Any]]:
    """The account's challenges, made and received (the personal-data export): the other
    account's name, the settings and what became of each."""
    rows = list(
        db.scalars(
            select(Challenge)
            .where(or_(Challenge.from_account_id == account_id, Challenge.to_account_id == account_id))
            .order_by(Challenge.created_at)
        )
    )
    names = ChallengeService._names(db, rows)
    return [
        {
            "made": c.from_account_id == account_id,
            "other": names.get(c.to_account_id if c.from_account_id == account_id else c.from_account_id),
            "game": c.game,
            "time_control": _control(c.time_control),
            "rated": c.rated,
            "side": c.side,
            "status": c.status,
            "decline_reason": c.decline_reason,
            "match_id": c.match_id,
            "created_at": aware(c.created_at).isoformat(),
        }
        for c in rows
    ]
