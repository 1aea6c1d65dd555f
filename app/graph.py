"""The review's evaluation graph, as plain numbers for an SVG template (one point per ply)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WIDTH = 600.0
HEIGHT = 160.0


@dataclass(frozen=True)
class GraphPoint:
    ply: int
    x: float
    y: float
    chance: float
    mark: str | None


def graph_points(plies: list[dict[str, Any]], total_plies: int) -> list[GraphPoint]:
    """A point for the position after each ply (1..total) that has been analysed.

    x spreads the plies over the width; y is the first player's winning chance,
    100 % at the top, 50 % on the middle line.
    """
    step = WIDTH / max(1, total_plies - 1) if total_plies > 1 else 0.0
    points = []
    for entry in plies:
        ply = entry["ply"]
        if ply < 1:
            continue
        x = (ply - 1) * step if total_plies > 1 else WIDTH / 2
        y = (100.0 - entry["chance"]) / 100.0 * HEIGHT
        points.append(GraphPoint(ply, round(x, 1), round(y, 1), entry["chance"], entry["mark"]))
    return points


def polyline(points: list[GraphPoint]) -> str:
    return " ".join(f"{p.x},{p.y}" for p in points)


def area(points: list[GraphPoint]) -> str:
    """The region between the curve and the bottom: the first player's share, filled."""
    if not points:
        return ""
    inner = " ".join(f"L{p.x},{p.y}" for p in points)
    return f"M{points[0].x},{HEIGHT} {inner} L{points[-1].x},{HEIGHT} Z"
