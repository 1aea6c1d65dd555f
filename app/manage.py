"""Administrative commands: ``python -m app.manage migrate``."""

from __future__ import annotations

import argparse
import sys

from alembic import command
from alembic.config import Config

from app.config import ROOT, Settings


def alembic_config(database_url: str | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = database_url or Settings.from_env().database_url
    return config


def migrate(database_url: str | None = None) -> None:
    """Bring the database schema up to date (creating the SQLite file if needed)."""
    command.upgrade(alembic_config(database_url), "head")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.manage")
    parser.add_argument("command", choices=["migrate"])
    args = parser.parse_args(argv)
    if args.command == "migrate":
        migrate()
        print("database is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
