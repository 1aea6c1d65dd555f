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

The forbidden pair only takes away one pair of options and is left to the
search. ``order_key`` puts switches first, since they are the moves that can
win a buoy at once.
"""

from __future__ import annotations

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


class BilsangEvaluation:
    """The ``Evaluation`` the Bilsang opponent uses; see the module docstring."""

    def evaluate(self, state: BilsangState) -> int:
        lost_mine, lost_theirs = (
            (state.lost1, state.lost2) if state.player == "1" else (state.lost2, state.lost1)
        )
        score = LOST * (lost_theirs - lost_mine)
        axis = state.axis
        if axis == "-":
            return score
        singles = proven_singles(state.cells)
        if state.penalised:
            return score - (BLOCKED if singles[axis] == 0 and _blocked(state) else 0)
        # We may switch and hold them to singles along `axis`; after an
        # ordinary move they may do the same to us along the other axis.
        theirs, ours = singles[axis], singles[OTHER_AXIS[axis]]
        # The threat against us counts half: we move first and may reshape.
        return score + _threat(theirs) - _threat(ours) // 2 + SINGLES_SLOPE * (ours - theirs)

    def order_key(self, state: BilsangState, move: BilsangMove) -> int:
        """Switches first: they are what blocks an opponent."""
        if isinstance(move, Pair) and state.axis != "-" and move.axis != state.axis:
            return 1
        return 0
