"""Migration 0011: problem reports in the database, shared by every worker.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa

from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate
from sysdrill.storage.report_store import ReportRow, ReportStore

BEFORE = "0010_login_throttle"
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _tables(url: str) -> set[str]:
    engine = create_study_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _downgrade(url: str, target: str) -> None:
    from alembic import command
    from alembic.config import Config

    engine = create_study_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    try:
        with engine.connect() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, target)
            conn.commit()
    finally:
        engine.dispose()


def test_upgrade_creates_an_empty_reports_table_indexed_by_time(blank_sql_url: str) -> None:
    engine = create_study_engine(blank_sql_url)
    migrate(engine, target=BEFORE)
    assert "problem_reports" not in set(sa.inspect(engine).get_table_names())
    migrate(engine)
    indexes = sa.inspect(engine).get_indexes("problem_reports")
    engine.dispose()
    assert [(i["name"], i["column_names"]) for i in indexes] == [
        ("ix_problem_reports_reported_at", ["reported_at"])
    ]
    with ReportStore(blank_sql_url) as store:
        assert store.list_reports() == []


def test_downgrade_drops_the_reports_table_and_upgrade_makes_it_again(
    blank_sql_url: str,
) -> None:
    engine = create_study_engine(blank_sql_url)
    migrate(engine)
    engine.dispose()
    report = ReportRow(
        item_id="cloud-0101", kind="typo", message="teh", user_name="ann", reported_at=NOW
    )
    with ReportStore(blank_sql_url) as store:
        store.add_report(report)
    _downgrade(blank_sql_url, BEFORE)
    assert "problem_reports" not in _tables(blank_sql_url)
    assert "throttle_events" in _tables(blank_sql_url)
    engine = create_study_engine(blank_sql_url)
    migrate(engine)
    engine.dispose()
    assert "problem_reports" in _tables(blank_sql_url)
