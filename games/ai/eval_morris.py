"""A Nine Men's Morris evaluation: material, mills, open twos and mobility.

Scores from the side to move's point of view, built from White's:

* material: pieces on the board plus in hand (``PIECE`` each); a side that
  falls below three loses, and the search sees that through ``outcome``;
* mills standing (a mill can be opened and closed again for another removal);
* open twos: two of a side's pieces on a line whose third point is empty.
  While placing, any open two can be closed next turn; while sliding, only
  if one of that side's other pieces stands next to the empty point (or the
  side flies), so those count more;
* mobility while sliding: the empty points next to a side's pieces, and a
  penalty per blocked piece (a side whose pieces are all blocked loses).

Removals are ordered first in the search (``order_key``).
"""

from __future__ import annotations

from games.morris import FULL, MILL_MASKS, NEIGHBOUR_MASKS, MorrisMove, MorrisState

#: A piece on the board or in hand: the unit of every other value.
PIECE = 100
#: A standing mill: worth keeping for re-opening, but below a piece, since a
#: mill that never reopens removes nothing more.
MILL = 25
#: Two on a line with the third point empty: a threat of a removal.
OPEN_TWO = 12
#: An open two whose third point a piece of the same side can reach next move
#: (placing, flying, or sliding from a neighbouring point off the line): a
#: real threat, nearly half a piece when the opponent cannot cover them all.
READY_TWO = 30
#: Per empty point next to one's pieces while sliding. Mobility decides the
#: sliding phase (no move loses), but one extra option is worth little.
MOBILITY = 4
#: Per piece that cannot move while sliding.
BLOCKED = 10


def _side_terms(own: int, other: int, hand: int, empty: int) -> int:
    """Mills, open twos and mobility of the side with pieces ``own``."""
    score = 0
    count = own.bit_count()
    flying = hand == 0 and count == 3
    for mask in MILL_MASKS:
        if other & mask:
            continue
        mine = own & mask
        n = mine.bit_count()
        if n == 3:
            score += MILL
        elif n == 2:
            if hand or flying:
                score += READY_TWO
            else:
                third = mask & ~mine
                point = third.bit_length() - 1
                # A piece off the line next to the gap can slide into it.
                if NEIGHBOUR_MASKS[point] & own & ~mask:
                    score += READY_TWO
                else:
                    score += OPEN_TWO
    if hand == 0 and not flying:
        pieces = own
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            free = (NEIGHBOUR_MASKS[low.bit_length() - 1] & empty).bit_count()
            score += MOBILITY * free if free else -BLOCKED
    return score


class MorrisEvaluation:
    """The ``Evaluation`` the Morris opponent uses; see the module docstring."""

    def evaluate(self, state: MorrisState) -> int:
        white, black = state.white, state.black
        empty = FULL & ~(white | black)
        score = PIECE * (white.bit_count() + state.white_hand - black.bit_count() - state.black_hand)
        score += _side_terms(white, black, state.white_hand, empty)
        score -= _side_terms(black, white, state.black_hand, empty)
        return score if state.side == "w" else -score

    def order_key(self, state: MorrisState, move: MorrisMove) -> int:
        """Removals first: they are the only moves that change the material."""
        return 1 if move.removal is not None else 0
