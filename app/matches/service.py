"""``MatchService``: the one object the routes and workers hold, made of the package's
parts (each a module named for its job; see app/matches/__init__.py)."""

from __future__ import annotations

from app.matches.lifecycle import Lifecycle
from app.matches.lobby import Lists
from app.matches.move import Moves
from app.matches.offers import Offers
from app.matches.read import Reads
from app.matches.rematch import Rematches


class MatchService(Moves, Reads, Lists, Lifecycle, Offers, Rematches):
    """Matches between two seats: create, join, move, resign, draw, takeback, rematch.

    Made with a database (a bound ``sessionmaker``), a ``Publisher`` (app.matches.events)
    and a clock; every part shares them through ``Core``.
    """
