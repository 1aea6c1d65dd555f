"""rate_buckets: the create and account rate limits counted in the database

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07 22:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_index("ix_rate_buckets_updated", "rate_buckets", ["updated"])


def downgrade() -> None:
    op.drop_index("ix_rate_buckets_updated", table_name="rate_buckets")
    op.drop_table("rate_buckets")
