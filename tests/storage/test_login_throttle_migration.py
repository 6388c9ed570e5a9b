"""Migration 0010: failed logins and sign-ups as one row each, with name and address together.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from sysdrill.storage.accounts_store import AccountStore
from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
BEFORE = "0009_active_session_updates"


def _tables(url: str) -> set[str]:
    engine = create_study_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_upgrade_replaces_the_per_scope_failures_with_throttle_events(blank_sql_url) -> None:
    engine = create_study_engine(blank_sql_url)
    migrate(engine, target=BEFORE)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO login_failures (scope, subject, failed_at) "
                "VALUES ('account', 'alice', :t)"
            ),
            {"t": "2026-11-25 11:59:00.000000"},
        )
    migrate(engine)
    engine.dispose()
    tables = _tables(blank_sql_url)
    assert "throttle_events" in tables
    assert "login_failures" not in tables


def test_downgrade_restores_the_failures_table(blank_sql_url) -> None:
    from alembic import command
    from alembic.config import Config

    engine = create_study_engine(blank_sql_url)
    migrate(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, BEFORE)
        conn.commit()
    engine.dispose()
    tables = _tables(blank_sql_url)
    assert "login_failures" in tables
    assert "throttle_events" not in tables


def test_events_are_counted_per_pair_name_and_address_within_the_window(sql_url) -> None:
    store = AccountStore(sql_url)
    try:
        for minute, (name, address) in enumerate(
            [("alice", "a1"), ("alice", "a1"), ("alice", "a2"), ("bob", "a1")]
        ):
            store.record_event(
                "failed_login",
                account_name=name,
                address=address,
                now=NOW + timedelta(minutes=minute),
                forget_before=NOW - timedelta(days=1),
            )
        store.record_event(
            "signup", account_name="carol", address="a1", now=NOW, forget_before=NOW - timedelta(1)
        )
        counts = store.event_counts(
            "failed_login", account_name="alice", address="a1", since=NOW - timedelta(hours=1)
        )
        assert (counts.pair, counts.account, counts.address) == (2, 3, 3)
        assert counts.pair_latest == NOW + timedelta(minutes=1)
        assert counts.address_latest == NOW + timedelta(minutes=3)
        recent = store.event_counts(
            "failed_login", account_name="alice", address="a1", since=NOW + timedelta(minutes=1)
        )
        assert (recent.pair, recent.account, recent.address) == (0, 1, 1)
        assert recent.pair_latest is None
        store.forget_events("failed_login", account_name="alice", address="a1")
        after = store.event_counts(
            "failed_login", account_name="alice", address="a1", since=NOW - timedelta(hours=1)
        )
        assert (after.pair, after.account, after.address) == (0, 1, 1)
        # Recording prunes everyone's events older than the window.
        store.record_event(
            "failed_login",
            account_name="dana",
            address="a9",
            now=NOW + timedelta(days=2),
            forget_before=NOW + timedelta(days=1),
        )
        left = store.event_counts(
            "failed_login", account_name="alice", address="a2", since=NOW - timedelta(days=9)
        )
        assert (left.pair, left.account, left.address) == (0, 0, 0)
    finally:
        store.close()
