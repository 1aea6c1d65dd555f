"""A Bilsang evaluation: lost buoys, and who is likely to be blocked next.

The buoys belong to nobody; the score is the lost buoys, and a buoy is lost
by the player who has no move and must take one off. A player who may move
pairs along either axis (the required one, or a switch) is hardly ever
blocked; a *penalised* player, who may only move one buoy along one axis, is
the one who gets blocked. So the position is judged by:

* lost buoys (``LOST`` each, the only thing the final result counts);
* the switch threat: the side to move, required to use axis A, may switch
  (pair along the other axis B) and leave the opponent penalised along A.
  The fewer single moves along A there are, the likelier that blocks them;
  the other way round, after an ordinary move along A the opponent may switch
  and leave the mover penalised along B. Single moves are counted with the
  engine's constant-time ring test, a lower bound that is exact for compact
  shapes;
* a penalised mover with no single move must remove: scored as the lost
  buoy it is. The ring count proves most single moves; only when it finds
  none does the evaluation ask the engine, whose flood fill is exact.

With the same-line option (``line``, the default for new matches) pair moves
are few (nine from the start) and an unpenalised player can be blocked too,
in a shape where no row and no column has a pair that keeps the universe
connected. Then, besides the above:

* the mover's pair moves (switches included, exactly, from the engine): none
  is a lost buoy. Few (one or two, ``EXTEND_PAIRS``) is not given a score but
  searched on (``noisy``): the replies are so few that looking at them costs
  little, and the block is often a ply or two behind them. Scoring "few" as
  bad, as a first version did, made both searches flee every tight shape, and
  two strongest levels drew every game;
* a blocked mover in a small universe is ``noisy`` too: the search goes on
  through the removals that follow, because once one player is stuck the
  game usually cascades to the last buoy and the parity of that cascade, not
  the first block, decides who ends a buoy down;
* ambition: the searching side (``prepare``) likes loose shapes, with fewer
  buoys touching than the start's block (``AMBITION`` a touching pair). The
  term is not zero-sum on purpose: from the start, two searches that only
  count lost buoys and mobility keep the block compact and every game is
  drawn at the quiet limit;
* contempt for going round in circles (``revisit``): a position the game has
  already been in (the history ``prepare`` is given) costs the searching side
  ``CONTEMPT``. The forbidden pair only stops a pair being moved straight
  back; without this, two searches move a pair out and back every other turn
  until the quiet limit. Measured in docs/benchmarks.md ("Bilsang rule
  options").

The forbidden pair only takes away one pair of options and is left to the
search. ``order_key`` puts switches first, since they are the moves that can
win a buoy at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.bilsang import GAME, OTHER_AXIS, RING_SAFE, BilsangMove, BilsangState, Cell, Pair, Removal

#: A lost buoy: the unit of the result.
LOST = 100
#: Worth of the threat to penalise a side that then has n single moves along
#: the axis it is held to, for n = 0, 1, 2, …: with none the buoy is as good as
#: won (most of a LOST, as the threatened side may still parry), and each
#: extra escape halves the threat.
SWITCH_THREAT = (70, 35, 17, 8, 4)
#: Per single move fewer along the axis we can hold the opponent to, or more
#: along the one they can hold us to: the slope that steers play towards
#: shapes where a switch blocks, long before the threat table above kicks in.
SINGLES_SLOPE = 3
#: A penalised side to move without a single move must remove: a lost buoy.
BLOCKED = LOST

#: ring mask -> the centre may move away without cutting anything: the engine's own
#: first test (games.bilsang.connected_locally)
_SAFE = RING_SAFE


def proven_singles(cells: frozenset[Cell]) -> dict[str, int]:
    """Per axis, the single moves the ring test proves keep the universe connected.

    A lower bound of a penalised player's moves (a fill may prove more), exact
    for compact shapes, and cheap: one ring per buoy serves both axes. A buoy
    that steps onto the empty cell ahead stays next to its old neighbours'
    ring, so the move is safe when that ring plus the target is one group.
    """
    h = v = 0
    safe = _SAFE
    for x, y in cells:
        # The ring mask, unrolled in games.bilsang.RING order: this is the evaluation's hot loop.
        mask = (
            ((x + 1, y) in cells)
            | ((x + 1, y + 1) in cells) << 1
            | ((x, y + 1) in cells) << 2
            | ((x - 1, y + 1) in cells) << 3
            | ((x - 1, y) in cells) << 4
            | ((x - 1, y - 1) in cells) << 5
            | ((x, y - 1) in cells) << 6
            | ((x + 1, y - 1) in cells) << 7
        )
        h += (not mask & 1 and safe[mask | 1]) + (not mask & 16 and safe[mask | 16])
        v += (not mask & 4 and safe[mask | 4]) + (not mask & 64 and safe[mask | 64])
    return {"h": h, "v": v}


def _blocked(state: BilsangState) -> bool:
    """Whether the side to move has nothing but removals (the engine's exact answer)."""
    moves = GAME.legal_moves(state)
    return bool(moves) and isinstance(moves[0], Removal)


def _threat(singles: int) -> int:
    return SWITCH_THREAT[singles] if singles < len(SWITCH_THREAT) else 0


def extra_touches(cells: frozenset[Cell]) -> int:
    """How many more pairs of buoys touch than a chain needs: 36 at the start, 0 for a tree."""
    count = 0
    for x, y in cells:
        # half the ring, so each touching pair is counted once
        count += (
            ((x + 1, y) in cells)
            + ((x + 1, y + 1) in cells)
            + ((x, y + 1) in cells)
            + ((x - 1, y + 1) in cells)
        )
    return count - (len(cells) - 1)


#: Removal cascades are searched on (``noisy``) only in universes this small: each
#: removal there has few choices, while a blocked big universe offers a dozen a ply.
CASCADE_BUOYS = 10
LOOSE_CAP = 36
#: Per touching pair fewer than the start's block has (beyond a chain's), what a
#: loose shape is worth to the searching side, up to LOOSE_CAP: without it two
#: searches keep the block compact and every game is drawn at the quiet limit.
AMBITION = 3
#: Same-line rule: a mover with 1..EXTEND_PAIRS pair moves is searched on (``noisy``):
#: so few replies cost little to look at, and the block is often a ply or two behind them.
EXTEND_PAIRS = 2
#: What going back to a position the game has already been in costs the searching side:
#: without it two searches shuttle a pair to and fro until the quiet limit.
CONTEMPT = 50
#: How many of the game's latest positions count as already been in.
RECENT = 40


def _revisit_key(state: BilsangState) -> tuple[object, ...]:
    """The state without its quiet count, which grows every ply and so never repeats."""
    return (state.player, state.axis, state.penalised, state.lost1, state.lost2, state.cells, state.forbidden)


def pair_moves(state: BilsangState) -> int:
    """How many pair moves (switches included) an unpenalised mover has; 0: blocked."""
    moves = GAME.legal_moves(state)
    return 0 if not moves or isinstance(moves[0], Removal) else len(moves)


class BilsangEvaluation:
    """The ``Evaluation`` the Bilsang opponent uses; see the module docstring."""

    def __init__(self) -> None:
        self._pairs: dict[BilsangState, int] = {}
        self._seen: set[tuple[object, ...]] = set()
        #: the player the search is for (``prepare``); None: no ambition term
        self.root: str | None = None

    def prepare(self, root: BilsangState, history: Sequence[BilsangState] = ()) -> None:
        """Called once per search with its root and the game's earlier positions (start first):
        whose ambition the score carries, and where the game has already been."""
        self.root = root.player
        if CONTEMPT:
            self._seen = {_revisit_key(s) for s in history[-RECENT:]}

    def revisit(self, state: BilsangState) -> int | None:
        """A position the game has been in scores CONTEMPT worse for the searching side."""
        if not self._seen or _revisit_key(state) not in self._seen:
            return None
        lost_mine, lost_theirs = (
            (state.lost1, state.lost2) if state.player == "1" else (state.lost2, state.lost1)
        )
        return LOST * (lost_theirs - lost_mine) + (-CONTEMPT if state.player == self.root else CONTEMPT)

    def noisy(self, state: BilsangState) -> bool:
        """A mover with nothing but removals: searched on, since what follows a block is a
        cascade of removals whose parity decides who ends up a buoy down."""
        if state.penalised:
            if len(state.cells) > CASCADE_BUOYS:
                return False
            return proven_singles(state.cells)[state.axis] == 0 and _blocked(state)
        if state.axis == "-" or (not state.line and len(state.cells) > CASCADE_BUOYS):
            return False
        pairs = self._pair_moves(state)
        if pairs == 0:
            return len(state.cells) <= CASCADE_BUOYS
        return state.line and pairs <= EXTEND_PAIRS

    def _pair_moves(self, state: BilsangState) -> int:
        count = self._pairs.get(state)
        if count is None:
            count = self._pairs[state] = pair_moves(state)
        return count

    def evaluate(self, state: BilsangState) -> int:
        lost_mine, lost_theirs = (
            (state.lost1, state.lost2) if state.player == "1" else (state.lost2, state.lost1)
        )
        score = LOST * (lost_theirs - lost_mine) + self._threats(state)
        if state.line and self.root is not None:
            # Played for a win: the searching side likes loose shapes, where
            # blocks happen, whoever is to move (see AMBITION).
            loose = AMBITION * max(0, LOOSE_CAP - extra_touches(state.cells))
            score += loose if state.player == self.root else -loose
        return score

    def _threats(self, state: BilsangState) -> int:
        axis = state.axis
        if axis == "-":
            return 0
        singles = proven_singles(state.cells)
        if state.penalised:
            return -BLOCKED if singles[axis] == 0 and _blocked(state) else 0
        # Same-line pairs are scarce: a mover left with none at all is blocked. Few
        # is not scored: such a mover is searched on instead (``noisy``).
        if state.line and self._pair_moves(state) == 0:
            return -BLOCKED
        # We may switch and hold them to singles along `axis`; after an
        # ordinary move they may do the same to us along the other axis.
        theirs, ours = singles[axis], singles[OTHER_AXIS[axis]]
        # The threat against us counts half: we move first and may reshape.
        return _threat(theirs) - _threat(ours) // 2 + SINGLES_SLOPE * (ours - theirs)

    def order_key(self, state: BilsangState, move: BilsangMove) -> int:
        """Switches first: they are what blocks an opponent."""
        if isinstance(move, Pair) and state.axis != "-" and move.axis != state.axis:
            return 1
        return 0
