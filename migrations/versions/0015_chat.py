"""match chat (issue 33): lines, what was sent when (the limits), blocks, mutes,
reports, moderators, sanctions and the moderators' log

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 17:10:00

New tables only, so nothing is altered in place and SQLite needs no batch copy. Every
row that names an account goes with it (CASCADE), except the moderators' log, which
keeps its names as text and only loses the link (SET NULL): who did what stays known.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(16), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("sender", sa.String(64), nullable=False),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("side", sa.String(4), nullable=True),
        sa.Column("phrase", sa.String(32), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("hidden", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_chat_lines_room", "chat_lines", ["match_id", "room", "id"])
    op.create_index("ix_chat_lines_account_id", "chat_lines", ["account_id"])
    op.create_table(
        "chat_sends",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("sender", sa.String(64), nullable=False),
        sa.Column("client_key", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("at", WHEN, nullable=False),
    )
    op.create_index("ix_chat_sends_sender", "chat_sends", ["sender", "at"])
    op.create_index("ix_chat_sends_client", "chat_sends", ["client_key", "at"])
    op.create_table(
        "chat_blocks",
        sa.Column("blocker", sa.String(64), primary_key=True),
        sa.Column(
            "blocked_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("created_at", WHEN, nullable=False),
    )
    op.create_index("ix_chat_blocks_blocked_id", "chat_blocks", ["blocked_id"])
    op.create_table(
        "chat_mutes",
        sa.Column("viewer", sa.String(64), primary_key=True),
        sa.Column(
            "match_id", sa.String(16), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
        ),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.String(64), nullable=False),
        sa.Column(
            "reported_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "line_id", sa.Integer(), sa.ForeignKey("chat_lines.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("match_id", sa.String(16), sa.ForeignKey("matches.id", ondelete="SET NULL"), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False, server_default="[]"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", WHEN, nullable=False),
        sa.Column("resolved_at", WHEN, nullable=True),
    )
    op.create_index("ix_chat_reports_status", "chat_reports", ["status", "created_at"])
    op.create_index("ix_chat_reports_reported_id", "chat_reports", ["reported_id"])
    op.create_table(
        "moderators",
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("granted_at", WHEN, nullable=False),
    )
    op.create_table(
        "chat_sanctions",
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("timeout_until", WHEN, nullable=True),
        sa.Column("muted", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "moderator_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("moderator_name", sa.String(20), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column(
            "target_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("target_name", sa.String(20), nullable=False),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("at", WHEN, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "moderation_log",
        "chat_sanctions",
        "moderators",
        "chat_reports",
        "chat_mutes",
        "chat_blocks",
        "chat_sends",
        "chat_lines",
    ):
        op.drop_table(table)
