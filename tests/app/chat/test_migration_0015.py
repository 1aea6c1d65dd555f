"""Migration 0015 (issue 33) goes up from 0014 and down again on SQLite, and a match's
lines go with the match."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, inspect, text

from app.manage import alembic_config, migrate

CHAT_TABLES = {
    "chat_lines",
    "chat_sends",
    "chat_blocks",
    "chat_mutes",
    "chat_reports",
    "moderators",
    "chat_sanctions",
    "moderation_log",
}


def test_0015_adds_the_chat_tables_and_goes_down_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    command.upgrade(alembic_config(url), "0014")
    engine = create_engine(url)
    assert not CHAT_TABLES & set(inspect(engine).get_table_names())
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO matches (id, game, options, status, public, initial_position, position, ply,"
                " notations, version, created_at, updated_at) VALUES ('old', 'morris', '{}', 'waiting',"
                " 0, 'x', 'x', 0, '', 1, '2026-01-01', '2026-01-01')"
            )
        )
    migrate(url)
    engine.dispose()
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) >= CHAT_TABLES
    with engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA foreign_keys=ON")
        conn.execute(
            text(
                "INSERT INTO chat_lines (match_id, room, sender, name, phrase, created_at)"
                " VALUES ('old', 'players', 'h', 'Ana', 'hello', '2026-01-01')"
            )
        )
        assert conn.execute(text("SELECT hidden FROM chat_lines")).scalar() == 0
        conn.execute(text("DELETE FROM matches WHERE id = 'old'"))
        assert conn.execute(text("SELECT count(*) FROM chat_lines")).scalar() == 0
    command.downgrade(alembic_config(url), "0014")
    engine.dispose()
    engine = create_engine(url)
    assert not CHAT_TABLES & set(inspect(engine).get_table_names())
    engine.dispose()
