"""Puts Web Push into the app: the services, the sender worker, and the hooks that judge
each committed change (``Notifier``) without holding it up."""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable
from datetime import datetime

from fastapi import FastAPI

from app.push.allowlist import configured_hosts
from app.push.clock_warnings import ClockWarnings
from app.push.keys import load_or_create
from app.push.notify import Notifier
from app.push.sender import PushSender
from app.push.service import PushService

#: The VAPID ``sub`` claim: how a push service reaches the site's operator.
DEFAULT_SUBJECT = "mailto:admin@localhost"


def install(app: FastAPI, clock: Callable[[], datetime]) -> None:
    state = app.state
    sessions, matches = state.sessions, state.matches
    vapid = functools.cache(lambda: load_or_create(sessions))
    sender = PushSender(
        sessions, vapid, os.environ.get("VAPID_SUBJECT", DEFAULT_SUBJECT), configured_hosts, clock
    )
    push = PushService(sessions, configured_hosts, clock, wake=sender.wake)
    notifier = Notifier(push, matches, clock)
    sender.on_poll = push.refresh_anyone
    state.vapid, state.push, state.push_sender, state.notifier = vapid, push, sender, notifier
    state.clock_warnings = ClockWarnings(sessions, notifier, clock)

    # After the commit, as the match service publishes the change: handed to the
    # notifier's own thread at once. The match service's one port is wrapped, so every
    # change and every move it tells is also told to the notifier.
    port = matches.port

    def published(match_id: str, version: int) -> None:
        port.changed(match_id, version)
        notifier.match_changed(match_id, version)

    def moved(match_id: str, version: int, timed: bool) -> None:
        port.move(match_id, version, timed)
        notifier.match_changed(match_id, version)

    matches.port = dataclasses.replace(port, changed=published, moved=moved)
