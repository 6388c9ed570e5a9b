"""SQLAlchemy Core tables of the study database, as the migrations leave them.

The migrations in ``storage/migrations/versions`` create and change the schema;
these declarations describe its current shape for queries. A test checks that
the migrated database matches them.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

from sysdrill.study.user_state import LEGACY_VAULT_ID

__all__ = [
    "UtcDateTime",
    "accounts",
    "active_sessions",
    "card_flags",
    "cards",
    "login_sessions",
    "metadata",
    "personal_deck_versions",
    "personal_decks",
    "personal_items",
    "problem_reports",
    "review_days",
    "reviews",
    "scheduler_settings",
    "server_secrets",
    "session_moves",
    "sessions",
    "settings",
    "site_settings",
    "throttle_events",
    "users",
]

metadata = sa.MetaData()


class _SqliteUtc(TypeDecorator[datetime]):
    """UTC datetimes as SQLite text, parsed with the C ``fromisoformat`` (fast reads)."""

    impl = sa.String
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        # Same text as SQLAlchemy's SQLite DateTime ("2026-11-01 09:00:00.000000").
        return str(value.isoformat(sep=" ", timespec="microseconds"))

    def process_result_value(self, value: Any, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return datetime.fromisoformat(value + "+00:00")


class _SqliteDay(TypeDecorator[date]):
    """Dates as SQLite ISO text."""

    impl = sa.String
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        return None if value is None else str(value.isoformat())

    def process_result_value(self, value: Any, dialect: Any) -> date | None:
        return None if value is None else date.fromisoformat(value)


UtcDateTime = sa.DateTime(timezone=True).with_variant(_SqliteUtc(), "sqlite")
"""A timezone-aware UTC datetime column type (text on SQLite, timestamptz on PostgreSQL)."""
Day = sa.Date().with_variant(_SqliteDay(), "sqlite")
"""A calendar-day column type."""

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

VAULT_ID_LENGTH = 200
"""Longest vault identity stored (``content.vault_identity`` keeps ids within it)."""


def _vault_column(*, primary_key: bool = False) -> sa.Column[str]:
    # Study state is keyed by (user, vault, item): two vaults that hold the same
    # item id never share a card (issue 14). The default marks rows older than
    # that (migration 0004); the store always names the vault.
    return sa.Column(
        "vault_id",
        sa.String(VAULT_ID_LENGTH),
        primary_key=primary_key,
        nullable=False,
        server_default=LEGACY_VAULT_ID,
    )


users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("created_at", UtcDateTime, nullable=False),
    # Raised by every change of the user's settings (workers keep settings under it).
    sa.Column("settings_version", sa.Integer(), nullable=False, server_default="0"),
)

accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("password_hash", sa.String(200), nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("disabled", sa.Boolean(), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)
"""The login of a user who may sign in to the multi-user web app (argon2id hash, role)."""

login_sessions = sa.Table(
    "login_sessions",
    metadata,
    sa.Column("token_sha256", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("expires_at", UtcDateTime, nullable=False),
)
"""Logged-in browsers: only the SHA-256 of each session cookie's token is kept."""

throttle_events = sa.Table(
    "throttle_events",
    metadata,
    sa.Column("id", _ID, primary_key=True, autoincrement=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("account_name", sa.String(300), nullable=False),
    sa.Column("address", sa.String(300), nullable=False),
    sa.Column("occurred_at", UtcDateTime, nullable=False),
)
"""Failed logins and sign-ups of the last day, by name and client address (throttling)."""

site_settings = sa.Table(
    "site_settings",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("value_json", sa.Text(), nullable=False),
)
"""Server-wide settings an admin changes, such as the sign-up policy."""

cards = sa.Table(
    "cards",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    _vault_column(primary_key=True),
    sa.Column("item_id", sa.String(300), primary_key=True),
    sa.Column("state", sa.SmallInteger(), nullable=False),
    sa.Column("step", sa.Integer(), nullable=True),
    sa.Column("stability_days", sa.Float(), nullable=True),
    sa.Column("difficulty", sa.Float(), nullable=True),
    sa.Column("due", UtcDateTime, nullable=True),
    sa.Column("last_review", UtcDateTime, nullable=True),
    sa.Column("reps", sa.Integer(), nullable=False),
    sa.Column("lapses", sa.Integer(), nullable=False),
    sa.Column("never_seen", sa.Boolean(), nullable=False),
    # Raised by every write: a review writes only while the version read is stored.
    sa.Column("version", sa.Integer(), nullable=False, server_default="0"),
)

card_flags = sa.Table(
    "card_flags",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    # Newer than the legacy rows _vault_column's default marks: every row names its vault.
    sa.Column("vault_id", sa.String(VAULT_ID_LENGTH), primary_key=True),
    sa.Column("item_id", sa.String(300), primary_key=True),
    sa.Column("suspended", sa.Boolean(), nullable=False),
    sa.Column("buried_until", UtcDateTime, nullable=True),
)
"""Items a learner keeps out of sessions: suspended, or buried until an instant (UTC)."""

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
    _vault_column(),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("started_at", UtcDateTime, nullable=False),
    sa.Column("ended_at", UtcDateTime, nullable=True),
    sa.Column("meta_json", sa.Text(), nullable=False),
)

reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column("id", _ID, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    _vault_column(),
    sa.Column("item_id", sa.String(300), nullable=False),
    sa.Column("rating", sa.SmallInteger(), nullable=False),
    sa.Column("graded_by", sa.String(30), nullable=False),
    sa.Column("answer", sa.Text(), nullable=True),
    sa.Column("duration_ms", sa.Integer(), nullable=False),
    sa.Column("reviewed_at", UtcDateTime, nullable=False),
    sa.Column("review_day", Day, nullable=False),
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

review_days = sa.Table(
    "review_days",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    _vault_column(primary_key=True),
    sa.Column("day", Day, primary_key=True),
    sa.Column("reviews", sa.Integer(), nullable=False),
    sa.Column("new_items", sa.Integer(), nullable=False),
    sa.Column("young_first", sa.Integer(), nullable=False),
    sa.Column("young_passed", sa.Integer(), nullable=False),
    sa.Column("mature_first", sa.Integer(), nullable=False),
    sa.Column("mature_passed", sa.Integer(), nullable=False),
    sa.Column("duration_ms", sa.BigInteger(), nullable=False),
)
"""Per-user, per-vault, per-UTC-day review counters, kept in step with ``reviews``."""

active_sessions = sa.Table(
    "active_sessions",
    metadata,
    sa.Column("session_id", sa.Integer(), sa.ForeignKey("sessions.id"), primary_key=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    _vault_column(),
    sa.Column("kind", sa.String(40), nullable=False),
    sa.Column("options_json", sa.Text(), nullable=False),
    sa.Column("item_ids_json", sa.Text(), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("revision", sa.Integer(), nullable=False),
    sa.Column("started_at", UtcDateTime, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
)
"""Sessions in progress: the plan, and the revision each move raises (a row until they end)."""

session_moves = sa.Table(
    "session_moves",
    metadata,
    sa.Column(
        "session_id",
        sa.Integer(),
        sa.ForeignKey("active_sessions.session_id"),
        primary_key=True,
    ),
    sa.Column("seq", sa.Integer(), primary_key=True),
    sa.Column("move_json", sa.Text(), nullable=False),
)
"""The moves of the sessions in progress, one row each, in order (``seq`` from 0)."""

server_secrets = sa.Table(
    "server_secrets",
    metadata,
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("value", sa.Text(), nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)
"""Secrets generated once per database, so every worker on it signs alike (CSRF key)."""

personal_decks = sa.Table(
    "personal_decks",
    metadata,
    sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("title", sa.String(300), nullable=False),
    sa.Column("source_name", sa.String(300), nullable=False),
    sa.Column("format", sa.String(40), nullable=False),
    sa.Column("item_count", sa.Integer(), nullable=False),
    sa.Column("imported_at", UtcDateTime, nullable=False),
    sa.UniqueConstraint("user_id", "name", name="uq_personal_decks_user_name"),
)
"""Decks a learner imported for themselves (multi-user web app); only they see them."""

personal_items = sa.Table(
    "personal_items",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("item_id", sa.String(300), primary_key=True),
    sa.Column("deck_id", sa.Integer(), sa.ForeignKey("personal_decks.id"), nullable=False),
    sa.Column("position", sa.Integer(), nullable=False),
    sa.Column("item_json", sa.Text(), nullable=False),
    sa.Index("ix_personal_items_deck_id", "deck_id"),
)
"""The items of personal decks, as validated item mappings in JSON (one id per learner)."""

personal_deck_versions = sa.Table(
    "personal_deck_versions",
    metadata,
    sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("version", sa.Integer(), nullable=False),
)
"""A counter per learner, raised by every import or deletion of a personal deck.

Each worker caches a learner's merged vault under this number, so a change made
through any worker is seen by all of them at their next request.
"""

problem_reports = sa.Table(
    "problem_reports",
    metadata,
    sa.Column("id", _ID, primary_key=True, autoincrement=True),
    sa.Column("item_id", sa.String(300), nullable=False),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("message", sa.Text(), nullable=False),
    sa.Column("user_name", sa.String(200), nullable=False),
    sa.Column("reported_at", UtcDateTime, nullable=False),
    sa.Index("ix_problem_reports_reported_at", "reported_at"),
)
"""Problems learners reported about items, for the vault's authors (the sender by name)."""
