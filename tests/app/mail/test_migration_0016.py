"""Migration 0016 (issue 32) goes up from 0014 and down again, on SQLite and (with
TEST_DATABASE_URL) on PostgreSQL, and makes exactly the models' tables."""

from __future__ import annotations

import os
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from app.mail import models as mail_models
from app.manage import alembic_config, migrate
from app.models import Base

TABLES = {"account_emails", "mail_jobs", "mail_sends"}


def empty_database(tmp_path: Path) -> str:
    server = os.environ.get("TEST_DATABASE_URL")
    if server:
        from tests.pg import fresh_database

        return fresh_database(server)
    return f"sqlite:///{tmp_path / 'm.db'}"


def test_0016_adds_the_email_tables_and_goes_down_again(tmp_path: Path) -> None:
    assert mail_models.AccountEmail.__tablename__ in TABLES
    url = empty_database(tmp_path)
    command.upgrade(alembic_config(url), "0014")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO accounts (id, username, username_key, holder, user_handle, preferences,"
                " created_at) VALUES (1, 'ana', 'ana', 'h', 'u', '{}', '2026-01-01')"
            )
        )
    assert not TABLES & set(inspect(engine).get_table_names())
    engine.dispose()

    migrate(url)
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) >= TABLES
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert [d for d in differences if any(t in repr(d) for t in TABLES)] == []
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO account_emails (account_id, address, created_at)"
                " VALUES (1, 'ana@example.com', '2026-01-01')"
            )
        )
        assert conn.execute(text("SELECT digest FROM account_emails")).scalar() in (False, 0)
    keys = inspect(engine).get_foreign_keys("mail_jobs")
    assert [(k["referred_table"], k["options"].get("ondelete")) for k in keys] == [("accounts", "CASCADE")]
    engine.dispose()

    command.downgrade(alembic_config(url), "0014")
    engine = create_engine(url)
    assert not TABLES & set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        assert conn.execute(text("SELECT username FROM accounts")).scalar() == "ana"
    engine.dispose()
    migrate(url)  # and up again
    engine = create_engine(url)
    assert set(inspect(engine).get_table_names()) >= TABLES
    engine.dispose()
