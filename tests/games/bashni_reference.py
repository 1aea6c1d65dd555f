"""A deliberately plain second Bashni implementation, used only to check games.bashni.

It shares no code with the engine and uses a different model on purpose: the board is
a dict from square name to a list of piece letters (bottom to top), a capture really
moves pieces from column to column as it goes, and every rule is written the way
RULES.md says it, in straightforward recursion. It is slow and that is fine.
"""

from __future__ import annotations

from dataclasses import dataclass

Board = dict[str, list[str]]

FILES = "abcdefgh"
ALL_DIRECTIONS = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def name(f: int, r: int) -> str:
    return FILES[f] + str(r + 1)


def coords(square: str) -> tuple[int, int]:
    return FILES.index(square[0]), int(square[1]) - 1


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def colour(piece: str) -> str:
    return piece.lower()


def is_king(piece: str) -> bool:
    return piece.isupper()


def other(side: str) -> str:
    return "b" if side == "w" else "w"


@dataclass
class RefPosition:
    side: str
    board: Board
    plies: int
    quiet: int


def parse(text: str) -> RefPosition:
    side, stacks, plies, quiet = text.split(" ")
    board: Board = {}
    for entry in stacks.split(","):
        square, pieces = entry.split(":")
        board[square] = list(pieces)
    return RefPosition(side, board, int(plies), int(quiet))


def write(pos: RefPosition) -> str:
    def order(square: str) -> tuple[int, int]:
        f, r = coords(square)
        return r, f

    stacks = ",".join(f"{sq}:{''.join(pos.board[sq])}" for sq in sorted(pos.board, key=order))
    return f"{pos.side} {stacks} {pos.plies} {pos.quiet}"


def copy_board(board: Board) -> Board:
    return {sq: list(col) for sq, col in board.items()}


def far_rank(side: str) -> int:
    return 7 if side == "w" else 0


@dataclass
class Capture:
    """One finished capture sequence: the squares stood on and the board after it."""

    path: list[str]
    board: Board


def capture_sequences(
    board: Board, square: str, column: list[str], side: str, jumped: set[str], path: list[str]
) -> list[Capture]:
    """Every way to go on capturing from ``square``.

    ``board`` no longer holds the moving column (its start square is empty during
    the move); ``column`` is the moving column; ``jumped`` are the squares jumped so far.
    Returns [] when no jump is possible from here.
    """
    f, r = coords(square)
    results: list[Capture] = []
    for df, dr in ALL_DIRECTIONS:
        # Find the enemy column this piece could jump in this direction.
        if is_king(column[-1]):
            k = 1
            while on_board(f + k * df, r + k * dr):
                sq = name(f + k * df, r + k * dr)
                if sq in jumped or sq in board:
                    break
                k += 1
            else:
                continue
        else:
            k = 1
            if not on_board(f + df, r + dr):
                continue
        over = name(f + k * df, r + k * dr)
        if over in jumped or over not in board or colour(board[over][-1]) == side:
            continue
        # Landing squares: empty and not jumped, up to the first blocked square.
        landings = []
        k += 1
        while on_board(f + k * df, r + k * dr):
            sq = name(f + k * df, r + k * dr)
            if sq in jumped or sq in board:
                break
            landings.append(sq)
            if not is_king(column[-1]):
                break  # a man lands directly behind the jumped column
            k += 1
        options: list[tuple[str, list[Capture], Board, list[str]]] = []
        for land in landings:
            new_board = copy_board(board)
            taken = new_board[over].pop()
            if not new_board[over]:
                del new_board[over]
            new_column = [taken, *column]
            if not is_king(new_column[-1]) and coords(land)[1] == far_rank(side):
                new_column[-1] = new_column[-1].upper()
            more = capture_sequences(new_board, land, new_column, side, jumped | {over}, [*path, land])
            options.append((land, more, new_board, new_column))
        # A king must choose a landing square from which the capture goes on, if any.
        if any(more for _, more, _, _ in options):
            options = [option for option in options if option[1]]
        for land, more, new_board, new_column in options:
            if more:
                results.extend(more)
            else:
                final = copy_board(new_board)
                final[land] = new_column
                results.append(Capture([*path, land], final))
    return results


def rule_moves(pos: RefPosition) -> dict[str, RefPosition]:
    """Move text -> resulting position, by the rules of play (no draw rules)."""
    side = pos.side
    result: dict[str, RefPosition] = {}
    for square, column in pos.board.items():
        if colour(column[-1]) != side:
            continue
        board = copy_board(pos.board)
        del board[square]
        for capture in capture_sequences(board, square, list(column), side, set(), [square]):
            text = ":".join(capture.path)
            assert text not in result, f"two captures written {text}"
            result[text] = RefPosition(other(side), capture.board, pos.plies + 1, 0)
    if result:
        return result
    for square, column in pos.board.items():
        top = column[-1]
        if colour(top) != side:
            continue
        f, r = coords(square)
        if is_king(top):
            directions = ALL_DIRECTIONS
        else:
            directions = ((1, 1), (-1, 1)) if side == "w" else ((1, -1), (-1, -1))
        for df, dr in directions:
            k = 1
            while on_board(f + k * df, r + k * dr):
                target = name(f + k * df, r + k * dr)
                if target in pos.board:
                    break
                board = copy_board(pos.board)
                moved = board.pop(square)
                if not is_king(top) and r + k * dr == far_rank(side):
                    moved[-1] = moved[-1].upper()
                board[target] = moved
                quiet = pos.quiet + 1 if is_king(top) else 0
                result[f"{square}-{target}"] = RefPosition(other(side), board, pos.plies + 1, quiet)
                if not is_king(top):
                    break
                k += 1
    return result


def legal(pos: RefPosition) -> dict[str, RefPosition]:
    """Legal moves: none once the game is over (no moves, 250 plies, 50 quiet plies)."""
    if pos.plies >= 250 or pos.quiet >= 50:
        return {}
    return rule_moves(pos)


def moves(text: str) -> list[str]:
    return sorted(legal(parse(text)))


def apply(text: str, move: str) -> str:
    return write(legal(parse(text))[move])


def result(text: str) -> str:
    pos = parse(text)
    if not rule_moves(pos):
        return f"win {other(pos.side)}"
    if pos.plies >= 250 or pos.quiet >= 50:
        return "draw"
    return "ongoing"


def perft_position(pos: RefPosition, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft_position(child, depth - 1) for child in legal(pos).values())


def perft(text: str, depth: int) -> int:
    return perft_position(parse(text), depth)
