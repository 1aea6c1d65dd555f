"""Puzzle ratings (issue 29): puzzle_ratings, puzzle_players, puzzle_attempts

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 07:40:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _account() -> sa.ForeignKey:
    """The owning account: its rows go with it."""
    return sa.ForeignKey("accounts.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "puzzle_ratings",
        sa.Column("puzzle_id", sa.String(20), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
    )
    op.create_index("ix_puzzle_ratings_game", "puzzle_ratings", ["game"])
    op.create_table(
        "puzzle_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), _account(), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("account_id", "game"),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer(), _account(), nullable=False),
        sa.Column("puzzle_id", sa.String(20), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("account_id", "puzzle_id"),
    )
    op.create_index("ix_puzzle_attempts_recent", "puzzle_attempts", ["account_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_attempts_recent", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_players")
    op.drop_index("ix_puzzle_ratings_game", "puzzle_ratings")
    op.drop_table("puzzle_ratings")
