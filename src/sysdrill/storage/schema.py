"""SQLAlchemy Core tables of the study database, as the migrations leave them.

The migrations in ``storage/migrations/versions`` create and change the schema;
these declarations describe its current shape for queries. A test checks that
the migrated database matches them.
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "cards",
    "metadata",
    "reviews",
    "scheduler_settings",
    "sessions",
    "settings",
    "users",
]

metadata = sa.MetaData()

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

cards = sa.Table(
    "cards",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("item_id", sa.String(300), primary_key=True),
    sa.Column("state", sa.SmallInteger(), nullable=False),
    sa.Column("step", sa.Integer(), nullable=True),
    sa.Column("stability_days", sa.Float(), nullable=True),
    sa.Column("difficulty", sa.Float(), nullable=True),
    sa.Column("due", sa.DateTime(timezone=True), nullable=True),
    sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
    sa.Column("reps", sa.Integer(), nullable=False),
    sa.Column("lapses", sa.Integer(), nullable=False),
    sa.Column("never_seen", sa.Boolean(), nullable=False),
)

scheduler_settings = sa.Table(
    "scheduler_settings",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),
    sa.Column("settings_json", sa.Text(), nullable=False),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("meta_json", sa.Text(), nullable=False),
)

reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("id", _ID, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
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
    sa.Column("settings_id", sa.Integer(), sa.ForeignKey("scheduler_settings.id"), nullable=False),
    sa.Column("session_id", sa.Integer(), sa.ForeignKey("sessions.id"), nullable=True),
)

settings = sa.Table(
    "settings",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("value_json", sa.Text(), nullable=False),
)
