"""Engines and migrations: schema versions, URLs, SQLite set-up."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa

from sysdrill.errors import MigrationError, StorageUnavailable
from sysdrill.storage import schema
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.review_log import DailyReviewStats
from sysdrill.study.user_state import UserId

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


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
    from sysdrill.storage.engine import create_study_engine, migrate

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


def test_in_memory_sqlite_is_shared_across_threads():
    import threading

    store = SqlStudyStore("sqlite://")
    user = store.ensure_user("local", now=T0)
    store.put_settings(user, {"new_per_day": 3})
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(store.get_settings(user)))
    thread.start()
    thread.join()
    store.close()
    assert seen == [{"new_per_day": 3}]


def test_failed_migration_is_rolled_back_with_its_record(sql_url, tmp_path):
    import shutil
    import textwrap

    from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate

    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "0003_broken.py").write_text(
        textwrap.dedent(
            """
            import sqlalchemy as sa
            from alembic import op

            revision = "0003_broken"
            down_revision = "0002_review_days"
            branch_labels = None
            depends_on = None


            def upgrade():
                op.create_table("half_done", sa.Column("id", sa.Integer(), primary_key=True))
                op.execute("SELECT * FROM no_such_table")


            def downgrade():
                pass
            """
        )
    )
    engine = create_study_engine(sql_url)
    with pytest.raises(MigrationError, match="Database failure while migrating the database"):
        migrate(engine, scripts=scripts)
    tables = set(sa.inspect(engine).get_table_names())
    with engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert "half_done" not in tables
    assert "review_days" in tables
    assert version == "0002_review_days"


def test_postgres_without_its_driver_names_the_extra_to_install(monkeypatch):
    from sysdrill.storage import engine

    monkeypatch.setattr(engine, "find_spec", lambda name: None)
    with pytest.raises(StorageUnavailable, match=r"pip install 'sysdrill\[postgres\]'"):
        engine.create_study_engine("postgresql+psycopg://u@localhost/db")
