"""The SQL store: migrations, atomic writes, error messages, and durability under SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from sysdrill.errors import MigrationError, StorageConflict, StorageUnavailable
from sysdrill.storage import schema
from sysdrill.storage.records import (
    CardRecord,
    CardState,
    DailyReviewStats,
    ReviewRecord,
    UserId,
)
from sysdrill.storage.sql_store import SqlStudyStore

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'study.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def _card(item_id: str) -> CardRecord:
    return CardRecord(item_id, CardState.REVIEW, None, 3.0, 5.0, T0, T0, 1, 0, False)


def _review(item_id: str, rating: int = 3) -> ReviewRecord:
    return ReviewRecord(item_id, rating, "self", None, 10, T0, CardState.NEW, None, True, {})


def test_migrations_record_the_head_revision(sql_url):
    store = SqlStudyStore(sql_url)
    with store.engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    store.close()
    assert version == "0002_review_days"


def test_migrated_schema_matches_the_table_declarations(sql_url):
    store = SqlStudyStore(sql_url)
    inspector = sa.inspect(store.engine)
    for table in schema.metadata.sorted_tables:
        columns = {c["name"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name for c in table.columns}, table.name
    store.close()


def test_review_days_migration_backfills_counters_from_the_log(sql_url):
    from sysdrill.storage.sql_store import create_study_engine, migrate

    engine = create_study_engine(sql_url)
    migrate(engine, target="0001_initial")
    with engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO users (id, name, created_at) VALUES (1, 'local', :t)"),
            {"t": "2026-11-01 09:00:00.000000"},
        )
        conn.execute(
            sa.text(
                "INSERT INTO scheduler_settings (id, digest, settings_json) VALUES (1, 'x', '{}')"
            )
        )
        for n, (state, interval, rating, first) in enumerate(
            [(0, None, 3, True), (2, 5.0, 1, True), (2, 30.0, 3, True), (2, 30.0, 3, False)]
        ):
            conn.execute(
                sa.text(
                    "INSERT INTO reviews (user_id, item_id, rating, graded_by, duration_ms, "
                    "reviewed_at, review_day, state_before, interval_before_days, first_of_day, "
                    "settings_id) VALUES (1, :item, :rating, 'self', 100, :t, :day, :state, "
                    ":interval, :first, 1)"
                ),
                {
                    "item": f"q{n}",
                    "rating": rating,
                    "t": "2026-11-01 09:00:00.000000",
                    "day": date(2026, 11, 1),
                    "state": state,
                    "interval": interval,
                    "first": first,
                },
            )
    engine.dispose()
    store = SqlStudyStore(sql_url)
    [day] = store.daily_stats(UserId(1))
    store.close()
    assert day == DailyReviewStats(date(2026, 11, 1), 4, 1, 1, 0, 1, 1, 400)


def test_opening_twice_does_not_migrate_again(sql_url):
    SqlStudyStore(sql_url).close()
    store = SqlStudyStore(sql_url)
    with store.engine.connect() as conn:
        count = conn.execute(sa.text("SELECT count(*) FROM alembic_version")).scalar()
    store.close()
    assert count == 1


def test_database_from_a_newer_version_raises_migration_error(sql_url):
    store = SqlStudyStore(sql_url)
    with store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999_future'"))
    store.close()
    with pytest.raises(MigrationError, match="Use a database written by this or an older"):
        SqlStudyStore(sql_url)


def test_failed_review_write_leaves_card_and_log_untouched(sql_url):
    store = SqlStudyStore(sql_url)
    user = store.ensure_user("local", now=T0)
    store.record_review(user, _card("q"), _review("q"))
    changed = replace(_card("q"), stability_days=99.0)
    with pytest.raises(StorageConflict, match="recording a review of q"):
        store.record_review(user, changed, _review("q", rating=9))
    assert store.get_card(user, "q") == _card("q")
    assert len(list(store.iter_reviews(user))) == 1
    store.close()


def test_unwritable_sqlite_folder_raises_storage_unavailable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageUnavailable, match="Cannot create the folder for"):
        SqlStudyStore(f"sqlite:///{blocker / 'sub' / 'study.sqlite3'}")


def test_unsupported_database_url_names_the_accepted_forms():
    with pytest.raises(StorageUnavailable) as caught:
        SqlStudyStore("mysql://user:secret@host/db")
    assert str(caught.value) == (
        "Unsupported database 'mysql' in mysql://user:***@host/db. "
        "Use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB."
    )


def test_unreachable_postgres_raises_storage_unavailable_without_password():
    with pytest.raises(StorageUnavailable) as caught:
        SqlStudyStore("postgresql+psycopg://me:hunter2@127.0.0.1:1/none?connect_timeout=2")
    assert "hunter2" not in str(caught.value)
    assert "Check the --db URL or SYSDRILL_DATABASE_URL" in str(caught.value)


_WRITER = textwrap.dedent(
    """
    import sys
    from datetime import UTC, datetime, timedelta
    from sysdrill.study.service import GradedBy, Rating, open_study

    study = open_study(sys.argv[1])
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    for n in range(100000):
        outcome = study.record_review(
            f"item-{n % 500}", rating=Rating.GOOD, graded_by=GradedBy.SELF,
            answer=None, duration_ms=1000, now=start + timedelta(seconds=n),
        )
        print(outcome.review_id, flush=True)
    """
)


def test_killed_writer_loses_no_acknowledged_review(sql_url):
    acknowledged: list[int] = []
    with subprocess.Popen(
        [sys.executable, "-c", _WRITER, sql_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        try:
            for line in process.stdout:
                acknowledged.append(int(line))
                if len(acknowledged) >= 60:
                    break
        finally:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
        errors = process.stderr.read()
    assert len(acknowledged) >= 60, errors
    store = SqlStudyStore(sql_url)
    user = store.ensure_user("local", now=T0)
    logged = {r.review_id for r in store.iter_reviews(user)}
    store.close()
    assert set(acknowledged) <= logged
    assert process.returncode == -signal.SIGKILL


def test_in_memory_sqlite_is_shared_across_threads():
    import threading

    store = SqlStudyStore("sqlite://")
    user = store.ensure_user("local", now=T0)
    store.record_review(user, _card("q"), _review("q"))
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(store.get_card(user, "q")))
    thread.start()
    thread.join()
    store.close()
    assert seen == [_card("q")]


def test_two_writers_on_one_sqlite_file_both_land_every_review(tmp_path):
    import threading

    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    SqlStudyStore(url).close()
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        store = SqlStudyStore(url)
        try:
            user = store.ensure_user("local", now=T0)
            for n in range(20):
                store.record_review(user, _card(f"{name}-{n}"), _review(f"{name}-{n}"))
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store = SqlStudyStore(url)
    count = len(list(store.iter_reviews(store.ensure_user("local", now=T0))))
    store.close()
    assert errors == []
    assert count == 40
