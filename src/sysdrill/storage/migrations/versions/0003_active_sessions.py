"""Sessions in progress, so any process can serve a session's next step.

Revision ID: 0003_active_sessions
Revises: 0002_review_days
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_active_sessions"
down_revision = "0002_review_days"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "active_sessions",
        sa.Column(
            "session_id",
            sa.Integer(),
            sa.ForeignKey("sessions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("options_json", sa.Text(), nullable=False),
        sa.Column("item_ids_json", sa.Text(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("moves_json", sa.Text(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_active_sessions_user", "active_sessions", ["user_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_active_sessions_user", table_name="active_sessions")
    op.drop_table("active_sessions")
