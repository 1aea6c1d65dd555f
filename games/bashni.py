"""Bashni (column draughts), exactly as RULES.md section 1 describes it.

Representation, chosen for search speed:

* squares are numbered ``rank * 8 + file`` (``a1`` = 0, ``h8`` = 63), so plain
  integer shifts walk the diagonals (+9 north-east, +7 north-west, -7 south-east,
  -9 south-west) and ascending order is the position string's rank-then-file order;
* a position is a tuple (``Position``) holding the 64 columns as strings, bottom
  to top (``""`` for an empty square), plus three bitboards of the *tops*
  (white-topped, black-topped, king-topped squares). Only tops matter for move
  generation, so the generator never looks at the strings;
* a move is ``(path, jumps)``: the squares the column stands on (start, then
  every landing) and the squares it jumped, in order. ``jumps`` is empty for a
  simple move.

During a capture the board is treated as frozen: a jumped square keeps blocking
the rest of the move whatever is left on it, and a column's colour only changes
on jumped squares, so the tops at the start of the move decide everything. Only
the start square changes (it counts as empty), which the generator handles by
adding it to the empty set.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from games.base import BadMove, BadPosition, Game, IllegalMove, Outcome

WHITE, BLACK = 0, 1
SIDE_LETTERS = ("w", "b")
PLY_LIMIT = 250
QUIET_LIMIT = 50
PIECES_PER_SIDE = 12
#: the men a handicapped White loses, first removed first (RULES.md, solo streak)
HANDICAP_ORDER = ("a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3")

FILES = "abcdefgh"
NAMES: tuple[str, ...] = tuple(FILES[sq % 8] + str(sq // 8 + 1) for sq in range(64))
SQUARE_OF: dict[str, int] = {NAMES[sq]: sq for sq in range(64) if (sq % 8 + sq // 8) % 2 == 0}
DARK_SQUARES: tuple[int, ...] = tuple(sorted(SQUARE_OF.values()))
BIT: tuple[int, ...] = tuple(1 << sq for sq in range(64))
DARK = sum(BIT[sq] for sq in DARK_SQUARES)
RANK1 = sum(BIT[sq] for sq in DARK_SQUARES if sq < 8)
RANK8 = sum(BIT[sq] for sq in DARK_SQUARES if sq >= 56)
#: a man of this side that ends a step here becomes a king
FAR_RANK = (RANK8, RANK1)

#: (file step, rank step) of the four diagonals: NE, NW, SE, SW
DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    f, r = sq % 8 + df, sq // 8 + dr
    out = []
    while 0 <= f < 8 and 0 <= r < 8:
        out.append(r * 8 + f)
        f, r = f + df, r + dr
    return tuple(out)


def _ray_masks(df: int, dr: int) -> tuple[int, ...]:
    """Per square, the bitboard of the squares beyond it in one direction."""
    return tuple(sum(1 << x for x in _ray(sq, df, dr)) for sq in range(64))


# Rays with the shift of one step along them. NE and NW run towards higher square
# numbers (shift left), SE and SW towards lower ones (shift right).
UP_RAYS: tuple[tuple[tuple[int, ...], int], ...] = ((_ray_masks(1, 1), 9), (_ray_masks(-1, 1), 7))
DOWN_RAYS: tuple[tuple[tuple[int, ...], int], ...] = ((_ray_masks(1, -1), 7), (_ray_masks(-1, -1), 9))

#: MAN_JUMPS[sq]: (jumped bit, landing bit, jumped square, landing square) per direction
MAN_JUMPS: tuple[tuple[tuple[int, int, int, int], ...], ...] = tuple(
    tuple(
        (1 << ray[0], 1 << ray[1], ray[0], ray[1])
        for ray in (_ray(sq, df, dr) for df, dr in DIRECTIONS)
        if len(ray) >= 2
    )
    for sq in range(64)
)


def _mask(pred: Callable[[int, int], bool]) -> int:
    return sum(BIT[sq] for sq in DARK_SQUARES if pred(sq % 8, sq // 8))


# Source masks keep shifted bitboards from wrapping round a board edge.
STEP_E = _mask(lambda f, r: f < 7)  # one step towards file h is on the board
STEP_W = _mask(lambda f, r: f > 0)
JUMP_E = _mask(lambda f, r: f < 6)  # two steps towards file h are on the board
JUMP_W = _mask(lambda f, r: f > 1)

#: top piece letter -> (is white, is king)
TOP_KIND = {"w": (True, False), "W": (True, True), "b": (False, False), "B": (False, True)}
PROMOTE = {"w": "W", "b": "B"}


class Position(NamedTuple):
    """An immutable Bashni position.

    ``white``, ``black`` and ``kings`` are derived from ``stacks`` (bitboards of
    the squares whose *top* piece is white, black, a king); they are stored so
    the move generator never decodes strings. Build positions with
    ``Bashni.parse_position``/``initial``/``apply``, which keep them consistent.
    """

    side: int  # WHITE or BLACK, the side to move
    stacks: tuple[str, ...]  # 64 columns, bottom to top, "" where empty
    white: int
    black: int
    kings: int
    plies: int
    quiet: int


#: (path, jumps): the squares stood on (start, then each landing) and the squares jumped
Move = tuple[tuple[int, ...], tuple[int, ...]]

_new_position = tuple.__new__  # skips NamedTuple's Python-level __new__ in the hot path


def _squares(mask: int) -> list[int]:
    """The set squares of a bitboard, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _tops(stacks: tuple[str, ...]) -> tuple[int, int, int]:
    white = black = kings = 0
    for sq, col in enumerate(stacks):
        if col:
            is_white, is_king = TOP_KIND[col[-1]]
            if is_white:
                white |= BIT[sq]
            else:
                black |= BIT[sq]
            if is_king:
                kings |= BIT[sq]
    return white, black, kings


def make_position(side: int, stacks: tuple[str, ...], plies: int, quiet: int) -> Position:
    """A position with its top bitboards computed from ``stacks``."""
    white, black, kings = _tops(stacks)
    return Position(side, stacks, white, black, kings, plies, quiet)


# ------------------------------------------------------------------ generation
#
# ``enemy`` and ``empty`` below are the tops at the start of the move, with the
# moving column's start square counted empty. A jumped square stays non-empty in
# this frozen view, which is exactly what the rules ask: it can be neither crossed
# nor landed on again. ``jumped`` (a bitboard) only stops a second jump over it.
# On a ray, the first blocker is the lowest set bit going up and the highest going down.


#: per side to move: top letter -> (belongs to the mover, is a king)
OWNERSHIP: tuple[dict[str, tuple[bool, bool]], ...] = tuple(
    {letter: (is_white == (side == WHITE), is_king) for letter, (is_white, is_king) in TOP_KIND.items()}
    for side in (WHITE, BLACK)
)


def _king_jumps(sq: int, targets: int, empty: int) -> list[tuple[int, int]]:
    """(jumped bit, landing squares bitboard) for each direction a king on ``sq`` can jump."""
    out = []
    for rays, _ in UP_RAYS:
        ray = rays[sq]
        blockers = ray & ~empty
        first = blockers & -blockers
        if first & targets:
            beyond = ray & ~((first << 1) - 1)
            rest = beyond & ~empty
            # Landings run up to the next blocker; with none, -1 keeps the whole ray.
            landings = beyond & ((rest & -rest) - 1)
            if landings:
                out.append((first, landings))
    for rays, _ in DOWN_RAYS:
        ray = rays[sq]
        blockers = ray & ~empty
        if blockers:
            first = 1 << (blockers.bit_length() - 1)
            if first & targets:
                beyond = ray & (first - 1)
                landings = beyond & ~((1 << (beyond & ~empty).bit_length()) - 1)
                if landings:
                    out.append((first, landings))
    return out


def _king_can_capture(sq: int, targets: int, empty: int) -> bool:
    """Whether a king on ``sq`` can jump one of ``targets``."""
    for rays, shift in UP_RAYS:
        ray = rays[sq]
        blockers = ray & ~empty
        first = blockers & -blockers
        if first & targets and (first << shift) & ray & empty:
            return True
    for rays, shift in DOWN_RAYS:
        ray = rays[sq]
        blockers = ray & ~empty
        if blockers:
            first = 1 << (blockers.bit_length() - 1)
            if first & targets and (first >> shift) & ray & empty:
                return True
    return False


def _king_slides(sq: int, empty: int) -> int:
    """Bitboard of the squares a king on ``sq`` can slide to."""
    out = 0
    for rays, _ in UP_RAYS:
        ray = rays[sq]
        blockers = ray & ~empty
        out |= ray & ((blockers & -blockers) - 1)
    for rays, _ in DOWN_RAYS:
        ray = rays[sq]
        out |= ray & ~((1 << (ray & ~empty).bit_length()) - 1)
    return out


def _man_chains(
    sq: int, targets: int, empty: int, far: int, path: tuple[int, ...], jumps: tuple[int, ...]
) -> list[Move]:
    """Every capture a man on ``sq`` can still make; [] when it cannot jump."""
    out: list[Move] = []
    for over_bit, land_bit, over, land in MAN_JUMPS[sq]:
        if over_bit & targets and land_bit & empty:
            path2 = (*path, land)
            jumps2 = (*jumps, over)
            if land_bit & far:
                # Promotion ends the step; the rest of the capture is a king's.
                more = _king_chains(land, targets ^ over_bit, empty, path2, jumps2)
            else:
                more = _man_chains(land, targets ^ over_bit, empty, far, path2, jumps2)
            if more:
                out.extend(more)
            else:
                out.append((path2, jumps2))
    return out


def _king_chains(
    sq: int, targets: int, empty: int, path: tuple[int, ...], jumps: tuple[int, ...]
) -> list[Move]:
    """Every capture a king on ``sq`` can still make; [] when it cannot jump."""
    out: list[Move] = []
    for over_bit, landings in _king_jumps(sq, targets, empty):
        jumps2 = (*jumps, over_bit.bit_length() - 1)
        rest = targets ^ over_bit
        going_on: list[Move] = []
        for land in _squares(landings):
            going_on.extend(_king_chains(land, rest, empty, (*path, land), jumps2))
        if going_on:
            # Landings from which the capture goes on exclude all the others.
            out.extend(going_on)
        else:
            out.extend(((*path, land), jumps2) for land in _squares(landings))
    return out


def _man_count(sq: int, targets: int, empty: int, far: int) -> int:
    """``len(_man_chains(...))`` without building the moves."""
    total = 0
    for over_bit, land_bit, _, land in MAN_JUMPS[sq]:
        if over_bit & targets and land_bit & empty:
            if land_bit & far:
                more = _king_count(land, targets ^ over_bit, empty)
            else:
                more = _man_count(land, targets ^ over_bit, empty, far)
            total += more or 1
    return total


def _king_count(sq: int, targets: int, empty: int) -> int:
    """``len(_king_chains(...))`` without building the moves."""
    total = 0
    for over_bit, landings in _king_jumps(sq, targets, empty):
        rest = targets ^ over_bit
        going_on = 0
        for land in _squares(landings):
            going_on += _king_count(land, rest, empty)
        total += going_on or landings.bit_count()
    return total


def _men_jumpers(men: int, enemy: int, empty: int) -> int:
    """The men that can make a first jump (in any of the four directions)."""
    return (
        (men & JUMP_E & (enemy >> 9) & (empty >> 18))
        | (men & JUMP_W & (enemy >> 7) & (empty >> 14))
        | (men & JUMP_E & (enemy << 7) & (empty << 14))
        | (men & JUMP_W & (enemy << 9) & (empty << 18))
    )


def _man_steps(side: int, men: int, empty: int) -> tuple[int, int]:
    """Targets of the forward steps towards file h and towards file a."""
    if side == WHITE:
        return ((men & STEP_E) << 9) & empty, ((men & STEP_W) << 7) & empty
    return ((men & STEP_E) >> 7) & empty, ((men & STEP_W) >> 9) & empty


def _own_enemy(pos: Position) -> tuple[int, int]:
    if pos.side == WHITE:
        return pos.white, pos.black
    return pos.black, pos.white


def generate(pos: Position) -> list[Move]:
    """Every legal move by the rules of play alone (the draw rules are not applied)."""
    side = pos.side
    own, enemy = _own_enemy(pos)
    empty = DARK & ~(own | enemy)
    kings = own & pos.kings
    men = own ^ kings
    far = FAR_RANK[side]
    moves: list[Move] = []
    for sq in _squares(_men_jumpers(men, enemy, empty)):
        moves += _man_chains(sq, enemy, empty | BIT[sq], far, (sq,), ())
    for sq in _squares(kings):
        moves += _king_chains(sq, enemy, empty | BIT[sq], (sq,), ())
    if moves:
        return moves
    east, west = _man_steps(side, men, empty)
    # The step's shift, undone, gives the square each man came from.
    back_east, back_west = (9, 7) if side == WHITE else (-7, -9)
    moves = [((to - back_east, to), ()) for to in _squares(east)]
    moves += [((to - back_west, to), ()) for to in _squares(west)]
    for sq in _squares(kings):
        moves += [((sq, to), ()) for to in _squares(_king_slides(sq, empty))]
    return moves


def _count(side: int, own: int, enemy: int, all_kings: int) -> int:
    """How many moves the side to move has, by the rules of play."""
    empty = DARK & ~(own | enemy)
    kings = own & all_kings
    men = own ^ kings
    jumpers = _men_jumpers(men, enemy, empty)
    if jumpers or kings:
        far = FAR_RANK[side]
        total = 0
        for sq in _squares(jumpers):
            total += _man_count(sq, enemy, empty | BIT[sq], far)
        for sq in _squares(kings):
            total += _king_count(sq, enemy, empty | BIT[sq])
        if total:
            return total
    east, west = _man_steps(side, men, empty)
    total = east.bit_count() + west.bit_count()
    for sq in _squares(kings):
        total += _king_slides(sq, empty).bit_count()
    return total


def count_moves(pos: Position) -> int:
    """``len(generate(pos))`` without building the moves."""
    own, enemy = _own_enemy(pos)
    return _count(pos.side, own, enemy, pos.kings)


def has_moves(pos: Position) -> bool:
    """Whether the side to move has any move by the rules of play."""
    own, enemy = _own_enemy(pos)
    empty = DARK & ~(own | enemy)
    kings = own & pos.kings
    men = own ^ kings
    east, west = _man_steps(pos.side, men, empty)
    if east or west or _men_jumpers(men, enemy, empty):
        return True
    # A king can slide whenever a neighbouring square is empty.
    neighbours = ((kings & STEP_E) << 9) | ((kings & STEP_W) << 7)
    neighbours |= ((kings & STEP_E) >> 7) | ((kings & STEP_W) >> 9)
    if neighbours & empty:
        return True
    return any(_king_can_capture(sq, enemy, empty | BIT[sq]) for sq in _squares(kings))


def has_capture(pos: Position) -> bool:
    """Whether the side to move has a capture, and so must capture (the search's quiescence test)."""
    own, enemy = _own_enemy(pos)
    empty = DARK & ~(own | enemy)
    kings = own & pos.kings
    if _men_jumpers(own ^ kings, enemy, empty):
        return True
    return any(_king_can_capture(sq, enemy, empty | BIT[sq]) for sq in _squares(kings))


def _promotes(path: tuple[int, ...], far: int) -> bool:
    """Whether a man moving along ``path`` reaches its far rank (and so is crowned)."""
    if far & BIT[path[-1]]:
        return True
    # Only a capture has landings before the last, where a man may be crowned mid-move.
    return any(far & BIT[sq] for sq in path[1:-1]) if len(path) > 2 else False


def play(pos: Position, move: Move) -> Position:
    """The position after ``move`` (which must be legal in ``pos``)."""
    path, jumps = move
    start, end = path[0], path[-1]
    start_bit, end_bit = BIT[start], BIT[end]
    side = pos.side
    if side == WHITE:
        own, enemy = pos.white, pos.black
    else:
        own, enemy = pos.black, pos.white
    kings = pos.kings
    stacks = list(pos.stacks)
    column = stacks[start]
    stacks[start] = ""
    is_king = kings & start_bit
    if jumps:
        ownership = OWNERSHIP[side]
        for sq in jumps:
            jumped = stacks[sq]
            # The taken piece goes under the column at once: the last one taken ends lowest.
            column = jumped[-1] + column
            jumped = jumped[:-1]
            stacks[sq] = jumped
            b = BIT[sq]
            enemy &= ~b
            kings &= ~b
            if jumped:
                mine, king_below = ownership[jumped[-1]]
                if mine:
                    own |= b
                else:
                    enemy |= b
                if king_below:
                    kings |= b
        quiet = 0
    else:
        # Only a king's slide adds to the quiet count; a man's move resets it.
        quiet = pos.quiet + 1 if is_king else 0
    if not is_king and _promotes(path, FAR_RANK[side]):
        column = column[:-1] + PROMOTE[column[-1]]
        is_king = 1
    stacks[end] = column
    own = (own & ~start_bit) | end_bit
    kings &= ~start_bit
    if is_king:
        kings |= end_bit
    white, black = (own, enemy) if side == WHITE else (enemy, own)
    return _new_position(Position, (1 - side, tuple(stacks), white, black, kings, pos.plies + 1, quiet))


def _count_children(pos: Position, moves: list[Move]) -> int:
    """Sum of the children's move counts, computing only their tops (perft's last two plies)."""
    if pos.plies + 1 >= PLY_LIMIT:
        return 0
    side = pos.side
    stacks = pos.stacks
    far = FAR_RANK[side]
    ownership = OWNERSHIP[side]
    own0, enemy0 = _own_enemy(pos)
    kings0 = pos.kings
    quiet_after_king = pos.quiet + 1
    total = 0
    for path, jumps in moves:
        start_bit, end_bit = BIT[path[0]], BIT[path[-1]]
        own, enemy, kings = own0, enemy0, kings0
        was_king = kings & start_bit
        for sq in jumps:
            b = BIT[sq]
            enemy &= ~b
            kings &= ~b
            column = stacks[sq]
            if len(column) > 1:
                mine, is_king = ownership[column[-2]]
                if mine:
                    own |= b
                else:
                    enemy |= b
                if is_king:
                    kings |= b
        if not jumps and was_king and quiet_after_king >= QUIET_LIMIT:
            continue  # the child is drawn by the quiet rule and has no moves
        own = (own & ~start_bit) | end_bit
        kings &= ~start_bit
        if was_king or _promotes(path, far):
            kings |= end_bit
        total += _count(1 - side, enemy, own, kings)
    return total


def is_drawn(pos: Position) -> Outcome | None:
    """The draw rules, in RULES.md's order (the ply limit first)."""
    if pos.plies >= PLY_LIMIT:
        return Outcome(None, "ply-limit")
    if pos.quiet >= QUIET_LIMIT:
        return Outcome(None, "quiet")
    return None


def perft(pos: Position, depth: int) -> int:
    """``Game.perft``'s count, with the last two plies counted from tops alone."""
    if depth <= 0:
        return 1
    if pos.plies >= PLY_LIMIT or pos.quiet >= QUIET_LIMIT:
        return 0
    if depth == 1:
        return count_moves(pos)
    moves = generate(pos)
    if depth == 2:
        return _count_children(pos, moves)
    return sum(perft(play(pos, m), depth - 1) for m in moves)


# ------------------------------------------------------------------ text

_SQUARE = "[a-h][1-8]"
_MOVE_RE = re.compile(rf"({_SQUARE})(?:-({_SQUARE})|((?::{_SQUARE})+))")
_NUMBER_RE = re.compile(r"0|[1-9][0-9]*")
_PIECES_RE = re.compile(r"[wWbB]+")


def format_move(move: Move) -> str:
    path, jumps = move
    return (":" if jumps else "-").join(NAMES[sq] for sq in path)


def parse_move_text(text: str) -> tuple[tuple[int, ...], bool]:
    """(squares, is capture) of a move in notation; ``BadMove`` if it is not notation."""
    match = _MOVE_RE.fullmatch(text)
    if match is None:
        raise BadMove(f"{text!r} is not a Bashni move (expected e.g. c3-d4 or c3:e5:c7)")
    names = text.replace("-", ":").split(":")
    squares = []
    for name in names:
        sq = SQUARE_OF.get(name)
        if sq is None:
            raise BadMove(f"{text!r} names {name}, which is not a dark square of the board")
        squares.append(sq)
    return tuple(squares), match.group(2) is None


def format_position(pos: Position) -> str:
    stacks = ",".join(f"{NAMES[sq]}:{col}" for sq, col in enumerate(pos.stacks) if col)
    return f"{SIDE_LETTERS[pos.side]} {stacks} {pos.plies} {pos.quiet}"


def _parse_count(field: str, text: str) -> int:
    if not _NUMBER_RE.fullmatch(text):
        raise BadPosition(f"{field} must be a whole number without sign or leading zeros, got {text!r}")
    return int(text)


def parse_position(text: str) -> Position:
    """Read ``SIDE STACKS PLIES QUIET``; ``BadPosition`` names the first wrong field.

    What is accepted, beyond the format of RULES.md:
    * fields may be separated by any run of whitespace (written back with single spaces);
    * stacks may come in any order, each on a distinct dark square, none empty, so a
      position always has at least one column;
    * fewer than 12 pieces a side are fine (hand-built positions), more are not,
      since pieces never leave the board;
    * PLIES and QUIET are plain decimals (no sign, no leading zeros) and QUIET may not
      exceed PLIES. Nothing ties PLIES to the side to move, and men may stand on
      any rank (a man is only crowned by a step that ends on the far rank).
    """
    fields = text.split()
    if len(fields) != 4:
        raise BadPosition(
            f"expected 4 fields 'SIDE STACKS PLIES QUIET' separated by spaces, got {len(fields)}"
        )
    side_text, stacks_text, plies_text, quiet_text = fields
    if side_text not in SIDE_LETTERS:
        raise BadPosition(f"side must be 'w' or 'b', got {side_text!r}")
    stacks = [""] * 64
    counts = {"w": 0, "b": 0}
    for entry in stacks_text.split(","):
        name, colon, pieces = entry.partition(":")
        if not colon:
            raise BadPosition(f"stack {entry!r} must be written square:pieces, e.g. d4:bbW")
        if len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
            raise BadPosition(f"stack {entry!r}: {name!r} is not a square a1..h8")
        sq = SQUARE_OF.get(name)
        if sq is None:
            raise BadPosition(f"stack {entry!r}: square {name} is not dark")
        if not pieces:
            raise BadPosition(f"stack {entry!r}: a column needs at least one piece")
        if not _PIECES_RE.fullmatch(pieces):
            bad = next(c for c in pieces if c not in "wWbB")
            raise BadPosition(f"stack {entry!r}: bad piece letter {bad!r} (use w, W, b, B)")
        if stacks[sq]:
            raise BadPosition(f"stack {entry!r}: duplicate square {name}")
        stacks[sq] = pieces
        for piece in pieces:
            counts[piece.lower()] += 1
    for letter, colour in (("w", "white"), ("b", "black")):
        if counts[letter] > PIECES_PER_SIDE:
            raise BadPosition(
                f"stacks hold {counts[letter]} {colour} pieces; a side has at most {PIECES_PER_SIDE}"
            )
    plies = _parse_count("plies", plies_text)
    quiet = _parse_count("quiet", quiet_text)
    if quiet > plies:
        raise BadPosition(f"quiet ({quiet}) cannot exceed plies ({plies})")
    return make_position(SIDE_LETTERS.index(side_text), tuple(stacks), plies, quiet)


# ------------------------------------------------------------------ the engine


class Bashni(Game[Position, Move]):
    """Bashni behind the ``Game`` interface; the work is done by the module's functions.

    ``legal_moves`` applies the draw rules (none once 250 plies or 50 quiet plies are
    reached) on top of ``generate``, which knows only the rules of play; ``outcome``
    asks ``has_moves`` first, so the two never call each other.
    """

    name = "bashni"
    title = "Bashni"
    sides = ("w", "b")

    def initial(self, handicap: int = 0, **options: Any) -> Position:
        """The start; ``handicap`` k (0..12) removes White's first k men in HANDICAP_ORDER."""
        if options:
            raise ValueError(f"unknown Bashni options: {', '.join(sorted(options))}")
        if isinstance(handicap, bool) or not isinstance(handicap, int) or not 0 <= handicap <= 12:
            raise ValueError(f"handicap must be a whole number 0..12, got {handicap!r}")
        removed = {SQUARE_OF[name] for name in HANDICAP_ORDER[:handicap]}
        stacks = [""] * 64
        for sq in DARK_SQUARES:
            if sq < 24 and sq not in removed:
                stacks[sq] = "w"
            elif sq >= 40:
                stacks[sq] = "b"
        return make_position(WHITE, tuple(stacks), 0, 0)

    def to_move(self, state: Position) -> str:
        return SIDE_LETTERS[state.side]

    def legal_moves(self, state: Position) -> list[Move]:
        if state.plies >= PLY_LIMIT or state.quiet >= QUIET_LIMIT:
            return []
        return generate(state)

    def apply(self, state: Position, move: Move) -> Position:
        return play(state, move)

    def outcome(self, state: Position) -> Outcome | None:
        if not has_moves(state):
            return Outcome(SIDE_LETTERS[1 - state.side], "no-moves")
        return is_drawn(state)

    def format_move(self, move: Move) -> str:
        return format_move(move)

    def format_position(self, state: Position) -> str:
        return format_position(state)

    def parse_position(self, text: str) -> Position:
        return parse_position(text)

    def clicks(self, move: Move) -> tuple[str, ...]:
        return tuple(NAMES[sq] for sq in move[0])

    def check_move_syntax(self, text: str) -> None:
        parse_move_text(text)

    def parse_move(self, state: Position, text: str) -> Move:
        text = " ".join(text.split())
        squares, is_capture = parse_move_text(text)
        if self.outcome(state) is not None:
            raise IllegalMove(f"the game is over; {text!r} cannot be played", key="game-over")
        for move in generate(state):
            if move[0] == squares and bool(move[1]) == is_capture:
                return move
        raise IllegalMove(f"{text!r} is not a legal move in this position")

    def perft(self, state: Position, depth: int) -> int:
        return perft(state, depth)


GAME = Bashni()
