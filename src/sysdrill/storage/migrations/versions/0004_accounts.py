"""Accounts, login sessions, failed logins and server-wide settings (multi-user web app).

Revision ID: 0004_accounts
Revises: 0003_active_sessions
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_accounts"
down_revision = "0003_active_sessions"
branch_labels = None
depends_on = None


def _user_id(*, primary_key: bool = False) -> sa.Column[int]:
    return sa.Column(
        "user_id",
        sa.Integer(),
        sa.ForeignKey("users.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        _user_id(primary_key=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "login_sessions",
        sa.Column("token_sha256", sa.String(64), primary_key=True),
        _user_id(),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_login_sessions_user", "login_sessions", ["user_id"])
    op.create_table(
        "login_failures",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("scope", sa.String(20), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_login_failures_subject", "login_failures", ["scope", "subject", "failed_at"]
    )
    op.create_table(
        "site_settings",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value_json", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("site_settings")
    op.drop_index("ix_login_failures_subject", table_name="login_failures")
    op.drop_table("login_failures")
    op.drop_index("ix_login_sessions_user", table_name="login_sessions")
    op.drop_table("login_sessions")
    op.drop_table("accounts")
