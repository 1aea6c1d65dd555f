"""the site's heartbeat (downtime is nobody's time) and who asked for each review

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 17:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    heartbeat = op.create_table(
        "site_heartbeat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    # One row, there from the start: every process updates it, none has to create it.
    op.bulk_insert(heartbeat, [{"id": 1, "beat_at": None}])
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.add_column(sa.Column("requester", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("client_key", sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f("ix_reviews_requester"), ["requester"], unique=False)
        batch_op.create_index(batch_op.f("ix_reviews_client_key"), ["client_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("reviews", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_reviews_client_key"))
        batch_op.drop_index(batch_op.f("ix_reviews_requester"))
        batch_op.drop_column("client_key")
        batch_op.drop_column("requester")
    op.drop_table("site_heartbeat")
