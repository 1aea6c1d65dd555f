"""seeks: "play anyone", a wish to play that pairs with a compatible one

Revision ID: 0013
Revises: 0007
Create Date: 2026-12-02 17:20:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(length=16), primary_key=True),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("time_control", sa.Text(), nullable=False, server_default=""),
        sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("needs_presence", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("range_min", sa.Integer(), nullable=True),
        sa.Column("range_max", sa.Integer(), nullable=True),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("client_key", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("match_id", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seeks_open", "seeks", ["status", "game", "created_at"])
    op.create_index("ix_seeks_token_hash", "seeks", ["token_hash"])
    op.create_index("ix_seeks_client_key", "seeks", ["client_key"])


def downgrade() -> None:
    op.drop_table("seeks")
