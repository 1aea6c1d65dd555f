"""Words for what is on a board and what happened on it, for screen readers and typed
commands (whose answers are app/services/typed_commands.py).

The server builds every description from the position and the moves (the browser only reads
them out), so no rule of any game lives in JavaScript. Texts are English msgids translated
with the viewer's ``gettext`` (``tr``); Spanish is in app/translations/es.po.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import games
from app.texts import N_, SIDE_LABELS
from games.base import Game

Tr = Callable[[str], str]

#: Cursor directions, in the order of the lists in ``navigation``.
DIRECTIONS = ("up", "right", "down", "left")
_VECTORS = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}


# ------------------------------------------------------------------ points


#: Spanish needs each colour agreeing with its noun, so every pairing is its own text.
PIECES = {
    "w": N_("white man"),
    "b": N_("black man"),
    "W": N_("white king"),
    "B": N_("black king"),
}
COLUMNS = {"w": N_("white column of %(count)d"), "b": N_("black column of %(count)d")}
IN_ALL = {"w": N_("%(count)d white pieces in all"), "b": N_("%(count)d black pieces in all")}
PRISONERS = {
    "w": (N_("1 white prisoner"), N_("%(count)d white prisoners")),
    "b": (N_("1 black prisoner"), N_("%(count)d black prisoners")),
}
MORRIS_PIECES = {"w": N_("white piece"), "b": N_("black piece")}
ELECTRONS = {"w": N_("white electron"), "b": N_("black electron")}
HOME_ROWS = {"w": N_("White's home row"), "b": N_("Black's home row")}


def bashni_column(tr: Tr, column: str) -> str:
    """ "white column of 3, white king on top, 1 black prisoner" (bottom to top in ``column``)."""
    top = column[-1]
    side = top.lower()
    top_words = tr(PIECES[top])
    if len(column) == 1:
        return top_words
    prisoners = sum(1 for p in column if p.lower() != side)
    own = len(column) - prisoners
    parts = [
        tr(COLUMNS[side]) % {"count": len(column)},
        tr(N_("%(piece)s on top")) % {"piece": top_words},
    ]
    if own > 1:
        parts.append(tr(IN_ALL[side]) % {"count": own})
    if prisoners:
        one, many = PRISONERS["b" if side == "w" else "w"]
        parts.append(tr(one) if prisoners == 1 else tr(many) % {"count": prisoners})
    return ", ".join(parts)


def point_words(game_name: str, tr: Tr, point: dict[str, Any]) -> str:
    """What is on one point of ``app.boards.board_data``: "d4, white man", "a7, empty"."""
    name = point["name"]
    if game_name == "bilsang":
        if not point["buoy"]:
            return tr(N_("%(point)s, empty sea")) % {"point": name}
        words = tr(N_("buoy at %(point)s")) % {"point": name}
        if point.get("forbidden"):
            words += ", " + tr(N_("one of the forbidden pair"))
        return words
    if game_name == "bashni":
        column = point["column"]
        what = bashni_column(tr, column) if column else tr(N_("empty"))
    elif game_name == "bobail":
        piece = point["piece"]
        if piece == "n":
            what = tr(N_("the Neutron"))
        elif piece:
            what = tr(ELECTRONS[piece])
        else:
            what = tr(N_("empty"))
        if point.get("home"):
            what += ", " + tr(HOME_ROWS[point["home"]])
    else:
        piece = point["piece"]
        what = tr(MORRIS_PIECES[piece]) if piece else tr(N_("empty"))
    return f"{name}, {what}"


def board_points(game_name: str, board: dict[str, Any]) -> list[dict[str, Any]]:
    """The drawn points of a board, whatever the game calls its list."""
    if game_name == "morris":
        return board["points"]
    if game_name == "bilsang":
        return board["grid"]
    return board["squares"]


def point_labels(game_name: str, tr: Tr, board: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: point_words(game_name, tr, p) for p in board_points(game_name, board)}


# ------------------------------------------------------------------ the keyboard cursor


def navigation(game_name: str, board: dict[str, Any]) -> dict[str, list[str | None]]:
    """For each point, the point the cursor reaches with each arrow key (up, right, down, left).

    Grids go square by square in drawing coordinates (so a flipped board still moves the way
    the arrow points); on a Bashni board, where only dark squares are points, the nearest
    point in that direction wins, preferring one on the same row or file. Morris moves along
    the drawn lines only.
    """
    points = board_points(game_name, board)
    return _navigation(game_name, tuple((p["name"], float(p["x"]), float(p["y"])) for p in points))


@functools.lru_cache(maxsize=512)
def _navigation(game_name: str, placed: tuple[tuple[str, float, float], ...]) -> dict[str, list[str | None]]:
    # Kept per drawing: a board's points and where they are drawn (all but Bilsang's are
    # the same in every position), so each view does not search them again. The map is
    # shared: callers only read it.
    where = {name: (x, y) for name, x, y in placed}
    if game_name == "morris":
        from games.morris import NEIGHBOURS, POINTS

        linked = {POINTS[i]: [POINTS[j] for j in NEIGHBOURS[i]] for i in range(len(POINTS))}
    else:
        linked = {name: list(where) for name in where}
    out: dict[str, list[str | None]] = {}
    for name, (x, y) in where.items():
        moves: list[str | None] = []
        for direction in DIRECTIONS:
            dx, dy = _VECTORS[direction]
            best: tuple[float, str] | None = None
            for other in linked[name]:
                ox, oy = where[other]
                along = (ox - x) * dx + (oy - y) * dy
                across = abs((ox - x) * dy - (oy - y) * dx)
                if along <= 0 or across > along:
                    continue
                # Same row or file first; ties go to the lower name so the answer is stable.
                score = (along + 2 * across, other)
                if best is None or score < best:
                    best = score
            moves.append(best[1] if best else None)
        out[name] = moves
    return out


# ------------------------------------------------------------------ moves


def side_words(tr: Tr, game: Game[Any, Any], side: str, names: dict[str, str], computer: set[str]) -> str:
    label = tr(SIDE_LABELS.get(side, side))
    if side in computer:
        return tr(N_("%(side)s (the computer)")) % {"side": label}
    name = names.get(side)
    return f"{label} ({name})" if name else label


def move_words(game: Game[Any, Any], tr: Tr, before: Any, notation: str) -> str:
    """A move in words, without who made it: "moved c3 to d4", "placed on a7, removed d7"."""
    try:
        move = game.parse_move(before, notation)
    except games.GameError:
        return notation
    points = game.clicks(move)
    if game.name == "morris":
        if move.origin is None:
            words = tr(N_("placed a piece on %(to)s")) % {"to": points[0]}
            rest = points[1:]
        else:
            words = tr(N_("moved %(from)s to %(to)s")) % {"from": points[0], "to": points[1]}
            rest = points[2:]
        if rest:
            words += ", " + tr(N_("removed the piece on %(point)s")) % {"point": rest[0]}
        return words
    if game.name == "bashni":
        if ":" in notation:
            return tr(N_("captured from %(from)s, landing on %(path)s")) % {
                "from": points[0],
                "path": ", ".join(points[1:]),
            }
        return tr(N_("moved %(from)s to %(to)s")) % {"from": points[0], "to": points[-1]}
    if game.name == "bobail":
        words = tr(N_("moved the Neutron from %(from)s to %(to)s")) % {"from": points[0], "to": points[1]}
        if len(points) > 2:
            words += ", " + tr(N_("then an electron from %(from)s to %(to)s")) % {
                "from": points[2],
                "to": points[3],
            }
        return words
    if len(points) == 1:  # a Bilsang removal: the one buoy tapped is taken off
        return tr(N_("removed the buoy on %(point)s")) % {"point": points[0]}
    pairs = [
        tr(N_("%(from)s to %(to)s")) % {"from": points[i], "to": points[i + 1]}
        for i in range(0, len(points), 2)
    ]
    text = N_("moved the buoy %(moves)s") if len(pairs) == 1 else N_("moved the buoys %(moves)s")
    return tr(text) % {"moves": tr(N_(" and ")).join(pairs)}


def said_move(
    game: Game[Any, Any],
    tr: Tr,
    before: Any,
    notation: str,
    who: str,
) -> str:
    """ "Black (the computer) played c7-d6: moved c7 to d6." """
    return tr(N_("%(who)s played %(move)s: %(words)s.")) % {
        "who": who,
        "move": notation,
        "words": move_words(game, tr, before, notation),
    }


# ------------------------------------------------------------------ pieces by side


def pieces_of(game_name: str, tr: Tr, board: dict[str, Any], side: str) -> list[str]:
    """Where ``side``'s pieces stand, one phrase per point ("c3 (man)", "d4 (column of 3)")."""
    found = []
    for p in board_points(game_name, board):
        if game_name == "bashni":
            column = p["column"]
            if not column or column[-1].lower() != side:
                continue
            found.append(
                f"{p['name']} ({bashni_column(tr, column)})"
                if len(column) > 1 or column.isupper()
                else p["name"]
            )
        elif game_name == "bobail":
            if p["piece"] == side:
                found.append(p["name"])
        elif game_name == "morris" and p["piece"] == side:
            found.append(p["name"])
    return found


# ------------------------------------------------------------------ the match page's words


def page_words(
    *,
    tr: Tr,
    game: Game[Any, Any],
    match: Any,
    board: dict[str, Any],
    positions: Sequence[Any],
    last_move: Any,
    shown_ply: int,
    viewer_side: str | None,
    my_turn: bool,
) -> dict[str, Any]:
    """Everything the board and the live region say, for the match page's templates."""
    from app.texts import reason_text

    names = {s.side: s.name for s in match.seats}
    computer = {s.side for s in match.seats if s.ai_level is not None}
    last = ""
    if shown_ply > 0 and last_move is not None:  # the move row of the shown ply
        record = last_move
        last = said_move(
            game,
            tr,
            positions[shown_ply - 1],
            record.notation,
            side_words(tr, game, record.side, names, computer),
        )
    end = ""
    if match.status == "finished":
        if match.winner:
            who = side_words(tr, game, match.winner, names, computer)
            end = tr(N_("Game over: %(side)s wins, %(reason)s.")) % {
                "side": who,
                "reason": tr(reason_text(game.name, match.reason)),
            }
        else:
            end = tr(N_("Game over: a draw, %(reason)s.")) % {
                "reason": tr(reason_text(game.name, match.reason))
            }
    offers = []
    for kind, offer_side in (("draw", match.draw_offer), ("takeback", match.takeback_offer)):
        if offer_side and offer_side != viewer_side:
            who = side_words(tr, game, offer_side, names, computer)
            text = (
                N_("%(side)s offers a draw.") if kind == "draw" else N_("%(side)s asks to take back a move.")
            )
            offers.append(tr(text) % {"side": who})
    turn = ""
    if my_turn:
        turn = tr(N_("Your move."))
    elif match.status == "playing":
        turn = tr(N_("%(side)s to move.")) % {
            "side": side_words(tr, game, game.to_move(positions[shown_ply]), names, computer)
        }
    labels = point_labels(game.name, tr, board)
    return {
        "point_labels": labels,
        "board_nav": navigation(game.name, board),
        "said_last": last,
        "said_end": end,
        "said_offers": " ".join(offers),
        "said_turn": turn,
    }
