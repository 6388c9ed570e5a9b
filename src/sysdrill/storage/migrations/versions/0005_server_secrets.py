"""Secrets the server generates once and every worker shares (the CSRF signing key).

Revision ID: 0005_server_secrets
Revises: 0004_accounts
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_server_secrets"
down_revision = "0004_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
