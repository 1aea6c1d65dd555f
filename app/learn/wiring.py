"""Puts the puzzles' routes into the app: the shipped puzzles and your turning point
(app/main.py is at its size limit, so the learn routers beyond the lessons' come in here)."""

from __future__ import annotations

from fastapi import FastAPI

from app.learn import puzzles, turning_point


def install(app: FastAPI) -> None:
    # Order as before: each JSON API router beside its pages; no page path starts with /api/.
    for router in (puzzles.api_router, puzzles.router, turning_point.api_router, turning_point.router):
        app.include_router(router)
