"""A Bashni evaluation that understands columns.

Nothing leaves a Bashni board, so material is never lost, only *buried*: a
piece counts for its owner by how close it is to the top of its column. The
top piece moves the column and counts in full; a piece just under it surfaces
as soon as the top is captured; deeper ones need more captures. So every
piece is weighted by its depth (``DEPTH_WEIGHT``), which expresses in one rule
what a player reasons about columns:

* who owns each top (weight 1);
* what is directly below the top: one's own piece keeps the column when the
  top is taken, an opponent's piece makes the column a liability, since
  capturing the top frees it (weight 0.45 for the piece's owner either way);
* prisoners: an opponent's piece buried under your top counts for its owner
  only by its depth weight, the rest is what you hold of it;
* kings: a king on top counts ``KING``, a buried king the same times its
  depth weight, a potential that comes back if the column is uncovered.

On top of that: advancement of men on top (they promote on the far rank),
back-rank guards while the opponent still has men, mobility (the engine's
move counter for both sides) and a small tempo bonus for the side to move.
Column values depend only on the column and its square, so they are computed
once per distinct (square, column) and cached.
"""

from __future__ import annotations

from collections.abc import Hashable

from games.bashni import (
    BIT,
    DARK_SQUARES,
    FAR_RANK,
    PLY_LIMIT,
    QUIET_LIMIT,
    WHITE,
    Move,
    Position,
    count_moves,
    has_capture,
)

#: A man on top of its column, the unit of every other value.
MAN = 100
#: A king on top. Flying kings dominate open boards and in Bashni they also
#: capture whole columns' tops from afar; draughts practice puts a king at two
#: and a half to three men.
KING = 280
#: What a piece is worth to its owner at depth 0 (top), 1, 2, … below the top.
#: Depth 1 is worth about half: it surfaces after one capture of its column,
#: which the owner of the top can often prevent but not always. Each further
#: level needs one more capture, so the weight keeps shrinking.
DEPTH_WEIGHT = (1.0, 0.45, 0.25, 0.15, 0.1, 0.07, 0.05)
#: Bonus for a man on top by rank counted from its owner's side (index 0 = home
#: rank, 6 = one step from promotion). Grows steeply at the end, where a man
#: is about to become a king worth almost three men.
ADVANCE = (0, 2, 5, 9, 14, 24, 45, 0)
#: A man on its own back rank keeps the opponent's men from promoting there.
BACK_GUARD = 10
#: Per legal move more than the opponent. Small: mobility is a tiebreak, and a
#: side that must capture has few moves although it is doing fine.
MOBILITY = 3
#: The side to move is a tempo ahead.
TEMPO = 8
#: The side to move has no capture but the opponent has one ready: something
#: hangs. Only a nudge, since the side to move may defend or counter; the
#: search's next ply settles it. (Counting the opponent's captures as its
#: mobility would instead make a hanging piece look good: few moves.)
THREATENED = 20
#: Draw rules cannot reach into a search when both counters are this far from
#: their limits (deepest line: 7 plies plus QUIESCENCE_PLIES), so positions
#: that differ only in the counters can share a table entry.
COUNTER_MARGIN = 32

_RANK_OF = tuple(sq // 8 for sq in range(64))


def _piece_value(piece: str, depth: int, sq: int) -> int:
    """What one piece, ``depth`` below the top of the column on ``sq``, is worth to White."""
    weight = DEPTH_WEIGHT[min(depth, len(DEPTH_WEIGHT) - 1)]
    if piece in "WB":
        value = KING * weight
    else:
        rank = _RANK_OF[sq] if piece == "w" else 7 - _RANK_OF[sq]
        # Only a man on top is going anywhere soon; buried men count as plain men.
        value = (MAN + (ADVANCE[rank] if depth == 0 else 0)) * weight
    return round(value) if piece in "wW" else -round(value)


def column_value(sq: int, column: str) -> int:
    """The column on ``sq`` (pieces bottom to top) in centipawns for White."""
    top = len(column) - 1
    return sum(_piece_value(piece, top - i, sq) for i, piece in enumerate(column))


_WHITE_BACK = sum(BIT[sq] for sq in DARK_SQUARES if sq < 8)
_BLACK_BACK = sum(BIT[sq] for sq in DARK_SQUARES if sq >= 56)


class BashniEvaluation:
    """The ``Evaluation`` the Bashni opponent uses; see the module docstring."""

    def __init__(self) -> None:
        # One cache per square: (square, column) -> value for White.
        self._columns: list[dict[str, int]] = [{} for _ in range(64)]
        # The search asks noisy(pos) right before evaluate(pos): remember the
        # last position found quiet so evaluate need not test it again.
        self._quiet: Position | None = None

    def material(self, pos: Position) -> int:
        """The columns' values, for White."""
        total = 0
        columns = self._columns
        stacks = pos.stacks
        for sq in DARK_SQUARES:
            column = stacks[sq]
            if column:
                cache = columns[sq]
                value = cache.get(column)
                if value is None:
                    value = cache[column] = column_value(sq, column)
                total += value
        return total

    def evaluate(self, pos: Position) -> int:
        score = self.material(pos)
        white_men = pos.white & ~pos.kings
        black_men = pos.black & ~pos.kings
        # Guards only matter while the other side has men that could promote.
        if black_men:
            score += BACK_GUARD * (white_men & _WHITE_BACK).bit_count()
        if white_men:
            score -= BACK_GUARD * (black_men & _BLACK_BACK).bit_count()
        score = (score if pos.side == WHITE else -score) + TEMPO
        theirs = pos._replace(side=1 - pos.side)
        if has_capture(theirs):
            if pos is self._quiet or not has_capture(pos):
                score -= THREATENED
            return score
        return score + MOBILITY * (count_moves(pos) - count_moves(theirs))

    def tt_key(self, pos: Position) -> Hashable:
        """The columns and side alone while the draw counters are far from their limits.

        A king's move and a man's move played in either order reach the same
        columns with different quiet counts, and kings shuffling back and forth
        repeat columns at a later ply; both transpose only under this key.
        """
        if pos.quiet < QUIET_LIMIT - COUNTER_MARGIN and pos.plies < PLY_LIMIT - COUNTER_MARGIN:
            return (pos.stacks, pos.side)
        return pos

    def noisy(self, pos: Position) -> bool:
        """A capture is due: the exchange is searched to its end before scoring."""
        if has_capture(pos):
            return True
        self._quiet = pos
        return False

    def order_key(self, pos: Position, move: Move) -> int:
        """Longer captures and captured kings first; among simple moves, promotions."""
        path, jumps = move
        if jumps:
            kings = pos.kings
            taken_kings = sum(1 for sq in jumps if kings & BIT[sq])
            return min(1 + 4 * len(jumps) + 8 * taken_kings, 63)
        if not pos.kings & BIT[path[0]] and FAR_RANK[pos.side] & BIT[path[-1]]:
            return 1
        return 0
