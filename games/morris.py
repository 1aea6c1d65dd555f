"""Nine Men's Morris (Molino), RULES.md section 2.

A position holds each colour's points as a 24-bit mask (bit i is POINTS[i]),
the side to move, both hands and the count of plies since the last removal.
Masks make positions cheap to copy and hash, and a mill test one AND.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, NamedTuple

from games.base import BadMove, BadPosition, Game, Outcome

#: The points in position-string order.
POINTS: tuple[str, ...] = tuple(
    "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()
)
INDEX: dict[str, int] = {p: i for i, p in enumerate(POINTS)}

_SQUARES = (
    "a1 d1 g1 g4 g7 d7 a7 a4".split(),
    "b2 d2 f2 f4 f6 d6 b6 b4".split(),
    "c3 d3 e3 e4 e5 d5 c5 c4".split(),
)
_SPOKES = ("d1 d2 d3".split(), "a4 b4 c4".split(), "e4 f4 g4".split(), "d5 d6 d7".split())


def _lines() -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int], ...]]:
    mills: list[tuple[int, int, int]] = []
    edges: list[tuple[int, int]] = []
    for ring in _SQUARES:
        # Each ring lists corner, midpoint, corner, … so sides are even-indexed triples.
        for k in range(0, 8, 2):
            a, b, c = ring[k], ring[k + 1], ring[(k + 2) % 8]
            mills.append((INDEX[a], INDEX[b], INDEX[c]))
        edges += [(INDEX[ring[k]], INDEX[ring[(k + 1) % 8]]) for k in range(8)]
    for a, b, c in _SPOKES:
        mills.append((INDEX[a], INDEX[b], INDEX[c]))
        edges += [(INDEX[a], INDEX[b]), (INDEX[b], INDEX[c])]
    return tuple(mills), tuple(edges)


MILLS, _EDGES = _lines()
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted({b for a, b in _EDGES if a == i} | {a for a, b in _EDGES if b == i})) for i in range(24)
)
MILL_MASKS: tuple[int, ...] = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in MILLS)
#: The mills through each point, as masks.
MILLS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in MILL_MASKS if m >> i & 1) for i in range(24)
)
NEIGHBOUR_MASKS: tuple[int, ...] = tuple(sum(1 << n for n in NEIGHBOURS[i]) for i in range(24))
FULL = (1 << 24) - 1

HAND_SIZE = 9
QUIET_LIMIT = 100
_OTHER = {"w": "b", "b": "w"}
_MOVE_RE = re.compile(r"^([a-g][1-7])(?:-([a-g][1-7]))?(?:x([a-g][1-7]))?$")


@dataclass(frozen=True, slots=True)
class MorrisState:
    white: int
    black: int
    side: str
    white_hand: int
    black_hand: int
    quiet: int = 0

    @property
    def board(self) -> str:
        """The 24 points as in the position string."""
        return "".join("w" if self.white >> i & 1 else "b" if self.black >> i & 1 else "." for i in range(24))

    def hand(self, side: str) -> int:
        return self.white_hand if side == "w" else self.black_hand

    def mask(self, side: str) -> int:
        return self.white if side == "w" else self.black


class MorrisMove(NamedTuple):
    """A placement (``origin`` None), slide or flight, with the removed point if any."""

    origin: int | None
    target: int
    removal: int | None = None


def _points(mask: int) -> list[int]:
    return [i for i in range(24) if mask >> i & 1]


def closes_mill(mask: int, point: int) -> bool:
    """Whether the pieces ``mask`` stand in a mill through ``point``."""
    return any(mask & m == m for m in MILLS_THROUGH[point])


def milled(mask: int) -> int:
    """The points of ``mask`` that stand in one of its mills."""
    out = 0
    for m in MILL_MASKS:
        if mask & m == m:
            out |= m
    return out


class Morris(Game[MorrisState, MorrisMove]):
    name = "morris"
    title = "Nine Men's Morris"
    sides = ("w", "b")

    def initial(self, **options: Any) -> MorrisState:
        if options:
            raise ValueError(f"Nine Men's Morris takes no options, got {sorted(options)}")
        return MorrisState(0, 0, "w", HAND_SIZE, HAND_SIZE, 0)

    def to_move(self, state: MorrisState) -> str:
        return state.side

    # ------------------------------------------------------------------ moves

    def _steps(self, state: MorrisState) -> list[tuple[int | None, int]]:
        """Where the side to move may put a piece, ignoring removals."""
        own = state.mask(state.side)
        empty = _points(FULL & ~(state.white | state.black))
        if state.hand(state.side) > 0:
            return [(None, t) for t in empty]
        mine = _points(own)
        if len(mine) == 3:
            return [(o, t) for o in mine for t in empty]
        occupied = state.white | state.black
        return [(o, t) for o in mine for t in NEIGHBOURS[o] if not occupied >> t & 1]

    def _expand(self, state: MorrisState, steps: list[tuple[int | None, int]]) -> list[MorrisMove]:
        own = state.mask(state.side)
        theirs = state.mask(_OTHER[state.side])
        # The opponent's pieces do not change with our step, so neither do the choices.
        victims = _points(theirs & ~milled(theirs)) or _points(theirs)
        moves: list[MorrisMove] = []
        for origin, target in steps:
            after = own | 1 << target
            if origin is not None:
                after &= ~(1 << origin)
            if victims and closes_mill(after, target):
                moves.extend(MorrisMove(origin, target, v) for v in victims)
            else:
                moves.append(MorrisMove(origin, target))
        return moves

    def _count(self, state: MorrisState) -> int:
        """``len(legal_moves(state))`` without building the moves: perft's leaves."""
        if self._material_loser(state) is not None or state.quiet >= QUIET_LIMIT:
            return 0
        own = state.mask(state.side)
        theirs = state.mask(_OTHER[state.side])
        choices = (theirs & ~milled(theirs)).bit_count() or theirs.bit_count()
        count = 0
        for origin, target in self._steps(state):
            after = own | 1 << target
            if origin is not None:
                after &= ~(1 << origin)
            count += choices if choices and closes_mill(after, target) else 1
        return count

    def perft(self, state: MorrisState, depth: int) -> int:
        if depth == 1:
            return self._count(state)
        return super().perft(state, depth)

    def legal_moves(self, state: MorrisState) -> list[MorrisMove]:
        if self._material_loser(state) is not None or state.quiet >= QUIET_LIMIT:
            return []
        return self._expand(state, self._steps(state))

    def apply(self, state: MorrisState, move: MorrisMove) -> MorrisState:
        white, black = state.white, state.black
        white_hand, black_hand = state.white_hand, state.black_hand
        placed = 1 << move.target
        lifted = 0 if move.origin is None else 1 << move.origin
        removed = 0 if move.removal is None else 1 << move.removal
        if state.side == "w":
            white = (white & ~lifted) | placed
            black &= ~removed
            white_hand -= move.origin is None
            side = "b"
        else:
            black = (black & ~lifted) | placed
            white &= ~removed
            black_hand -= move.origin is None
            side = "w"
        quiet = 0 if removed else state.quiet + 1
        return MorrisState(white, black, side, white_hand, black_hand, quiet)

    # ---------------------------------------------------------------- the end

    def _material_loser(self, state: MorrisState) -> str | None:
        for side in (state.side, _OTHER[state.side]):
            if state.mask(side).bit_count() + state.hand(side) < 3:
                return side
        return None

    def outcome(self, state: MorrisState) -> Outcome | None:
        loser = self._material_loser(state)
        if loser is not None:
            return Outcome(_OTHER[loser], "too-few-pieces")
        if not self._steps(state):
            return Outcome(_OTHER[state.side], "no-moves")
        if state.quiet >= QUIET_LIMIT:
            return Outcome(None, "quiet")
        return None

    def repetition_key(self, state: MorrisState) -> Hashable:
        return (state.white, state.black, state.side, state.white_hand, state.black_hand)

    def repetition_code(self, state: MorrisState) -> str:
        # The key without the quiet count: the same men, side to move and hands.
        return f"{state.side} {state.white:x} {state.black:x} {state.white_hand} {state.black_hand}"

    # --------------------------------------------------------------- notation

    def format_move(self, move: MorrisMove) -> str:
        text = POINTS[move.target]
        if move.origin is not None:
            text = f"{POINTS[move.origin]}-{text}"
        if move.removal is not None:
            text += "x" + POINTS[move.removal]
        return text

    def check_move_syntax(self, text: str) -> None:
        match = _MOVE_RE.match(text)
        if not match:
            raise BadMove(f"{text!r} is not Morris notation (d1, d1-d2, d1xa4 or d1-d2xa4)")
        for point in match.groups():
            if point is not None and point not in INDEX:
                raise BadMove(f"{point!r} is not a point of the Morris board")

    def clicks(self, move: MorrisMove) -> tuple[str, ...]:
        points = (move.origin, move.target, move.removal)
        return tuple(POINTS[p] for p in points if p is not None)

    def format_position(self, state: MorrisState) -> str:
        return f"{state.side} {state.board} {state.white_hand} {state.black_hand} {state.quiet}"

    def parse_position(self, text: str) -> MorrisState:
        fields = text.split()
        if len(fields) != 5:
            raise BadPosition(
                f"a Morris position has 5 fields (SIDE BOARD WHITE_HAND BLACK_HAND QUIET), got {len(fields)}"
            )
        side, board, white, black, quiet = fields
        if side not in _OTHER:
            raise BadPosition(f"side must be 'w' or 'b', got {side!r}")
        if len(board) != 24 or set(board) - set("wb."):
            raise BadPosition(f"board must be 24 characters of 'w', 'b' or '.', got {board!r}")
        numbers = []
        for label, value in (("white hand", white), ("black hand", black), ("quiet count", quiet)):
            if not (value.isascii() and value.isdigit()):
                raise BadPosition(f"{label} must be a whole number, got {value!r}")
            numbers.append(int(value))
        for colour, hand, label in (("w", numbers[0], "White"), ("b", numbers[1], "Black")):
            if board.count(colour) + hand > HAND_SIZE:
                raise BadPosition(f"{label} has more than {HAND_SIZE} pieces on board and in hand")
        masks = [sum(1 << i for i, c in enumerate(board) if c == colour) for colour in "wb"]
        return MorrisState(masks[0], masks[1], side, numbers[0], numbers[1], numbers[2])


GAME = Morris()
