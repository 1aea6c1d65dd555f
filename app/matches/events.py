"""How the match service tells the rest of the app what it changed: one port, passed in
when the service is made (app/main.py makes the app's; a test may pass its own)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app.matches.model import Played
from app.matches.statements import Notice

#: "match ``match_id`` is now at ``version``", told after the commit.
Publish = Callable[[str, int], None]
#: Told in a move's transaction of the version it makes; what it returns is called
#: after the transaction with the move (``None``: rolled back).
Playing = Callable[[str, int], Callable[[Played | None], None]]


def unobserved(_match_id: str, _version: int) -> Callable[[Played | None], None]:
    return lambda _played: None


def nothing() -> None:
    return None


@dataclass(frozen=True)
class Publisher:
    """Where a committed change goes.

    - ``changed``: every change but a player's move, after its commit.
    - ``moved``: a move after its commit, told whether its match is timed (the app wakes
      its deadline worker only then, and tells only this process when ``notice`` has
      told the others already); ``None``: told as ``changed``.
    - ``notice``: on PostgreSQL, the (channel, payload) of the NOTIFY that tells the
      other processes of a move from inside the move's own transaction (delivered at
      commit, never after a rollback), so a move needs no second connection to tell.
    - ``playing``: told just before a move's commit of the version it makes (the event
      streams learn the new state this way without reading it back).
    - ``wake_computer``: pokes this process's computer worker after a change that gives
      it the move.
    """

    changed: Publish
    moved: Callable[[str, int, bool], None] | None = None
    notice: Callable[[str, int], Notice] | None = None
    playing: Playing = field(default=unobserved)
    wake_computer: Callable[[], None] = field(default=nothing)

    def move(self, match_id: str, version: int, timed: bool) -> None:
        if self.moved is None:
            self.changed(match_id, version)
        else:
            self.moved(match_id, version, timed)
