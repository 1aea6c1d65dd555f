"""A deliberately plain second Bobail implementation, used only to check the engine.

It shares no code with ``games.bobail``: the board is a dict from (file, rank),
both counted 1..5, to a piece letter, moves are produced directly as notation
text, and nothing is precomputed or clever. Slow, but easy to check by eye
against RULES.md section 3.
"""

from __future__ import annotations

FILES = "abcde"
STEPS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]

Board = dict[tuple[int, int], str]


def read(position: str) -> tuple[str, Board]:
    side, text = position.split(" ")
    board: Board = {}
    for i, char in enumerate(text):
        rank = 5 - i // 5
        file = i % 5 + 1
        if char != ".":
            board[(file, rank)] = char
    return side, board


def write(side: str, board: Board) -> str:
    chars = []
    for rank in range(5, 0, -1):
        for file in range(1, 6):
            chars.append(board.get((file, rank), "."))
    return side + " " + "".join(chars)


def name(square: tuple[int, int]) -> str:
    return FILES[square[0] - 1] + str(square[1])


def where(text: str) -> tuple[int, int]:
    return (FILES.index(text[0]) + 1, int(text[1]))


def on_board(square: tuple[int, int]) -> bool:
    return 1 <= square[0] <= 5 and 1 <= square[1] <= 5


def slides(board: Board, start: tuple[int, int]) -> list[tuple[int, int]]:
    """Every square a piece on ``start`` can slide to: one per open direction."""
    ends = []
    for df, dr in STEPS:
        here = start
        while True:
            nxt = (here[0] + df, here[1] + dr)
            if not on_board(nxt) or nxt in board:
                break
            here = nxt
        if here != start:
            ends.append(here)
    return ends


def neutron_square(board: Board) -> tuple[int, int]:
    return next(sq for sq, piece in board.items() if piece == "n")


def winner(board: Board) -> str | None:
    rank = neutron_square(board)[1]
    if rank == 1:
        return "w"
    if rank == 5:
        return "b"
    return None


def moves(position: str) -> list[str]:
    side, board = read(position)
    if winner(board) is not None:
        return []
    result = []
    start = neutron_square(board)
    for stop in slides(board, start):
        if stop[1] in (1, 5):
            result.append(name(start) + "-" + name(stop))
            continue
        after = dict(board)
        del after[start]
        after[stop] = "n"
        for square, piece in after.items():
            if piece == side:
                for end in slides(after, square):
                    result.append(f"{name(start)}-{name(stop)} {name(square)}-{name(end)}")
    return sorted(result)


def play(position: str, move: str) -> str:
    side, board = read(position)
    board = dict(board)
    for part in move.split(" "):
        a, b = part.split("-")
        piece = board.pop(where(a))
        board[where(b)] = piece
    return write("b" if side == "w" else "w", board)


def result(position: str) -> str:
    """'ongoing' or 'win SIDE', as the CLI's result verb writes it."""
    side, board = read(position)
    won = winner(board)
    if won is not None:
        return "win " + won
    if not moves(position):
        return "win " + ("b" if side == "w" else "w")
    return "ongoing"


def perft(position: str, depth: int) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return len(moves(position))
    return sum(perft(play(position, m), depth - 1) for m in moves(position))
