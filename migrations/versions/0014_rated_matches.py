"""rated matches: matches.rated, and the ratings tables' foreign keys to accounts

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04 13:45:00

0011 left the account columns of ``ratings`` and ``rating_changes`` plain integers until
the accounts branch arrived; now it has: a closed account takes its ratings and its own
history with it (CASCADE), and its opponents keep their history rows, without the name
(SET NULL). Batch mode, so SQLite (which cannot add a foreign key in place) copies the table.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("ratings") as batch:
        batch.create_foreign_key(
            "fk_ratings_account_id", "accounts", ["account_id"], ["id"], ondelete="CASCADE"
        )
    with op.batch_alter_table("rating_changes") as batch:
        batch.create_foreign_key(
            "fk_rating_changes_account_id", "accounts", ["account_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_foreign_key(
            "fk_rating_changes_opponent_id", "accounts", ["opponent_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("rating_changes") as batch:
        batch.drop_constraint("fk_rating_changes_opponent_id", type_="foreignkey")
        batch.drop_constraint("fk_rating_changes_account_id", type_="foreignkey")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_constraint("fk_ratings_account_id", type_="foreignkey")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rated")
