"""A finished review stored as the review worker stores it, computed by the same engine
function (games.ai.analysis.analyse) at a shallow depth, so page tests need not wait for
the worker's pool and its time budget."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from app.models import Review
from app.review import first_to_move, positions_of, review_key
from games.ai.analysis import analyse


def store_review(
    database_url: str, game: str, initial: str, moves: tuple[str, ...], depth: int = 2
) -> list[dict]:
    positions = positions_of(game, initial, moves)
    results = []
    for index, position in enumerate(positions):
        result = analyse(game, position, positions[:index], depth=depth, time_limit=None)
        results.append({**result, "first_to_move": first_to_move(game, position)})
    store_results(database_url, game, initial, moves, results)
    return results


def store_results(
    database_url: str, game: str, initial: str, moves: tuple[str, ...], results: list[dict | None]
) -> None:
    """A done review with the given per-position results (the worker's shape)."""
    engine = create_engine(database_url)
    try:
        with Session(engine) as db, db.begin():
            db.merge(
                Review(
                    key=review_key(game, initial, moves),
                    game=game,
                    initial_position=initial,
                    moves=json.dumps(list(moves)),
                    status="done",
                    done=len(results),
                    total=len(results),
                    results=json.dumps(results),
                    requested_at=datetime.now(UTC),
                    finished_at=datetime.now(UTC),
                )
            )
    finally:
        engine.dispose()
