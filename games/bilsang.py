"""Bilsang: twenty shared buoys on an unbounded grid (RULES.md section 4).

A position is a frozen value: the occupied cells as a frozenset of ``(x, y)``
tuples plus the small amount of turn state the rules carry (axis, penalty,
forbidden pair, lost buoys, plies since the last removal).

Connectivity is the expensive rule: every candidate move must leave the whole
Known Universe 8-connected. The position before the move is always connected
(``parse_position`` rejects anything else and every move keeps it so), so only
the neighbourhoods of the vacated cells can break it. A pair candidate goes
through three stages (``pair_verdict``): a constant-time ring test (a table
lookup on the eight cells around each vacated cell) proves most legal pairs;
a group test, using what each buoy would split off if it moved alone (worked
out once per buoy, not per pair), refutes most illegal ones; a full flood fill
settles the rest. Fills run on bitboards: the universe has at most twenty
buoys, so a Python int over its bounding box holds it and one fill step is a
handful of shifts. ``bench/bilsang_bench.py`` measures each stage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from games.base import BadMove, BadPosition, Game, Outcome

Cell = tuple[int, int]

BUOYS = 20
#: the quiet limit without options, and the range the ``quiet=N`` option allows
QUIET_LIMIT = 100
QUIET_RANGE = range(100, 1001)
#: what a new match is played with unless the players choose otherwise (RULES.md,
#: "Bilsang rule options"): with free pairs nobody is ever blocked
NEW_MATCH_OPTIONS: Mapping[str, Any] = MappingProxyType({"line": True, "quiet": 300})
START_CELLS: frozenset[Cell] = frozenset((x, y) for y in range(4) for x in range(5))

#: the unit step of +1 along each axis
_STEP: dict[str, Cell] = {"h": (1, 0), "v": (0, 1)}
OTHER_AXIS: dict[str, str] = {"h": "v", "v": "h"}

#: the eight neighbours of a cell, in ring order; bit i of a ring mask is RING[i]
RING: tuple[Cell, ...] = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_RING_BIT: dict[Cell, int] = {d: 1 << i for i, d in enumerate(RING)}


def _ring_is_one_group(mask: int) -> bool:
    """Whether the occupied ring cells of ``mask`` touch each other as one group.

    Only the ring itself is used, so a True answer means the centre cell can be
    emptied without cutting any path: every path through the centre can go
    round it inside the ring instead.
    """
    cells = [d for i, d in enumerate(RING) if mask >> i & 1]
    if not cells:
        return False
    seen = {cells[0]}
    todo = [cells[0]]
    while todo:
        x, y = todo.pop()
        for other in cells:
            if other not in seen and abs(other[0] - x) <= 1 and abs(other[1] - y) <= 1:
                seen.add(other)
                todo.append(other)
    return len(seen) == len(cells)


#: ring mask -> "emptying the centre cannot disconnect anything" (256 entries)
RING_SAFE: tuple[bool, ...] = tuple(_ring_is_one_group(m) for m in range(256))


def _ring_mask(cells: frozenset[Cell] | set[Cell], cell: Cell) -> int:
    x, y = cell
    mask = 0
    for i, (dx, dy) in enumerate(RING):
        if (x + dx, y + dy) in cells:
            mask |= 1 << i
    return mask


def _adjust(mask: int, centre: Cell, gone: tuple[Cell, ...], new: tuple[Cell, ...]) -> int:
    """``mask`` around ``centre`` after the cells ``gone`` empty and ``new`` fill."""
    cx, cy = centre
    for x, y in gone:
        bit = _RING_BIT.get((x - cx, y - cy))
        if bit:
            mask &= ~bit
    for x, y in new:
        bit = _RING_BIT.get((x - cx, y - cy))
        if bit:
            mask |= bit
    return mask


def is_connected(cells: frozenset[Cell] | set[Cell]) -> bool:
    """Whether ``cells`` form one 8-connected group (plain set flood fill)."""
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for dx, dy in RING:
            n = (x + dx, y + dy)
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)


class Frame:
    """Bitboard coordinates for one position: its bounding box plus a margin of two.

    A move puts a buoy at most one cell outside the box, so with two spare
    columns on each side no occupied bit ever sits in the first or last
    column, and shifting a row by one never wraps a buoy into the next row.
    """

    __slots__ = ("min_x", "min_y", "occupied", "width")

    def __init__(self, cells: frozenset[Cell]) -> None:
        self.min_x = min(x for x, _ in cells) - 2
        self.min_y = min(y for _, y in cells) - 2
        self.width = max(x for x, _ in cells) - self.min_x + 3
        self.occupied = 0
        for cell in cells:
            self.occupied |= self.bit(cell)

    def bit(self, cell: Cell) -> int:
        return 1 << (cell[0] - self.min_x + (cell[1] - self.min_y) * self.width)

    def around(self, bit: int) -> int:
        """The eight neighbours of the cell at ``bit``."""
        spread = bit | bit << 1 | bit >> 1
        return (spread | spread << self.width | spread >> self.width) ^ bit

    def shift(self, axis: str) -> int:
        """How far a bit moves for a step of +1 along ``axis``."""
        return 1 if axis == "h" else self.width


def _filled(occupied: int, seed: int, width: int) -> bool:
    """Whether a flood fill from ``seed`` reaches every bit of ``occupied``."""
    reach = seed
    while True:
        grow = reach | reach << 1 | reach >> 1
        grow = (grow | grow << width | grow >> width) & occupied
        if grow == reach:
            return reach == occupied
        reach = grow


def _groups(occupied: int, width: int) -> list[int]:
    """The connected groups of ``occupied``, each as a bitboard."""
    groups = []
    while occupied:
        reach = occupied & -occupied
        while True:
            grow = reach | reach << 1 | reach >> 1
            grow = (grow | grow << width | grow >> width) & occupied
            if grow == reach:
                break
            reach = grow
        groups.append(reach)
        occupied ^= reach
    return groups


def connected_locally(cells: frozenset[Cell], gone: tuple[Cell, ...], new: tuple[Cell, ...]) -> bool:
    """A sufficient, constant-time test that the move keeps ``cells`` connected.

    Think of the move as first adding the ``new`` cells (each is next to the
    cell it comes from, so that stays connected) and then emptying the ``gone``
    cells one at a time: each emptying is harmless when the remaining
    neighbours of that cell already touch each other inside its ring. False
    means "could not tell", not "disconnected".
    """
    removed: tuple[Cell, ...] = ()
    for cell in gone:
        removed += (cell,)
        if not RING_SAFE[_adjust(_ring_mask(cells, cell), cell, removed, new)]:
            return False
    return True


def connected_by_fill(cells: frozenset[Cell], gone: tuple[Cell, ...], new: tuple[Cell, ...]) -> bool:
    """The exact answer: a bitboard flood fill of the position after the move."""
    after = (cells - set(gone)) | set(new)
    if len(after) <= 1:
        return True
    frame = Frame(cells | set(new))
    occupied = 0
    for cell in after:
        occupied |= frame.bit(cell)
    return _filled(occupied, occupied & -occupied, frame.width)


def connected_after(cells: frozenset[Cell], gone: tuple[Cell, ...], new: tuple[Cell, ...]) -> bool:
    """Whether ``cells`` (connected) stays connected when ``gone`` empty and ``new`` fill."""
    return connected_locally(cells, gone, new) or connected_by_fill(cells, gone, new)


# --------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class BilsangState:
    """A whole Bilsang position; ``forbidden`` is empty when there is no forbidden pair.

    ``line`` and ``limit`` are the rule options (RULES.md, "Bilsang rule
    options"): pair moves only within one row or column, and the quiet limit.
    They are part of the position, as in its string, so every function of a
    position knows the rules it is played by.
    """

    player: str
    axis: str
    penalised: bool
    lost1: int
    lost2: int
    quiet: int
    cells: frozenset[Cell]
    forbidden: frozenset[Cell] = frozenset()
    line: bool = False
    limit: int = QUIET_LIMIT


@dataclass(frozen=True, slots=True)
class Pair:
    """Two buoys move along ``axis``: ``plus`` by +1, ``minus`` by -1 (also a switch)."""

    axis: str
    plus: Cell
    minus: Cell


@dataclass(frozen=True, slots=True)
class Single:
    """A penalised player's move of one buoy by ``sign`` (+1 or -1) along ``axis``."""

    axis: str
    buoy: Cell
    sign: int


@dataclass(frozen=True, slots=True)
class Removal:
    buoy: Cell


BilsangMove = Pair | Single | Removal


def _step(cell: Cell, axis: str, sign: int) -> Cell:
    dx, dy = _STEP[axis]
    return (cell[0] + sign * dx, cell[1] + sign * dy)


def _cell_name(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def _sorted_cells(cells: frozenset[Cell]) -> list[Cell]:
    return sorted(cells, key=lambda c: (c[1], c[0]))


_INT = r"-?[0-9]+"
_CELL_RE = re.compile(rf"({_INT}),({_INT})")
_NAME = r"(?:0|-?[1-9][0-9]*),(?:0|-?[1-9][0-9]*)"
_PAIR_RE = re.compile(rf"[hv] {_NAME}\+ {_NAME}-")
_SINGLE_RE = re.compile(rf"[hv] {_NAME}[+-]")
_REMOVAL_RE = re.compile(rf"x {_NAME}")


def _int(text: str, field: str) -> int:
    try:
        return int(text)
    except ValueError:
        # only Python's limit on digits gets here; the regexes vetted the rest
        raise BadPosition(f"{field}: {text[:20]!r}... is too long a number") from None


def _parse_cell(text: str, field: str) -> Cell:
    match = _CELL_RE.fullmatch(text)
    if match is None:
        raise BadPosition(f"{field}: {text!r} is not a cell written x,y")
    return (_int(match.group(1), field), _int(match.group(2), field))


def _parse_count(text: str, field: str) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise BadPosition(f"{field}: {text!r} is not a whole number")
    return _int(text, field)


def format_options(line: bool, limit: int) -> str:
    """The ninth field of a position string, ``""`` when no option is set."""
    parts = (["line"] if line else []) + ([f"quiet={limit}"] if limit != QUIET_LIMIT else [])
    return ",".join(parts)


#: the options in the order the ninth field must list them
_OPTION_ORDER = ("line", "quiet")


def parse_options(text: str) -> tuple[bool, int]:
    """Read the ninth field ``OPTIONS``: ``line``, ``quiet=N``, comma-separated, in that order."""
    line = False
    limit = QUIET_LIMIT
    seen: list[str] = []
    for part in text.split(","):
        name, eq, value = part.partition("=")
        if name not in _OPTION_ORDER or (name == "line") == bool(eq):
            raise BadPosition(f"options: {part!r} is not an option (line, quiet=N)")
        if name in seen:
            raise BadPosition(f"options: {name} is given twice")
        if seen and _OPTION_ORDER.index(name) < _OPTION_ORDER.index(seen[-1]):
            raise BadPosition(f"options: {name} must come before {seen[-1]} (the order is line, quiet=N)")
        seen.append(name)
        if name == "line":
            line = True
        else:
            limit = _parse_count(value, "options")
            if limit not in QUIET_RANGE:
                raise BadPosition(
                    f"options: quiet={value} is out of range {QUIET_RANGE.start}..{QUIET_RANGE.stop - 1}"
                )
    return line, limit


_Mover = tuple[Cell, Cell, int, int, int, bool, int, list[int]]


def _movers(
    cells: frozenset[Cell], masks: dict[Cell, int], frame: Frame, axis: str, sign: int
) -> list[_Mover]:
    """What a pair move needs to know about each buoy that can step ``sign`` along ``axis``.

    Worked out once per buoy rather than once per pair: its cell and target,
    their bits, its ring after the move as if the partner were far away (and
    whether that ring alone proves the move harmless), the target's
    neighbourhood, and the groups the universe falls into if this buoy moved
    alone (a single group, without a fill, when the ring says so). Only a buoy
    whose cell ahead is empty can move that way.
    """
    dx, dy = _STEP[axis]
    ahead = _RING_BIT[(sign * dx, sign * dy)]
    shift = frame.shift(axis)
    occupied = frame.occupied
    out: list[_Mover] = []
    for c in cells:
        mask = masks[c]
        if mask & ahead:
            continue
        bit = frame.bit(c)
        ring = mask | ahead
        to_bit = bit << shift if sign > 0 else bit >> shift
        alone = (occupied ^ bit) | to_bit
        groups = [alone] if RING_SAFE[ring] else _groups(alone, frame.width)
        to = (c[0] + sign * dx, c[1] + sign * dy)
        out.append((c, to, bit, to_bit, ring, RING_SAFE[ring], frame.around(to_bit), groups))
    return out


#: how ``pair_verdict`` decided: connected by the ring test or by a fill,
#: split by the group test or by a fill (ordered so "<= JOINED_BY_FILL" is legal)
JOINED_BY_RING, JOINED_BY_FILL, SPLIT_BY_GROUPS, SPLIT_BY_FILL = range(4)


def pair_verdict(plus: _Mover, minus: _Mover, frame: Frame) -> int:
    """Whether moving both buoys keeps the universe connected, and what decided it.

    ``plus`` and ``minus`` come from ``_movers`` for the same axis; the rules
    about targets and the forbidden pair are the caller's. The cheap tests
    come first: the ring test proves most legal pairs, the group test refutes
    most illegal ones, and a fill settles the rest.
    """
    p, p_to, p_bit, p_to_bit, p_ring, p_simple, p_to_ring, p_groups = plus
    m, m_to, m_bit, m_to_bit, m_ring, m_simple, m_to_ring, m_groups = minus
    # Ring test: empty p (both targets already filled), then m. Buoys more
    # than two apart cannot see each other's ring, so their answers from
    # _movers stand; closer ones are redone with the partner in place.
    if -2 <= m[0] - p[0] <= 2 and -2 <= m[1] - p[1] <= 2:
        if RING_SAFE[_adjust(p_ring, p, (), (m_to,))] and RING_SAFE[_adjust(m_ring, m, (p,), (p_to,))]:
            return JOINED_BY_RING
    elif p_simple and m_simple:
        return JOINED_BY_RING
    # Group test: if p moving alone splits the universe, m's move can only
    # mend it by landing next to every piece (a piece that is just m goes
    # away with it); the same from m's side.
    if len(p_groups) > 1:
        for group in p_groups:
            if group != m_bit and not group & ~m_bit & m_to_ring:
                return SPLIT_BY_GROUPS
    if len(m_groups) > 1:
        for group in m_groups:
            if group != p_bit and not group & ~p_bit & p_to_ring:
                return SPLIT_BY_GROUPS
    after = (frame.occupied ^ p_bit ^ m_bit) | p_to_bit | m_to_bit
    return JOINED_BY_FILL if _filled(after, p_to_bit, frame.width) else SPLIT_BY_FILL


# ---------------------------------------------------------------------- rules


class Bilsang(Game[BilsangState, BilsangMove]):
    name = "bilsang"
    title = "Bilsang"
    sides = ("1", "2")
    new_match_options = NEW_MATCH_OPTIONS

    def initial(self, *, line: bool = False, quiet: int = QUIET_LIMIT) -> BilsangState:  # type: ignore[override]
        """The start; ``line`` and ``quiet`` are the rule options (none: the rules of section 4).

        A wrong value raises ``ValueError`` (an unknown option is Python's
        ``TypeError``), which is what the web layer turns into a 400.
        """
        if not isinstance(line, bool):
            raise ValueError(f"line must be true or false, not {line!r}")
        if isinstance(quiet, bool) or not isinstance(quiet, int) or quiet not in QUIET_RANGE:
            raise ValueError(
                f"quiet must be a whole number {QUIET_RANGE.start}..{QUIET_RANGE.stop - 1}, not {quiet!r}"
            )
        return BilsangState("1", "-", False, 0, 0, 0, START_CELLS, line=line, limit=quiet)

    def to_move(self, state: BilsangState) -> str:
        return state.player

    # ------------------------------------------------------------- generation

    def legal_moves(self, state: BilsangState) -> list[BilsangMove]:
        if self.outcome(state) is not None:
            return []
        cells = state.cells
        frame = Frame(cells)
        masks = {c: _ring_mask(cells, c) for c in cells}
        moves = self._singles(state, frame, masks) if state.penalised else self._pairs(state, frame, masks)
        if moves:
            return moves
        # Blocked: the only way on is to give up a buoy. A connected group of
        # two or more always has a removable buoy (a leaf of a spanning tree),
        # so an unfinished position never runs out of moves.
        removals: list[BilsangMove] = []
        for c in _sorted_cells(cells):
            if RING_SAFE[masks[c]]:
                removals.append(Removal(c))
                continue
            rest = frame.occupied ^ frame.bit(c)
            if _filled(rest, rest & -rest, frame.width):
                removals.append(Removal(c))
        return removals

    def _pairs(self, state: BilsangState, frame: Frame, masks: dict[Cell, int]) -> list[BilsangMove]:
        cells = state.cells
        forbidden = state.forbidden
        # A free first turn may use either axis; later the required axis and
        # the switch (the other axis) are both on offer.
        axes = ("h", "v") if state.axis == "-" else (state.axis, OTHER_AXIS[state.axis])
        moves: list[BilsangMove] = []
        for axis in axes:
            minus = _movers(cells, masks, frame, axis, -1)
            # The same-line option: along h both buoys share their y, along v their x.
            across = 1 if axis == "h" else 0
            by_line: dict[int, list[_Mover]] = {}
            if state.line:
                for m_info in minus:
                    by_line.setdefault(m_info[0][across], []).append(m_info)
            for plus in _movers(cells, masks, frame, axis, 1):
                p = plus[0]
                for m_info in by_line.get(p[across], ()) if state.line else minus:
                    m = m_info[0]
                    if m == p or m_info[1] == plus[1]:
                        continue
                    if forbidden and p in forbidden and m in forbidden:
                        continue
                    if pair_verdict(plus, m_info, frame) <= JOINED_BY_FILL:
                        moves.append(Pair(axis, p, m))
        return moves

    def _singles(self, state: BilsangState, frame: Frame, masks: dict[Cell, int]) -> list[BilsangMove]:
        cells = state.cells
        axis = state.axis
        dx, dy = _STEP[axis]
        shift = frame.shift(axis)
        moves: list[BilsangMove] = []
        for c in cells:
            bit = frame.bit(c)
            for sign in (1, -1):
                ahead = _RING_BIT[(sign * dx, sign * dy)]
                if masks[c] & ahead:
                    continue
                to_bit = bit << shift if sign > 0 else bit >> shift
                if RING_SAFE[masks[c] | ahead] or _filled(
                    (frame.occupied ^ bit) | to_bit, to_bit, frame.width
                ):
                    moves.append(Single(axis, c, sign))
        return moves

    # ------------------------------------------------------------------ apply

    def apply(self, state: BilsangState, move: BilsangMove) -> BilsangState:
        other = "2" if state.player == "1" else "1"
        quiet = state.quiet + 1
        if isinstance(move, Pair):
            p_to = _step(move.plus, move.axis, 1)
            m_to = _step(move.minus, move.axis, -1)
            cells = (state.cells - {move.plus, move.minus}) | {p_to, m_to}
            switch = state.axis != "-" and move.axis != state.axis
            # A switch leaves the axis where it was and penalises the opponent.
            axis = state.axis if switch else OTHER_AXIS[move.axis]
            return BilsangState(
                other,
                axis,
                switch,
                state.lost1,
                state.lost2,
                quiet,
                cells,
                frozenset((p_to, m_to)),
                state.line,
                state.limit,
            )
        if isinstance(move, Single):
            to = _step(move.buoy, move.axis, move.sign)
            cells = (state.cells - {move.buoy}) | {to}
            return BilsangState(
                other,
                OTHER_AXIS[move.axis],
                False,
                state.lost1,
                state.lost2,
                quiet,
                cells,
                line=state.line,
                limit=state.limit,
            )
        # Removal: the remover loses the buoy; the quiet count starts over.
        lost1 = state.lost1 + (state.player == "1")
        lost2 = state.lost2 + (state.player == "2")
        axis = "-" if state.axis == "-" else OTHER_AXIS[state.axis]
        return BilsangState(
            other, axis, False, lost1, lost2, 0, state.cells - {move.buoy}, line=state.line, limit=state.limit
        )

    def outcome(self, state: BilsangState) -> Outcome | None:
        if len(state.cells) <= 1:
            reason = "last-buoy"
        elif state.quiet >= state.limit:
            reason = "quiet"
        else:
            return None
        if state.lost1 < state.lost2:
            return Outcome("1", reason)
        if state.lost2 < state.lost1:
            return Outcome("2", reason)
        return Outcome(None, reason)

    # ------------------------------------------------------------- notation

    def format_move(self, move: BilsangMove) -> str:
        if isinstance(move, Pair):
            return f"{move.axis} {_cell_name(move.plus)}+ {_cell_name(move.minus)}-"
        if isinstance(move, Single):
            return f"{move.axis} {_cell_name(move.buoy)}{'+' if move.sign > 0 else '-'}"
        return f"x {_cell_name(move.buoy)}"

    def check_move_syntax(self, text: str) -> None:
        if _PAIR_RE.fullmatch(text) or _SINGLE_RE.fullmatch(text) or _REMOVAL_RE.fullmatch(text):
            return
        raise BadMove(
            f"{text!r} is not Bilsang notation "
            "(pair 'h 4,0+ 0,3-' with the +1 buoy first, single 'v 2,3+', removal 'x 2,3')"
        )

    def clicks(self, move: BilsangMove) -> tuple[str, ...]:
        if isinstance(move, Pair):
            p_to = _step(move.plus, move.axis, 1)
            m_to = _step(move.minus, move.axis, -1)
            return tuple(_cell_name(c) for c in (move.plus, p_to, move.minus, m_to))
        if isinstance(move, Single):
            to = _step(move.buoy, move.axis, move.sign)
            return (_cell_name(move.buoy), _cell_name(to))
        return (_cell_name(move.buoy),)

    def click_paths(self, move: BilsangMove) -> tuple[tuple[str, ...], ...]:
        path = self.clicks(move)
        if isinstance(move, Pair):
            # Either buoy of a pair may be picked up first.
            return (path, path[2:] + path[:2])
        return (path,)

    # ------------------------------------------------------------- positions

    def format_position(self, state: BilsangState) -> str:
        cells = ";".join(_cell_name(c) for c in _sorted_cells(state.cells))
        forbidden = ";".join(_cell_name(c) for c in _sorted_cells(state.forbidden)) or "-"
        text = (
            f"{state.player} {state.axis} {int(state.penalised)} {state.lost1} {state.lost2} "
            f"{state.quiet} {cells} {forbidden}"
        )
        options = format_options(state.line, state.limit)
        return f"{text} {options}" if options else text

    def parse_position(self, text: str) -> BilsangState:
        """Read ``PLAYER AXIS PENALISED LOST1 LOST2 QUIET CELLS FORBIDDEN [OPTIONS]``.

        The string is the state, so beyond syntax only what the rules make
        impossible or leave undefined is refused: a duplicate cell; cells that
        do not number 20 - LOST1 - LOST2 (buoys only leave by removal, each
        someone's loss); a universe that is not one connected group (every
        turn must leave it connected, and the move rules assume it); QUIET
        over the quiet limit (the game ends there); a penalty with axis ``-`` (a penalty
        follows a switch, which leaves an axis, and a single move needs one);
        a forbidden pair that is not two different occupied cells.
        Accepted although a game from the start may never reach them: any
        player and QUIET with any counts, axis ``-`` later than the first turn
        or with a forbidden pair, cells (and the forbidden pair) in any order,
        integers with leading zeros, ``quiet=100`` (the same as no such
        option). Output is always canonical.
        """
        fields = text.split()
        if len(fields) not in (8, 9):
            raise BadPosition(
                "expected 8 fields PLAYER AXIS PENALISED LOST1 LOST2 QUIET CELLS FORBIDDEN "
                f"and an optional ninth, OPTIONS; got {len(fields)}"
            )
        line, limit = parse_options(fields.pop()) if len(fields) == 9 else (False, QUIET_LIMIT)
        player, axis, penalised_text, lost1_text, lost2_text, quiet_text, cells_text, forbidden_text = fields
        if player not in ("1", "2"):
            raise BadPosition(f"player: {player!r} is not 1 or 2")
        if axis not in ("h", "v", "-"):
            raise BadPosition(f"axis: {axis!r} is not h, v or -")
        if penalised_text not in ("0", "1"):
            raise BadPosition(f"penalised: {penalised_text!r} is not 0 or 1")
        penalised = penalised_text == "1"
        if penalised and axis == "-":
            # A penalty only follows a switch, which leaves an axis; with "-"
            # the rules would not say which way a single move goes.
            raise BadPosition("penalised: a penalised player needs an axis h or v, not -")
        lost1 = _parse_count(lost1_text, "lost1")
        lost2 = _parse_count(lost2_text, "lost2")
        quiet = _parse_count(quiet_text, "quiet")
        if quiet > limit:
            raise BadPosition(f"quiet: {quiet} is over {limit}; the game ends at {limit}")

        cell_list = [_parse_cell(t, "cells") for t in cells_text.split(";")]
        cells = frozenset(cell_list)
        if len(cells) != len(cell_list):
            dupes = sorted({_cell_name(c) for c in cell_list if cell_list.count(c) > 1})
            raise BadPosition(f"cells: duplicate cell {', '.join(dupes)}")
        # Buoys only ever leave by removal, and every removal is someone's loss.
        if len(cells) + lost1 + lost2 != BUOYS:
            raise BadPosition(f"counts: {len(cells)} buoys with {lost1} + {lost2} lost do not make {BUOYS}")
        if not is_connected(cells):
            raise BadPosition("cells: the Known Universe is not one connected group")

        forbidden: frozenset[Cell] = frozenset()
        if forbidden_text != "-":
            parts = forbidden_text.split(";")
            pair = [_parse_cell(t, "forbidden") for t in parts]
            if len(pair) != 2 or pair[0] == pair[1] or not all(c in cells for c in pair):
                raise BadPosition(f"forbidden: {forbidden_text!r} is not two different occupied cells")
            forbidden = frozenset(pair)
        return BilsangState(player, axis, penalised, lost1, lost2, quiet, cells, forbidden, line, limit)


GAME = Bilsang()
