"""A Bobail (Neutron rules) evaluation: where the Neutron can go, and who can move.

A turn starts with a Neutron move, so the position is judged by the Neutron's
options for the side to move:

* a Neutron slide that ends on the mover's home rank wins at once (``WINNING``,
  just below the search's proved results);
* a slide that ends on the opponent's home rank hands them the game, so only
  the other slides are *safe*; a mover with few safe slides is in danger, and
  one with none loses (the search sees that through the legal moves);
* the Neutron's rank: nearer the mover's home rank is better, since the
  opponent must then keep it from sliding home;
* electron mobility: the slides each side's electrons have, since a side
  without electron moves cannot complete a turn, and more options make it
  easier to block the Neutron's way home or open one's own.

The search's ``order_key`` puts winning Neutron moves first and Neutron moves
onto the opponent's home rank (legal, and always lost) last.
"""

from __future__ import annotations

from games.bobail import EMPTY, NEUTRON, RAYS, SIZE, SQUARES, BobailMove, BobailState, slide_stop

#: A mover who can slide the Neutron home has won; below the search's WIN
#: range so that proved results still rank first, far above anything else.
WINNING = 100_000
#: Per rank the Neutron stands nearer the mover's home (rank 3 is level).
NEUTRON_RANK = 40
#: Per safe Neutron slide of the mover, up to ``SAFE_CAP`` of them: having
#: one safe slide instead of none is everything, a fifth one adds little.
SAFE_SLIDE = 30
SAFE_CAP = 3
#: Per electron slide more than the opponent.
ELECTRON_MOBILITY = 3

_WHITE_HOME = range(SQUARES - SIZE, SQUARES)  # rank 1
_BLACK_HOME = range(SIZE)  # rank 5


def _electron_slides(board: str, side: str) -> int:
    count = 0
    for square in range(SQUARES):
        if board[square] == side:
            for ray in RAYS[square]:
                if board[ray[0]] == EMPTY:
                    count += 1
    return count


def neutron_rank(square: int) -> int:
    """The rank (1..5) of a square index."""
    return SIZE - square // SIZE


class BobailEvaluation:
    """The ``Evaluation`` the Bobail opponent uses; see the module docstring."""

    def evaluate(self, state: BobailState) -> int:
        board = state.board
        side = state.side
        other = "b" if side == "w" else "w"
        home, away = (_WHITE_HOME, _BLACK_HOME) if side == "w" else (_BLACK_HOME, _WHITE_HOME)
        neutron = board.index(NEUTRON)
        safe = 0
        for ray in RAYS[neutron]:
            stop = slide_stop(board, ray)
            if stop < 0:
                continue
            if stop in home:
                return WINNING
            if stop not in away:
                safe += 1
        rank = neutron_rank(neutron)
        # White's home is rank 1: for White, a low rank is good.
        nearer_home = 3 - rank if side == "w" else rank - 3
        score = NEUTRON_RANK * nearer_home + SAFE_SLIDE * min(safe, SAFE_CAP)
        score += ELECTRON_MOBILITY * (_electron_slides(board, side) - _electron_slides(board, other))
        return score

    def order_key(self, state: BobailState, move: BobailMove) -> int:
        """A winning Neutron move first, then moves that bring the Neutron nearer home; a losing one last."""
        if move.electron_from is None:
            return _ENDING_KEY[state.side][move.neutron_to]
        return _GOING_ON_KEY[state.side][move.neutron_to]


def _towards_home(side: str, square: int) -> int:
    rank = neutron_rank(square)
    return 3 - rank if side == "w" else rank - 3


# order_key runs for every move of every searched node, so it is two lookups:
# per side and Neutron square, the key of a game-ending move (the mover's home
# wins, the other home loses: legal, but never good) and of any other move.
_ENDING_KEY: dict[str, tuple[int, ...]] = {
    side: tuple(3 if _towards_home(side, sq) > 0 else 0 for sq in range(SQUARES)) for side in "wb"
}
_GOING_ON_KEY: dict[str, tuple[int, ...]] = {
    side: tuple(1 + (_towards_home(side, sq) > 0) for sq in range(SQUARES)) for side in "wb"
}
