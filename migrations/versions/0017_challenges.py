"""challenges: one account invites another (issue 32, item 2)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04 17:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=16), primary_key=True),
        sa.Column(
            "from_account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "to_account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("time_control", sa.Text(), nullable=False, server_default=""),
        sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("side", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("decline_reason", sa.String(length=16), nullable=True),
        sa.Column("match_id", sa.String(length=16), nullable=True),
        sa.Column("client_key", sa.String(length=64), nullable=True),
        sa.Column("needs_presence", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seen_by_challenger", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_challenges_to", "challenges", ["to_account_id", "status"])
    op.create_index("ix_challenges_from", "challenges", ["from_account_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_challenges_from", table_name="challenges")
    op.drop_index("ix_challenges_to", table_name="challenges")
    op.drop_table("challenges")
