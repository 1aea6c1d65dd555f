"""Administrative commands: ``python -m app.manage migrate`` and
``python -m app.manage moderator NAME`` (grant the chat's moderator role, issue 33)."""

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


def grant_moderator(username: str, database_url: str | None = None) -> str:
    """Make the account ``username`` a moderator; its name as stored."""
    from app.chat.moderation import grant
    from app.db import make_engine, make_sessionmaker
    from app.matches.model import now

    engine = make_engine(database_url or Settings.from_env().database_url)
    try:
        return grant(make_sessionmaker(engine), username, now)
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.manage")
    parser.add_argument("command", choices=["migrate", "moderator", "messages"])
    parser.add_argument(
        "name", nargs="?", help="moderator: the account's username; messages: the extracted .pot file"
    )
    args = parser.parse_args(argv)
    if args.command == "migrate":
        migrate()
        print("database is up to date")
    elif args.command == "moderator":
        if not args.name:
            parser.error("moderator needs the account's username")
        from app.services.errors import NotFound

        try:
            name = grant_moderator(args.name)
        except NotFound as exc:
            print(exc, file=sys.stderr)
            return 1
        print(f"{name} is a moderator")
    elif args.command == "messages":
        return missing_translations(args.name or "/tmp/tablero.pot")
    return 0


def missing_translations(template: str) -> int:
    """Print the extracted texts that app/translations/es.po lacks (1 if any).

    Only a report: ``pybabel update`` would rewrite the catalogue and drop the texts no
    extractor finds (the games' and lessons' data files), so new Spanish is added by hand
    at the end of es.po.
    """
    from babel.messages.pofile import read_po

    from app.config import ROOT

    with open(template, "rb") as fh:
        extracted = read_po(fh)
    with (ROOT / "app" / "translations" / "es.po").open("rb") as fh:
        spanish = read_po(fh)
    missing = [m.id for m in extracted if m.id and not (spanish.get(m.id) and spanish[m.id].string)]
    for text in missing:
        print(text if isinstance(text, str) else text[0])
    print(f"{len(missing)} texts without Spanish", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
