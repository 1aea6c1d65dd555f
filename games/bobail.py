"""Bobail with the Neutron rules (RULES.md section 3).

The board is a 25-character string, ranks 5 down to 1 and files a to e, exactly
as in the position string, so reading and writing positions is a copy and the
string doubles as the hashable board. Square index ``i`` is file ``i % 5`` and
rank ``5 - i // 5``: rank 5 is indices 0..4 (Black's home), rank 1 is 20..24
(White's home).

Decisions where RULES.md leaves room (also listed in the module's tests):

* A position with the Neutron already on rank 1 or rank 5 is accepted by
  ``parse_position``: it is a finished position (``outcome`` names the winner,
  ``legal_moves`` is empty), whichever side is to move.
* A Neutron move that does not end the game is only legal if the mover then
  has an electron move; otherwise it is not a move at all (the [house] rule that
  a legal move is a whole turn).
* A Neutron move ending on the mover's *opponent's* winning rank is legal: it
  hands the opponent the win ("whoever moved it").
* ``check_move_syntax`` only checks the shape ``xN-yN`` or ``xN-yN xN-yN`` with
  lowercase files a-e and ranks 1-5; a well-formed move that is not a straight
  slide (``c3-c3``, ``c3-d5``) is reported as illegal, not as a syntax error.
* ``parse_position`` accepts any run of whitespace between the two fields and
  around them; ``format_position`` always writes one space.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any, NamedTuple

from games.base import BadMove, BadPosition, Game, Outcome

SIZE = 5
SQUARES = SIZE * SIZE
EMPTY = "."
NEUTRON = "n"
WHITE = "w"
BLACK = "b"
START = "w bbbbb.......n.......wwwww"

_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def square_name(index: int) -> str:
    return "abcde"[index % SIZE] + str(SIZE - index // SIZE)


def square_index(name: str) -> int:
    return (SIZE - int(name[1])) * SIZE + "abcde".index(name[0])


def _rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    # Precomputed so a slide is a walk along a tuple; rays that leave the board
    # at once are dropped, which is why "at least one square" needs no check
    # beyond the first square being empty.
    table = []
    for index in range(SQUARES):
        file, rank = index % SIZE, SIZE - 1 - index // SIZE
        rays = []
        for df, dr in _DIRECTIONS:
            ray = []
            f, r = file + df, rank + dr
            while 0 <= f < SIZE and 0 <= r < SIZE:
                ray.append((SIZE - 1 - r) * SIZE + f)
                f, r = f + df, r + dr
            if ray:
                rays.append(tuple(ray))
        table.append(tuple(rays))
    return tuple(table)


RAYS = _rays()
#: squares where a stopped Neutron ends the game, and who then wins
_HOME = {**dict.fromkeys(range(SQUARES - SIZE, SQUARES), WHITE), **dict.fromkeys(range(SIZE), BLACK)}
_OTHER = {WHITE: BLACK, BLACK: WHITE}

_SQUARE = r"[a-e][1-5]"
_STEP = rf"{_SQUARE}-{_SQUARE}"
_MOVE_RE = re.compile(rf"{_STEP}(?: {_STEP})?")


class BobailState(NamedTuple):
    side: str
    board: str


class BobailMove(NamedTuple):
    """A whole turn; the electron squares are ``None`` when the Neutron move wins."""

    neutron_from: int
    neutron_to: int
    electron_from: int | None = None
    electron_to: int | None = None


def slide_stop(board: str, ray: tuple[int, ...]) -> int:
    """Where a piece sliding along ``ray`` stops, or -1 if it cannot move."""
    last = -1
    for square in ray:
        if board[square] != EMPTY:
            break
        last = square
    return last


def _after_neutron(board: str, start: int, stop: int) -> str:
    cells = list(board)
    cells[start] = EMPTY
    cells[stop] = NEUTRON
    return "".join(cells)


def _electron_moves(board: str, side: str) -> list[tuple[int, int]]:
    moves = []
    for square in range(SQUARES):
        if board[square] == side:
            for ray in RAYS[square]:
                stop = slide_stop(board, ray)
                if stop >= 0:
                    moves.append((square, stop))
    return moves


def _count_electron_moves(board: str, side: str) -> int:
    # The first square of a ray being empty is exactly "this slide exists".
    count = 0
    for square in range(SQUARES):
        if board[square] == side:
            for ray in RAYS[square]:
                if board[ray[0]] == EMPTY:
                    count += 1
    return count


def _generate(side: str, board: str) -> list[BobailMove]:
    neutron = board.index(NEUTRON)
    if neutron in _HOME:
        return []
    moves = []
    for ray in RAYS[neutron]:
        stop = slide_stop(board, ray)
        if stop < 0:
            continue
        if stop in _HOME:
            moves.append(BobailMove(neutron, stop))
            continue
        after = _after_neutron(board, neutron, stop)
        for start, end in _electron_moves(after, side):
            moves.append(BobailMove(neutron, stop, start, end))
    return moves


def _has_move(side: str, board: str) -> bool:
    neutron = board.index(NEUTRON)
    for ray in RAYS[neutron]:
        stop = slide_stop(board, ray)
        if stop < 0:
            continue
        if stop in _HOME or _count_electron_moves(_after_neutron(board, neutron, stop), side):
            return True
    return False


def _perft(side: str, board: str, depth: int) -> int:
    # Same count as Game.perft, without building move objects or states: at the
    # last ply a Neutron move that ends the game counts once, any other counts
    # once per electron slide; earlier, a game-ending move adds nothing.
    neutron = board.index(NEUTRON)
    if neutron in _HOME:
        return 0
    other = _OTHER[side]
    total = 0
    for ray in RAYS[neutron]:
        stop = slide_stop(board, ray)
        if stop < 0:
            continue
        if stop in _HOME:
            # A winning move is a sequence of length 1 only: nothing follows it.
            if depth == 1:
                total += 1
            continue
        after = _after_neutron(board, neutron, stop)
        if depth == 1:
            total += _count_electron_moves(after, side)
            continue
        cells = list(after)
        for start, end in _electron_moves(after, side):
            cells[start] = EMPTY
            cells[end] = side
            total += _perft(other, "".join(cells), depth - 1)
            cells[end] = EMPTY
            cells[start] = side
    return total


class Bobail(Game[BobailState, BobailMove]):
    name = "bobail"
    title = "Bobail"
    sides = (WHITE, BLACK)

    def initial(self, **options: Any) -> BobailState:
        if options:
            raise TypeError(f"Bobail takes no options, got {sorted(options)}")
        return self.parse_position(START)

    def to_move(self, state: BobailState) -> str:
        return state.side

    def legal_moves(self, state: BobailState) -> list[BobailMove]:
        return _generate(state.side, state.board)

    def apply(self, state: BobailState, move: BobailMove) -> BobailState:
        cells = list(state.board)
        cells[move.neutron_from] = EMPTY
        cells[move.neutron_to] = NEUTRON
        if move.electron_from is not None and move.electron_to is not None:
            cells[move.electron_from] = EMPTY
            cells[move.electron_to] = state.side
        return BobailState(_OTHER[state.side], "".join(cells))

    def outcome(self, state: BobailState) -> Outcome | None:
        neutron = state.board.index(NEUTRON)
        if neutron in _HOME:
            return Outcome(_HOME[neutron], "neutron-home")
        if not _has_move(state.side, state.board):
            return Outcome(_OTHER[state.side], "no-moves")
        return None

    def repetition_key(self, state: BobailState) -> Hashable | None:
        # The state is exactly board and side to move, which is what must recur.
        return state

    def repetition_code(self, state: BobailState) -> str:
        return self.format_position(state)

    def perft(self, state: BobailState, depth: int) -> int:
        if depth <= 0:
            return 1
        return _perft(state.side, state.board, depth)

    def format_move(self, move: BobailMove) -> str:
        text = f"{square_name(move.neutron_from)}-{square_name(move.neutron_to)}"
        if move.electron_from is None or move.electron_to is None:
            return text
        return f"{text} {square_name(move.electron_from)}-{square_name(move.electron_to)}"

    def check_move_syntax(self, text: str) -> None:
        if not _MOVE_RE.fullmatch(text):
            raise BadMove(f"{text!r} is not Bobail notation (expected like 'c3-c1' or 'c3-e5 a1-a4')")

    def format_position(self, state: BobailState) -> str:
        return f"{state.side} {state.board}"

    def parse_position(self, text: str) -> BobailState:
        fields = text.split()
        if len(fields) != 2:
            raise BadPosition(f"expected 2 fields 'SIDE BOARD', got {len(fields)}")
        side, board = fields
        if side not in self.sides:
            raise BadPosition(f"side must be 'w' or 'b', got {side!r}")
        if len(board) != SQUARES:
            raise BadPosition(f"board must be {SQUARES} characters, got {len(board)}")
        for index, char in enumerate(board):
            if char not in (EMPTY, NEUTRON, WHITE, BLACK):
                raise BadPosition(f"board has bad character {char!r} at {square_name(index)}")
        if board.count(NEUTRON) != 1:
            raise BadPosition(f"board must hold exactly one Neutron 'n', found {board.count(NEUTRON)}")
        for piece, colour in ((WHITE, "white"), (BLACK, "black")):
            if board.count(piece) != SIZE:
                raise BadPosition(
                    f"board must hold {SIZE} {colour} electrons {piece!r}, found {board.count(piece)}"
                )
        return BobailState(side, board)

    def clicks(self, move: BobailMove) -> tuple[str, ...]:
        squares = [move.neutron_from, move.neutron_to]
        if move.electron_from is not None and move.electron_to is not None:
            squares += [move.electron_from, move.electron_to]
        return tuple(square_name(s) for s in squares)


GAME = Bobail()
