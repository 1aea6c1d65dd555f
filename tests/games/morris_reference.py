"""A deliberately plain second implementation of RULES.md section 2, for cross-checks.

It derives the board from the 7×7 grid (every row and column of points split at the
centre gives the 16 lines) rather than from the engine's tables, and plays on a dict.
"""

from __future__ import annotations

import itertools

ORDER = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()


def _lines() -> list[list[str]]:
    points = set(ORDER)
    lines = []
    for fixed in range(7):
        for axis in ("row", "col"):
            run = []
            for k in range(7):
                f, r = (k, fixed) if axis == "row" else (fixed, k)
                name = "abcdefg"[f] + str(r + 1)
                if (f, r) == (3, 3):
                    lines.append(run)
                    run = []
                elif name in points:
                    run.append(name)
            lines.append(run)
    return [line for line in lines if len(line) == 3]


LINES = _lines()
ADJ = {p: set() for p in ORDER}
for line in LINES:
    for a, b in itertools.pairwise(line):
        ADJ[a].add(b)
        ADJ[b].add(a)


def parse(text: str) -> dict:
    side, board, wh, bh, quiet = text.split()
    return {
        "side": side,
        "board": {p: board[i] for i, p in enumerate(ORDER) if board[i] != "."},
        "hand": {"w": int(wh), "b": int(bh)},
        "quiet": int(quiet),
    }


def fmt(pos: dict) -> str:
    board = "".join(pos["board"].get(p, ".") for p in ORDER)
    return f"{pos['side']} {board} {pos['hand']['w']} {pos['hand']['b']} {pos['quiet']}"


def _milled(board: dict, point: str) -> bool:
    return any(point in line and all(board.get(q) == board[point] for q in line) for line in LINES)


def result(pos: dict) -> str:
    side = pos["side"]
    other = "b" if side == "w" else "w"
    for who in (side, other):
        if sum(1 for c in pos["board"].values() if c == who) + pos["hand"][who] < 3:
            return "win " + ("b" if who == "w" else "w")
    if not _raw_moves(pos):
        return "win " + other
    if pos["quiet"] >= 100:
        return "draw"
    return "ongoing"


def _raw_moves(pos: dict) -> list[tuple[str, dict]]:
    side = pos["side"]
    other = "b" if side == "w" else "w"
    board = pos["board"]
    empty = [p for p in ORDER if p not in board]
    mine = [p for p in ORDER if board.get(p) == side]
    if pos["hand"][side]:
        steps = [(None, t) for t in empty]
    elif len(mine) == 3:
        steps = [(o, t) for o in mine for t in empty]
    else:
        steps = [(o, t) for o in mine for t in ADJ[o] if t not in board]
    out = []
    for origin, target in steps:
        after = dict(board)
        if origin:
            del after[origin]
        after[target] = side
        text = f"{origin}-{target}" if origin else target
        hand = dict(pos["hand"])
        if not origin:
            hand[side] -= 1
        victims = [p for p in ORDER if after.get(p) == other]
        if _milled(after, target) and victims:
            loose = [v for v in victims if not _milled(after, v)] or victims
            for v in loose:
                b2 = dict(after)
                del b2[v]
                out.append((f"{text}x{v}", {"side": other, "board": b2, "hand": hand, "quiet": 0}))
        else:
            q = pos["quiet"] + 1
            out.append((text, {"side": other, "board": after, "hand": hand, "quiet": q}))
    return out


def moves(pos: dict) -> list[tuple[str, dict]]:
    if result(pos) != "ongoing":
        return []
    return _raw_moves(pos)


def perft(pos: dict, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(perft(after, depth - 1) for _, after in moves(pos))
