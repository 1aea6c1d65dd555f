"""accounts: sessions, passkeys, recovery codes, sign-in failure counts, passkey ceremonies

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 17:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MOMENT = sa.DateTime(timezone=True)


def OWNER() -> sa.ForeignKey:
    return sa.ForeignKey("accounts.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False, unique=True),
        sa.Column("holder", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("user_handle", sa.String(64), nullable=False, unique=True),
        sa.Column("preferences", sa.Text(), nullable=False, server_default="{}"),
        sa.Column("created_at", MOMENT, nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("device", sa.String(200), nullable=False, server_default=""),
        sa.Column("created_at", MOMENT, nullable=False),
        sa.Column("last_seen_at", MOMENT, nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("credential_id", sa.String(1400), nullable=False, unique=True),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("name", sa.String(64), nullable=False, server_default=""),
        sa.Column("created_at", MOMENT, nullable=False),
        sa.Column("last_used_at", MOMENT, nullable=True),
    )
    op.create_index("ix_passkeys_account_id", "passkeys", ["account_id"])
    op.create_table(
        "recovery_codes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("used_at", MOMENT, nullable=True),
    )
    op.create_index("ix_recovery_codes_account_id", "recovery_codes", ["account_id"])
    op.create_index("ix_recovery_codes_code_hash", "recovery_codes", ["code_hash"])
    op.create_table(
        "sign_in_failures",
        sa.Column("key", sa.String(96), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("window_start", MOMENT, nullable=False),
    )
    op.create_table(
        "webauthn_ceremonies",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("challenge", sa.String(128), nullable=False),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("username", sa.String(20), nullable=True),
        sa.Column("user_handle", sa.String(64), nullable=True),
        sa.Column("expires_at", MOMENT, nullable=False),
    )
    op.create_index("ix_webauthn_ceremonies_expires_at", "webauthn_ceremonies", ["expires_at"])


def downgrade() -> None:
    op.drop_table("webauthn_ceremonies")
    op.drop_table("sign_in_failures")
    op.drop_table("recovery_codes")
    op.drop_table("passkeys")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
