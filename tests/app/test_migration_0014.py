"""Migration 0014 (issue 31) goes down to 0013 and up again on SQLite (batch mode), and
an existing match comes out casual."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, inspect, text

from app.manage import alembic_config, migrate


def test_0014_adds_rated_and_the_keys_and_goes_down_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    command.upgrade(alembic_config(url), "0013")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO matches (id, game, options, status, public, initial_position, position, ply,"
                " notations, version, created_at, updated_at) VALUES ('old', 'morris', '{}', 'waiting',"
                " 0, 'x', 'x', 0, '', 1, '2026-01-01', '2026-01-01')"
            )
        )
    migrate(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT rated FROM matches WHERE id = 'old'")).scalar() == 0
    keys = {
        (k["referred_table"], tuple(k["constrained_columns"]))
        for k in inspect(engine).get_foreign_keys("rating_changes")
    }
    assert ("accounts", ("account_id",)) in keys and ("accounts", ("opponent_id",)) in keys
    assert [k["referred_table"] for k in inspect(engine).get_foreign_keys("ratings")] == ["accounts"]
    command.downgrade(alembic_config(url), "0013")
    engine.dispose()
    engine = create_engine(url)
    assert "rated" not in {c["name"] for c in inspect(engine).get_columns("matches")}
    assert inspect(engine).get_foreign_keys("ratings") == []
    engine.dispose()
