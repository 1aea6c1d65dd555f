"""Matches between two seats. The floor plan, one job a module:

- ``model``: the nouns (``Change``, ``Played``, the locked rows, seats) and small questions
  every part asks of a match (``seat_of``, ``other_side``, ``engine_for``, ``now``).
- ``view``: the match as the JSON API shows it (``state``, the one serialiser) and as a
  line of "My games".
- ``clock``: the clocks and turns stored on the row (read, shown, run, stopped).
- ``judge``: the rules a change must pass, pure functions tested without a database.
- ``statements``: the SQL of a move and of the cheap reads, and how each database runs it.
- ``events``: ``Publisher``, the one port a change is told through (passed in).
- ``core``: what the parts share, and ``changing``, the one sequence of a change
  (lock, seat, playing, time, change, touch, commit, publish); deadlines.
- ``read``: the hot reads (version, legal moves, seated?).
- ``lobby``: the lists (the lobby, "My games").
- ``lifecycle``: made, joined, handed over, resigned, aborted, claimed, ended by the server.
- ``move``: a move, the hot path (one door, one executor per database).
- ``offers``: draw and takeback offers.
- ``rematch``: a rematch, in its two protocols.
- ``service``: ``MatchService``, all of the above in one object.

Import from the module that does the job (``from app.matches.service import
MatchService``); this file exports nothing.
"""
