"""optional email: an account's address (verified, digest opt-in), the mail queue, the
verification mails counted for the limits

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 17:40:00

Tables of their own, so no table of the accounts is altered (nothing for SQLite's
batch mode to copy). An address and a queued mail belong to an account and go with it
(CASCADE): the address is personal data, and a queued mail holds it too. A counted
verification mail keeps only an HMAC of the address and loses its account (SET NULL), so
the limit per address outlives a closed account for the day it counts.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "account_emails",
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_account_emails_account_id"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("verified_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("digest", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("last_digest_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "mail_jobs",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE", name="fk_mail_jobs_account_id"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("to_address", sa.String(length=254), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("unsubscribe", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_mail_jobs_account_id", "mail_jobs", ["account_id"])
    op.create_index("ix_mail_jobs_due_at", "mail_jobs", ["due_at"])
    op.create_table(
        "mail_sends",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="SET NULL", name="fk_mail_sends_account_id"),
            nullable=True,
        ),
        sa.Column("address_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_mail_sends_account_id", "mail_sends", ["account_id"])
    op.create_index("ix_mail_sends_address_hash", "mail_sends", ["address_hash"])
    op.create_index("ix_mail_sends_created_at", "mail_sends", ["created_at"])


def downgrade() -> None:
    op.drop_table("mail_sends")
    op.drop_index("ix_mail_jobs_due_at", table_name="mail_jobs")
    op.drop_index("ix_mail_jobs_account_id", table_name="mail_jobs")
    op.drop_table("mail_jobs")
    op.drop_table("account_emails")
