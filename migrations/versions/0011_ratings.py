"""ratings: one Glicko-2 rating per account, game and category, and each rated game's changes

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-02 17:00:00

The account columns are plain integers for now: their foreign keys to accounts.id are
added when this branch meets the accounts branch (issue 31 depends on accounts).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("last_game_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("account_id", "game", "category"),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "category", "rating"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("match_id", sa.String(length=16), nullable=True),
        sa.Column("side", sa.String(length=4), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("opponent_id", sa.Integer(), nullable=True),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("delta", sa.Float(), nullable=False),
        sa.Column("damping", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id", "side"),
    )
    op.create_index("ix_rating_changes_history", "rating_changes", ["account_id", "game", "category", "at"])
    op.create_index("ix_rating_changes_pair", "rating_changes", ["account_id", "opponent_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_pair", table_name="rating_changes")
    op.drop_index("ix_rating_changes_history", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
