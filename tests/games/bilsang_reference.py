"""A second, deliberately plain Bilsang implementation to cross-check games.bilsang.

It shares nothing with the engine: positions stay strings between calls and are
read into a dict whose cells are complex numbers (x + y*1j); moves are produced
directly as notation by trying every ordered pair of buoys; connectivity is
always a full flood fill of the whole universe after the move. Slow on purpose
and written to read like RULES.md section 4, so a disagreement points at a bug
in one of the two rather than at a shared shortcut.

Input is trusted to be a valid position string; there is no validation here.
The rule options ("Bilsang rule options": ``line``, ``quiet=N`` in an optional
ninth field) are kept as a plain dict and written back the way RULES.md says.
"""

from __future__ import annotations

from typing import Any

NEIGHBOURS = [complex(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
UNIT = {"h": 1 + 0j, "v": 1j}
OTHER = {"h": "v", "v": "h"}


def read_options(field: str | None) -> dict[str, Any]:
    found: dict[str, Any] = {"line": False, "quiet": 100}
    for item in (field or "").split(","):
        if item == "line":
            found["line"] = True
        elif item.startswith("quiet="):
            found["quiet"] = int(item[len("quiet=") :])
    return found


def write_options(options: dict[str, Any]) -> str:
    items = []
    if options["line"]:
        items.append("line")
    if options["quiet"] != 100:
        items.append("quiet=" + str(options["quiet"]))
    return ",".join(items)


def read(text: str) -> dict[str, Any]:
    fields = text.split()
    player, axis, pen, lost1, lost2, quiet, cells, forbidden = fields[:8]
    return {
        "options": read_options(fields[8] if len(fields) > 8 else None),
        "player": player,
        "axis": axis,
        "penalised": pen == "1",
        "lost": {"1": int(lost1), "2": int(lost2)},
        "quiet": int(quiet),
        "cells": {read_cell(c) for c in cells.split(";")},
        "forbidden": set() if forbidden == "-" else {read_cell(c) for c in forbidden.split(";")},
    }


def read_cell(text: str) -> complex:
    x, y = text.split(",")
    return complex(int(x), int(y))


def name(cell: complex) -> str:
    return f"{int(cell.real)},{int(cell.imag)}"


def in_order(cells: set[complex]) -> list[complex]:
    return sorted(cells, key=lambda c: (c.imag, c.real))


def write(pos: dict[str, Any]) -> str:
    forbidden = ";".join(name(c) for c in in_order(pos["forbidden"])) or "-"
    options = write_options(pos["options"])
    return " ".join(
        [
            pos["player"],
            pos["axis"],
            "1" if pos["penalised"] else "0",
            str(pos["lost"]["1"]),
            str(pos["lost"]["2"]),
            str(pos["quiet"]),
            ";".join(name(c) for c in in_order(pos["cells"])),
            forbidden,
        ]
        + ([options] if options else [])
    )


def connected(cells: set[complex]) -> bool:
    if not cells:
        return True
    first = next(iter(cells))
    reached = {first}
    frontier = [first]
    while frontier:
        here = frontier.pop()
        for step in NEIGHBOURS:
            there = here + step
            if there in cells and there not in reached:
                reached.add(there)
                frontier.append(there)
    return reached == cells


def result(text: str) -> str:
    pos = read(text)
    if len(pos["cells"]) > 1 and pos["quiet"] < pos["options"]["quiet"]:
        return "ongoing"
    lost1, lost2 = pos["lost"]["1"], pos["lost"]["2"]
    if lost1 == lost2:
        return "draw"
    return "win 1" if lost1 < lost2 else "win 2"


def moves(text: str) -> list[str]:
    """Every legal move of ``text`` in notation, sorted in plain character order."""
    if result(text) != "ongoing":
        return []
    pos = read(text)
    cells = pos["cells"]
    found: list[str] = []
    if pos["penalised"]:
        axis = pos["axis"]
        for buoy in cells:
            for sign, mark in ((1, "+"), (-1, "-")):
                target = buoy + sign * UNIT[axis]
                if target not in cells and connected((cells - {buoy}) | {target}):
                    found.append(f"{axis} {name(buoy)}{mark}")
    else:
        # Normal pair moves along the required axis (both on the free first
        # turn) plus switches along the other one: in notation both are just
        # a pair move with its axis letter.
        for axis in ("h", "v"):
            for up in cells:
                for down in cells:
                    if up == down:
                        continue
                    up_to = up + UNIT[axis]
                    down_to = down - UNIT[axis]
                    if up_to in cells or down_to in cells or up_to == down_to:
                        continue
                    if {up, down} == pos["forbidden"]:
                        continue
                    # line: the two lie on one line along the axis, that is
                    # the step between them is a real multiple of its unit
                    if pos["options"]["line"] and ((up - down) / UNIT[axis]).imag != 0:
                        continue
                    if connected((cells - {up, down}) | {up_to, down_to}):
                        found.append(f"{axis} {name(up)}+ {name(down)}-")
    if not found:
        for buoy in cells:
            if connected(cells - {buoy}):
                found.append(f"x {name(buoy)}")
    return sorted(found)


def apply(text: str, move: str) -> str:
    """The position after ``move``, which must be one of ``moves(text)``."""
    pos = read(text)
    parts = move.split()
    mover = pos["player"]
    pos["player"] = "2" if mover == "1" else "1"
    pos["quiet"] += 1
    if parts[0] == "x":
        pos["cells"].discard(read_cell(parts[1]))
        pos["lost"][mover] += 1
        pos["quiet"] = 0
        if pos["axis"] != "-":
            pos["axis"] = OTHER[pos["axis"]]
        pos["penalised"] = False
        pos["forbidden"] = set()
    elif len(parts) == 2:
        axis = parts[0]
        buoy = read_cell(parts[1][:-1])
        sign = 1 if parts[1][-1] == "+" else -1
        pos["cells"] = (pos["cells"] - {buoy}) | {buoy + sign * UNIT[axis]}
        pos["axis"] = OTHER[axis]
        pos["penalised"] = False
        pos["forbidden"] = set()
    else:
        axis = parts[0]
        up = read_cell(parts[1][:-1])
        down = read_cell(parts[2][:-1])
        up_to, down_to = up + UNIT[axis], down - UNIT[axis]
        pos["cells"] = (pos["cells"] - {up, down}) | {up_to, down_to}
        required = pos["axis"]
        if required != "-" and axis != required:
            # a switch: the axis stays, the opponent is penalised
            pos["penalised"] = True
        else:
            pos["axis"] = OTHER[axis]
            pos["penalised"] = False
        pos["forbidden"] = {up_to, down_to}
    return write(pos)


def perft(text: str, depth: int) -> int:
    if depth == 0:
        return 1
    options = moves(text)
    if depth == 1:
        return len(options)
    return sum(perft(apply(text, m), depth - 1) for m in options)
