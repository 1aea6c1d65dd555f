"""seeks ("play anyone") and Web Push (subscriptions, the VAPID key, the push queue)

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-02 17:20:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0011"
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
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False, index=True),
        sa.Column("endpoint", sa.Text(), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(length=200), nullable=False),
        sa.Column("auth", sa.String(length=100), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "vapid_keys",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("private_pem", sa.Text(), nullable=False),
    )
    op.create_table(
        "push_jobs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "subscription_id",
            sa.Integer(),
            sa.ForeignKey("push_subscriptions.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("topic", sa.String(length=32), nullable=False),
        sa.Column("urgency", sa.String(length=8), nullable=False),
        sa.Column("ttl", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("push_jobs")
    op.drop_table("vapid_keys")
    op.drop_table("push_subscriptions")
    op.drop_table("seeks")
