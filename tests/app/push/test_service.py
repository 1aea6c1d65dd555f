"""app.push.service: whether anyone subscribes, as a process keeps it, stays true once a
subscription is made here, whatever the sender's poll read meanwhile."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import event

from app.db import make_engine, make_sessionmaker
from app.push.service import PushService
from tests.app.conftest import database_url

HOST = "push.example.com"


def test_a_subscription_made_while_the_poll_reads_is_not_forgotten(tmp_path: Path) -> None:
    # The sender's poll (its own thread, every 2 s) reads whether any subscription exists.
    # A poll that read "none" before a subscription here committed, and wrote what it
    # read after, used to leave ``anyone`` false: the next move's push was never queued
    # (the push tests' intermittent "got 0" on a loaded machine).
    engine = make_engine(database_url(tmp_path))
    push = PushService(make_sessionmaker(engine), lambda: (HOST,), lambda: datetime.now(UTC))
    read = threading.Event()
    held: list[bool] = []

    @event.listens_for(engine, "after_cursor_execute")
    def hold_the_poll(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.current_thread().name == "poll" and "push_subscriptions" in statement:
            read.set()  # the poll has read: none yet
            # Until the subscription below has begun (on SQLite it then waits for the
            # poll's transaction; on PostgreSQL it commits meanwhile).
            deadline = time.monotonic() + 10
            while not push.anyone and time.monotonic() < deadline:
                time.sleep(0.01)
            held.append(push.anyone)

    poll = threading.Thread(target=push.refresh_anyone, name="poll")
    poll.start()
    assert read.wait(10)
    assert push.subscribe("a" * 64, f"https://{HOST}/send/1", "key", "auth", "en")
    poll.join(10)
    assert not poll.is_alive() and held == [True]
    assert push.anyone
    # A later poll reads the subscription, and one after its removal reads none.
    push.refresh_anyone()
    assert push.anyone
    assert push.unsubscribe("a" * 64, f"https://{HOST}/send/1")
    push.refresh_anyone()
    assert not push.anyone
    engine.dispose()
