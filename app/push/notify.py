"""What is pushed when, decided after the change's commit on a thread of its own.

- a move: to the player now to move, in a correspondence game always; in a real-time or
  untimed game only when none of that player's pages of the match is open (its seat not
  seen by an open event stream for ``AWAY_AFTER``);
- a rematch offer: to the other player of the finished match;
- a seek paired: to the player whose seek was waiting;
- a challenge: to the challenged account; its acceptance: to the challenger.

Each change is judged once per process (the process that made it: the app calls this
from its own publish hooks, which the other processes' NOTIFYs do not reach), by the
match's ply (a move) or its rematch offer, so an offer or a draw proposal that bumps the
version does not push "your move" again.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import games
from app import i18n
from app.matches.clock import time_control_of
from app.matches.model import aware, engine_for
from app.matches.service import MatchService
from app.models import Match
from app.push.service import Push, PushService
from app.services.errors import NotFound
from app.texts import N_

log = logging.getLogger(__name__)

#: A player's match page stamps its seat about every 10 s while open (routes/events.py).
AWAY_AFTER = timedelta(seconds=15)
REMEMBERED = 4096

YOUR_MOVE = N_("Your move")
MOVED = N_("%(name)s moved in %(game)s.")
REMATCH = N_("Rematch?")
REMATCH_BODY = N_("%(name)s offers a rematch of %(game)s.")
PAIRED = N_("Opponent found")
PAIRED_BODY = N_("Your %(game)s game against %(name)s has started.")
CHALLENGED = N_("A challenge")
CHALLENGED_BODY = N_("%(name)s challenges you to %(game)s.")
ACCEPTED = N_("Challenge accepted")
ACCEPTED_BODY = N_("%(name)s accepted your %(game)s challenge.")


def _writer(
    title: str, body: str, url: str, tag: str, urgency: str, ttl: int, **words: str
) -> Callable[[str], Push]:
    def write(lang: str) -> Push:
        gettext = i18n.translations(lang).gettext
        said = {k: gettext(v) if k == "game" else v for k, v in words.items()}
        return Push(gettext(title), gettext(body) % said, url, tag, topic=tag, urgency=urgency, ttl=ttl)

    return write


class Notifier:
    def __init__(self, push: PushService, matches: MatchService, clock: Callable[[], datetime]) -> None:
        self.push = push
        self.matches = matches
        self.clock = clock
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="push-notify")
        self._judged: OrderedDict[tuple[str, str], None] = OrderedDict()

    def match_changed(self, match_id: str, _version: int) -> None:
        """From the publish hooks, after the commit: judged on another thread, and only
        while some browser subscribes (otherwise no push could be sent for it)."""
        if not self.push.anyone:
            return
        self.executor.submit(self._safely, self._judge, match_id)

    def seek_paired(self, waiting_token: str, match_id: str, game: str, opponent: str) -> None:
        write = _writer(
            PAIRED,
            PAIRED_BODY,
            f"/matches/{match_id}",
            match_id[:32],
            "high",
            600,
            game=games.get(game).title,
            name=opponent,
        )
        self.executor.submit(self._safely, self.push.queue, waiting_token, write)

    def challenge_received(self, holder: str, challenger: str, game: str, url: str) -> None:
        title = games.get(game).title
        write = _writer(
            CHALLENGED, CHALLENGED_BODY, url, "challenges", "high", 3600, game=title, name=challenger
        )
        self.executor.submit(self._safely, self.push.queue, holder, write)

    def challenge_accepted(self, holder: str, accepter: str, game: str, url: str) -> None:
        title = games.get(game).title
        write = _writer(
            ACCEPTED, ACCEPTED_BODY, url, url.rsplit("/", 1)[-1][:32], "high", 600, game=title, name=accepter
        )
        self.executor.submit(self._safely, self.push.queue, holder, write)

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)

    def _safely(self, work: Callable[..., object], *args: object) -> None:
        try:
            work(*args)
        except NotFound:
            pass
        except Exception:  # a push is a courtesy; the change is already made
            log.exception("could not queue a push")

    def _first_time(self, key: tuple[str, str]) -> bool:
        if key in self._judged:
            return False
        self._judged[key] = None
        if len(self._judged) > REMEMBERED:
            self._judged.popitem(last=False)
        return True

    def _judge(self, match_id: str) -> None:
        match = self.matches.get(match_id)
        title = games.get(match.game).title
        if match.status == "playing" and match.ply > 0 and self._first_time((match_id, f"ply{match.ply}")):
            self._your_move(match, title)
        if match.status == "finished" and match.rematch_offer and self._first_time((match_id, "rematch")):
            asking = next((s for s in match.seats if s.side == match.rematch_offer), None)
            asked = next((s for s in match.seats if s.side != match.rematch_offer and s.token_hash), None)
            if asking is not None and asked is not None and asked.token_hash:
                write = _writer(
                    REMATCH,
                    REMATCH_BODY,
                    f"/matches/{match_id}",
                    match_id[:32],
                    "normal",
                    3600,
                    game=title,
                    name=asking.name,
                )
                self.push.queue(asked.token_hash, write)

    def _your_move(self, match: Match, title: str) -> None:
        game = engine_for(match)
        to_move = game.to_move(game.parse_position(match.position))
        seat = next((s for s in match.seats if s.side == to_move), None)
        mover = next((s for s in match.seats if s.side != to_move), None)
        if seat is None or seat.token_hash is None or seat.ai_level is not None or mover is None:
            return
        control = time_control_of(match)
        correspondence = control is not None and not control.realtime
        if not correspondence:
            seen = seat.last_seen_at
            if seen is not None and aware(seen) >= self.clock() - AWAY_AFTER:
                return  # a page of the match is open: it tells the player itself
        urgency, ttl = ("normal", 24 * 3600) if correspondence else ("high", 300)
        write = _writer(
            YOUR_MOVE, MOVED, f"/matches/{match.id}", match.id[:32], urgency, ttl, game=title, name=mover.name
        )
        self.push.queue(seat.token_hash, write)
