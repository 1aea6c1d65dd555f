"""hardening: who created a match, where a seat moved from, a health probe row

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_key", sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f("ix_matches_client_key"), ["client_key"], unique=False)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("moved_from_hash", sa.String(length=64), nullable=True))
    probe = op.create_table(
        "health_probe",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.bulk_insert(probe, [{"id": 1, "checked_at": None}])


def downgrade() -> None:
    op.drop_table("health_probe")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("moved_from_hash")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_client_key"))
        batch_op.drop_column("client_key")
