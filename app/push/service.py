"""Subscriptions and the queue of pushes (sent by ``sender.PushSender``)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.db import read_session
from app.push.allowlist import check_endpoint
from app.push.models import PushJob, PushSubscription
from app.services.errors import Conflict
from app.texts import N_

#: Subscriptions one browser (player token) may have.
MAX_PER_BROWSER = 5


@dataclass(frozen=True)
class Push:
    """What a push says ({"title", "body", "url", "tag"}) and how the service keeps it."""

    title: str
    body: str
    url: str
    tag: str
    #: RFC 8030: a newer push with the same topic replaces an undelivered older one.
    topic: str
    urgency: str = "normal"
    ttl: int = 24 * 3600

    def payload(self) -> str:
        return json.dumps({"title": self.title, "body": self.body, "url": self.url, "tag": self.tag})


class PushService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        hosts: Callable[[], tuple[str, ...]],
        clock: Callable[[], datetime],
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.hosts = hosts
        self.clock = clock
        self.wake = wake
        #: Whether any browser subscribes at all, as this process last saw it (refreshed
        #: by the sender's poll, set at once by a subscription here): until one does, a
        #: change to a match costs no read for pushes (a read of the whole match per move
        #: broke the move's constant work). A first subscription made by another process
        #: is seen here at the sender's next poll (2 s); after that it stays true.
        self.anyone = False
        #: Subscriptions begun in this process, under ``_anyone_lock`` with ``anyone``.
        self._subscribed = 0
        self._anyone_lock = threading.Lock()

    def refresh_anyone(self) -> None:
        with self._anyone_lock:
            subscribed = self._subscribed
        with read_session(self.sessions) as db:
            found = db.scalar(select(PushSubscription.id).limit(1)) is not None
        with self._anyone_lock:
            # A subscription begun here while this read ran may be missing from what it
            # read: then "none" is stale, and writing it would skip the next move's push.
            if found or self._subscribed == subscribed:
                self.anyone = found

    def subscribe(self, token_hash: str, endpoint: str, p256dh: str, auth: str, lang: str) -> bool:
        """Store this browser's subscription (``True``: new); the same endpoint again is updated."""
        check_endpoint(endpoint, self.hosts())
        with self._anyone_lock:
            self._subscribed += 1
            self.anyone = True
        with self.sessions.begin() as db:
            found = db.scalar(select(PushSubscription).where(PushSubscription.endpoint == endpoint))
            if found is not None and found.token_hash == token_hash:
                found.p256dh, found.auth, found.lang = p256dh, auth, lang
                return False
            if found is not None:
                # The browser's endpoint now belongs to this player (a new cookie): move it.
                db.delete(found)
                db.flush()
            count = db.scalar(
                select(func.count())
                .select_from(PushSubscription)
                .where(PushSubscription.token_hash == token_hash)
            )
            if (count or 0) >= MAX_PER_BROWSER:
                raise Conflict(N_("this browser already has five push subscriptions; remove one first"))
            db.add(
                PushSubscription(
                    token_hash=token_hash, endpoint=endpoint, p256dh=p256dh, auth=auth, lang=lang
                )
            )
            return True

    def unsubscribe(self, token_hash: str, endpoint: str) -> bool:
        with self.sessions.begin() as db:
            gone = db.execute(
                delete(PushSubscription).where(
                    PushSubscription.token_hash == token_hash, PushSubscription.endpoint == endpoint
                )
            )
            return bool(cast(CursorResult[Any], gone).rowcount)

    def subscriptions_of(self, token_hash: str) -> list[dict[str, str]]:
        with self.sessions() as db:
            rows = db.scalars(select(PushSubscription).where(PushSubscription.token_hash == token_hash))
            return [{"endpoint": s.endpoint, "lang": s.lang} for s in rows]

    def queue(self, token_hash: str, write: Callable[[str], Push]) -> int:
        """Queue one push to each subscription of the player, written in its language."""
        with self.sessions.begin() as db:
            subscriptions = list(
                db.scalars(select(PushSubscription).where(PushSubscription.token_hash == token_hash))
            )
            for s in subscriptions:
                push = write(s.lang)
                db.add(
                    PushJob(
                        subscription_id=s.id,
                        payload=push.payload(),
                        topic=push.topic,
                        urgency=push.urgency,
                        ttl=push.ttl,
                        due_at=self.clock(),
                    )
                )
        if subscriptions:
            self.wake()
        return len(subscriptions)
