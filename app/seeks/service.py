"""Seeks in the database: create (pair at once or wait), list, cancel, presence, expiry.

Pairing happens exactly once however many processes take seeks at the same time:

1. In one transaction the seeker takes the lock of its *bucket* (game, time control,
   rated flag): ``pg_advisory_xact_lock`` on PostgreSQL, SQLite's single writer lock
   (``BEGIN IMMEDIATE``) there. Without it two compatible seeks made at the same moment
   could each find nothing and both wait. Under it the oldest compatible waiting seek is
   read ``FOR UPDATE SKIP LOCKED`` and marked ``pairing`` together with the new seek; or
   the new seek is stored ``waiting``. The commit ends the critical section.
2. The match is made with the match service's own ``create`` (the waiting seeker seated)
   and ``join`` (the new seeker), outside that transaction, so the match rules stay in
   one place. Should that fail, the waiting seek is put back and the new one cancelled.
3. Both seeks become ``paired`` with the match id, and the waiting seeker's event stream
   is told (the broker key ``seek:<id>``, over NOTIFY between processes).

A seek that needs its creator present (real time, untimed) is alive while its event
stream stamps ``last_seen_at``; unseen for ``PRESENCE_GRACE`` it is expired. A
correspondence seek lives until cancelled or ``expires_at`` (7 days). Expiry is a
predicate in every query (``alive``), so no worker has to run for a seek to die; the
rows of a bucket are marked ``expired`` when a seek in it is made.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, func, literal_column, or_, select, text, union, update
from sqlalchemy.orm import Session, sessionmaker

import games
from app.chat.safety import blocked_between
from app.matches.service import MatchService
from app.models import Match, Seat
from app.seeks.models import Seek
from app.services import clocks as timing
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.services.names import clean_name
from app.texts import N_

#: A seek needing its creator present dies this long after its event stream was last seen.
PRESENCE_GRACE = timedelta(seconds=30)
#: A correspondence seek's lifetime.
CORRESPONDENCE_LIFETIME = timedelta(days=7)
#: Open seeks one player, and one address, may have at once.
MAX_OPEN_PER_PLAYER = 3
MAX_OPEN_PER_ADDRESS = 10
#: A player whose match page or seek was seen this recently counts as online.
ONLINE_WINDOW = timedelta(seconds=60)
#: Seeks listed at most.
LIST_LIMIT = 100

Publish = Callable[[str, int], None]


def broker_key(seek_id: str) -> str:
    """The event broker's key for a seek's stream (match ids have no colon)."""
    return f"seek:{seek_id}"


def alive(moment: datetime) -> ColumnElement[bool]:
    """A waiting seek that has not died of absence or age by ``moment``."""
    return and_(
        Seek.status == "waiting",
        Seek.expires_at > moment,
        or_(Seek.needs_presence.is_(False), Seek.last_seen_at >= moment - PRESENCE_GRACE),
    )


@dataclass(frozen=True)
class Placed:
    """The answer to a new seek: ``match_id`` when it paired at once."""

    id: str
    status: str
    match_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"id": self.id, "status": self.status}
        if self.match_id is not None:
            answer["match_id"] = self.match_id
        return answer


class SeekService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        matches: MatchService,
        publish: Publish,
        clock: Callable[[], datetime],
    ) -> None:
        self.sessions = sessions
        self.matches = matches
        self.publish = publish
        self.clock = clock
        #: Told after a pairing: (waiting player's token, match id, game, new player's name);
        #: the app sends that player a push (app/push/notify.py).
        self.on_paired: Callable[[str, str, str, str], None] = lambda *_: None
        engine = sessions.kw.get("bind")
        self.postgres = getattr(getattr(engine, "dialect", None), "name", "") == "postgresql"

    # ------------------------------------------------------------ creating

    def create(
        self,
        game: str,
        time_control: dict[str, Any] | None,
        rated: bool,
        rating_range: tuple[int, int] | None,
        name: str,
        token_hash: str,
        client_key: str | None = None,
        rating: int | None = None,
    ) -> Placed:
        """``rating``: the seeker's rating in this game and speed, for a rated seek (whose
        route has checked that an account makes it and that the game can be rated)."""
        if game not in games.names():
            raise Invalid(
                N_("unknown game %(game)s; the games are %(games)s"),
                game=game[:32],
                games=", ".join(games.names()),
            )
        try:
            control = timing.parse(time_control)
        except timing.TimeControlError as exc:
            raise Invalid(str(exc)) from None
        if rated and rating is None:
            raise Forbidden(N_("rated seeks need an account"))
        if rating_range is not None and not rated:
            raise Invalid(N_("a rating range is only for rated seeks"))
        name = clean_name(name)
        moment = self.clock()
        needs_presence = control is None or control.realtime
        mine = Seek(
            id=secrets.token_urlsafe(9),
            game=game,
            time_control=timing.dumps(control) or "",
            rated=rated,
            needs_presence=needs_presence,
            range_min=rating_range[0] if rating_range else None,
            range_max=rating_range[1] if rating_range else None,
            rating=rating if rated else None,
            name=name,
            token_hash=token_hash,
            client_key=client_key,
            created_at=moment,
            last_seen_at=moment,
            expires_at=moment + CORRESPONDENCE_LIFETIME,
        )
        with self.sessions.begin() as db:
            self._lock_bucket(db, mine)
            self._check_limits(db, token_hash, client_key, moment)
            db.execute(
                update(Seek)
                .where(*self._same_bucket(mine), Seek.status == "waiting", ~alive(moment))
                .values(status="expired")
            )
            partner = db.scalars(self._partner_query(mine, moment)).first()
            if partner is None:
                mine.status = "waiting"
                db.add(mine)
                return Placed(mine.id, "waiting")
            partner.status = mine.status = "pairing"
            db.add(mine)
            waiting = (partner.id, partner.name, partner.token_hash, partner.client_key)
        return Placed(mine.id, "paired", self._make_match(mine, waiting, control))

    def _lock_bucket(self, db: Session, seek: Seek) -> None:
        # SQLite took its writer lock at BEGIN; PostgreSQL serialises one bucket's seekers.
        if self.postgres:
            key = f"seek:{seek.game}:{seek.time_control}:{seek.rated}"
            db.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})

    @staticmethod
    def _same_bucket(seek: Seek) -> tuple[ColumnElement[bool], ...]:
        return (Seek.game == seek.game, Seek.time_control == seek.time_control, Seek.rated == seek.rated)

    def _partner_query(self, seek: Seek, moment: datetime) -> Any:
        """The oldest compatible waiting seek (pairing.compatible, in SQL)."""
        query = (
            select(Seek)
            .where(*self._same_bucket(seek), alive(moment), Seek.token_hash != seek.token_hash)
            # Never two players one of whom blocked the other (issue 33).
            .where(~blocked_between(seek.token_hash, Seek.token_hash))
            .order_by(Seek.created_at, Seek.id)
            .limit(1)
        )
        if seek.rating is None:  # a range admits no unrated player
            query = query.where(Seek.range_min.is_(None), Seek.range_max.is_(None))
        else:
            query = query.where(or_(Seek.range_min.is_(None), Seek.range_min <= seek.rating))
            query = query.where(or_(Seek.range_max.is_(None), Seek.range_max >= seek.rating))
        if seek.range_min is not None:
            query = query.where(Seek.rating >= seek.range_min)
        if seek.range_max is not None:
            query = query.where(Seek.rating <= seek.range_max)
        return query.with_for_update(skip_locked=True)

    def _check_limits(self, db: Session, token_hash: str, client_key: str | None, moment: datetime) -> None:
        open_seeks = select(func.count()).select_from(Seek).where(alive(moment))
        if (db.scalar(open_seeks.where(Seek.token_hash == token_hash)) or 0) >= MAX_OPEN_PER_PLAYER:
            raise Conflict(N_("you already have three open seeks; cancel one first"))
        from_here = 0 if client_key is None else db.scalar(open_seeks.where(Seek.client_key == client_key))
        if (from_here or 0) >= MAX_OPEN_PER_ADDRESS:
            raise Conflict(N_("too many open seeks from your network"))

    def _make_match(
        self, mine: Seek, waiting: tuple[str, str, str, str | None], control: timing.TimeControl | None
    ) -> str:
        partner_id, partner_name, partner_token, partner_client = waiting
        try:
            change = self.matches.create(
                mine.game,
                partner_name,
                "random",
                partner_token,
                time_control=control.as_dict() if control is not None else None,
                client_key=partner_client,
                rated=mine.rated,
            )
            match_id = change.match.id
            self.matches.join(match_id, mine.name, mine.token_hash)
        except BaseException:
            with self.sessions.begin() as db:
                db.execute(update(Seek).where(Seek.id == partner_id).values(status="waiting"))
                db.execute(update(Seek).where(Seek.id == mine.id).values(status="cancelled"))
            raise
        with self.sessions.begin() as db:
            db.execute(
                update(Seek)
                .where(Seek.id.in_((partner_id, mine.id)))
                .values(status="paired", match_id=match_id)
            )
        self.publish(broker_key(partner_id), 1)
        self.on_paired(partner_token, match_id, mine.game, mine.name)
        return match_id

    # ------------------------------------------------------------- reading

    def open_seeks(self, viewer: str | None = None) -> list[dict[str, Any]]:
        """The seeks anyone may answer now, oldest first."""
        moment = self.clock()
        with self.sessions() as db:
            rows = db.scalars(select(Seek).where(alive(moment)).order_by(Seek.created_at).limit(LIST_LIMIT))
            return [
                {
                    "id": seek.id,
                    "game": seek.game,
                    "time_control": json.loads(seek.time_control) if seek.time_control else None,
                    "rated": seek.rated,
                    "name": seek.name,
                    "rating": seek.rating,
                    "mine": viewer is not None and seek.token_hash == viewer,
                }
                for seek in rows
            ]

    def status_of(self, seek_id: str, token_hash: str | None) -> tuple[str, str | None]:
        """(status, match id) of the viewer's own seek, ``expired`` once dead; NotFound for anyone else's."""
        with self.sessions() as db:
            seek = db.get(Seek, seek_id)
            if seek is None or token_hash is None or seek.token_hash != token_hash:
                raise NotFound(N_("there is no such seek"))
            status = seek.status
            if (
                status == "waiting"
                and db.scalar(select(Seek.id).where(Seek.id == seek_id, alive(self.clock()))) is None
            ):
                status = "expired"
            return status, seek.match_id

    def seen(self, seek_id: str) -> None:
        """Its creator's page is open: a living seek lives on (a dead one stays dead)."""
        moment = self.clock()
        with self.sessions.begin() as db:
            db.execute(update(Seek).where(Seek.id == seek_id, alive(moment)).values(last_seen_at=moment))

    def cancel(self, seek_id: str, token_hash: str | None) -> None:
        with self.sessions.begin() as db:
            seek = db.get(Seek, seek_id, with_for_update=True)
            if seek is None or token_hash is None or seek.token_hash != token_hash:
                raise NotFound(N_("there is no such seek"))
            if seek.status in ("pairing", "paired"):
                raise Conflict(N_("this seek has already been paired"))
            if seek.status == "waiting":
                seek.status = "cancelled"

    def online(self) -> dict[str, int]:
        """Players seen in the last minute per game: in a match being played, or seeking."""
        moment = self.clock()
        playing = (
            select(Match.game.label("game"), Seat.token_hash.label("player"))
            .join(Seat, Seat.match_id == Match.id)
            .where(
                Match.status == "playing",
                Seat.token_hash.is_not(None),
                Seat.last_seen_at >= moment - ONLINE_WINDOW,
            )
        )
        seeking = select(Seek.game.label("game"), Seek.token_hash.label("player")).where(alive(moment))
        both = union(playing, seeking).subquery()
        query = select(both.c.game, func.count(literal_column("*"))).group_by(both.c.game)
        with self.sessions() as db:
            counts = {game: int(n) for game, n in db.execute(query)}
        return {name: counts.get(name, 0) for name in games.names()}
