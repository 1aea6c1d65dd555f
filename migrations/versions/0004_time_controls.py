"""time controls: clocks, deadlines, seats' last sign of life

Revision ID: 0004
Revises: 0003 (chained after issue-16's 0003, merged into this branch)
Create Date: 2026-12-01 09:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("clocks", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("clock_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_matches_deadline"), ["deadline"], unique=False)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clocks_after", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("clocks_after")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("last_seen_at")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_deadline"))
        batch_op.drop_column("deadline")
        batch_op.drop_column("clock_since")
        batch_op.drop_column("clocks")
        batch_op.drop_column("time_control")
