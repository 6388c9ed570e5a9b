"""Throttle events: one row per failed login or sign-up, with its name and address together.

The failures table of 0004 counted a failed login twice, once per account name and
once per address, so it could not tell the name's failures *from one address*: the
rule that lets the owner in while others hammer the account needs that pair. Its rows
(failures of the last 15 minutes) are not carried over: they cannot be paired, and
dropping them only forgets some recent failures.

Revision ID: 0010_login_throttle
Revises: 0009_active_session_updates
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_login_throttle"
down_revision = "0009_active_session_updates"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "throttle_events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("account_name", sa.String(300), nullable=False),
        sa.Column("address", sa.String(300), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), nullable=False),
    )
    # The pair and the name (kind, name[, address]), the address, and pruning by age.
    op.create_index(
        "ix_throttle_events_name",
        "throttle_events",
        ["kind", "account_name", "address", "occurred_at"],
    )
    op.create_index(
        "ix_throttle_events_address", "throttle_events", ["kind", "address", "occurred_at"]
    )
    op.create_index("ix_throttle_events_age", "throttle_events", ["occurred_at"])
    op.drop_index("ix_login_failures_subject", table_name="login_failures")
    op.drop_table("login_failures")


def downgrade() -> None:
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
    op.drop_index("ix_throttle_events_age", table_name="throttle_events")
    op.drop_index("ix_throttle_events_address", table_name="throttle_events")
    op.drop_index("ix_throttle_events_name", table_name="throttle_events")
    op.drop_table("throttle_events")
