"""Initial study schema: users, cards, review log, sessions, settings.

Revision ID: 0001_initial
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "cards",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("item_id", sa.String(300), primary_key=True),
        sa.Column("state", sa.SmallInteger(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability_days", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reps", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("lapses", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("never_seen", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.create_index("ix_cards_user_due", "cards", ["user_id", "due", "item_id"])
    op.create_table(
        "scheduler_settings",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("settings_json", sa.Text(), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("meta_json", sa.Text(), nullable=False, server_default="{}"),
    )
    op.create_index("ix_sessions_user", "sessions", ["user_id", "id"])
    op.create_table(
        "reviews",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column(
            "user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("item_id", sa.String(300), nullable=False),
        sa.Column("rating", sa.SmallInteger(), nullable=False),
        sa.Column("graded_by", sa.String(30), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("review_day", sa.Date(), nullable=False),
        sa.Column("state_before", sa.SmallInteger(), nullable=False),
        sa.Column("interval_before_days", sa.Float(), nullable=True),
        sa.Column("first_of_day", sa.Boolean(), nullable=False),
        sa.Column(
            "settings_id", sa.Integer(), sa.ForeignKey("scheduler_settings.id"), nullable=False
        ),
        sa.Column(
            "session_id",
            sa.Integer(),
            sa.ForeignKey("sessions.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.CheckConstraint("rating BETWEEN 1 AND 4", name="ck_reviews_rating"),
        sa.CheckConstraint("duration_ms >= 0", name="ck_reviews_duration"),
    )
    op.create_index("ix_reviews_user_time", "reviews", ["user_id", "reviewed_at"])
    op.create_index("ix_reviews_user_day", "reviews", ["user_id", "review_day"])
    op.create_table(
        "settings",
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value_json", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for table in ("settings", "reviews", "sessions", "scheduler_settings", "cards", "users"):
        op.drop_table(table)
