"""Engines and migrations: schema versions, URLs, SQLite set-up."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa

from sysdrill.errors import MigrationError, StorageUnavailable
from sysdrill.storage import schema
from sysdrill.storage.engine import HEAD_REVISION, prepare_sqlite_database
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.review_log import DailyReviewStats
from sysdrill.study.user_state import LEGACY_VAULT_ID, StudyScope, UserId

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def test_migrations_record_the_head_revision(sql_url):
    store = SqlStudyStore(sql_url)
    with store.engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    store.close()
    assert version == HEAD_REVISION


def test_revision_list_matches_the_migration_scripts():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from sysdrill.storage.engine import MIGRATIONS_DIR, REVISIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    walked = [s.revision for s in ScriptDirectory.from_config(config).walk_revisions()]
    assert tuple(reversed(walked)) == REVISIONS


def test_opening_a_blank_database_names_the_upgrade_command_and_writes_nothing(blank_sql_url):
    from sysdrill.storage.engine import safe_url

    with pytest.raises(MigrationError) as caught:
        SqlStudyStore(blank_sql_url)
    assert str(caught.value) == (
        f"The study database {safe_url(blank_sql_url)} has no schema yet; run "
        f"`sysdrill db upgrade` (with the same --db) to bring it to {HEAD_REVISION}."
    )
    engine = sa.create_engine(blank_sql_url)
    tables = sa.inspect(engine).get_table_names()
    engine.dispose()
    assert tables == []


def test_opening_a_database_behind_names_its_revision(blank_sql_url):
    from sysdrill.storage.engine import create_study_engine, migrate

    engine = create_study_engine(blank_sql_url)
    migrate(engine, target="0002_review_days")
    engine.dispose()
    with pytest.raises(MigrationError, match="is at schema 0002_review_days; run `sysdrill db"):
        SqlStudyStore(blank_sql_url)


def test_upgrade_database_reports_the_revisions_before_and_after(blank_sql_url):
    from sysdrill.storage.engine import upgrade_database

    assert upgrade_database(blank_sql_url) == (None, HEAD_REVISION)
    assert upgrade_database(blank_sql_url) == (HEAD_REVISION, HEAD_REVISION)


def test_stores_on_one_url_share_one_engine_until_the_last_closes(sql_url):
    first = SqlStudyStore(sql_url)
    second = SqlStudyStore(sql_url)
    assert first.engine is second.engine
    first.close()
    second.ensure_user("local", now=T0)
    second.close()
    third = SqlStudyStore(sql_url)
    assert third.engine is not first.engine
    third.close()


def test_opening_a_known_user_writes_nothing(sql_url):
    store = SqlStudyStore(sql_url)
    store.ensure_user("local", now=T0)
    writes: list[str] = []
    sa.event.listen(
        store.engine,
        "before_cursor_execute",
        lambda conn, cursor, statement, *args: (
            writes.append(statement)
            if not statement.lstrip().upper().startswith(("SELECT", "PRAGMA", "BEGIN"))
            else None
        ),
    )
    store.ensure_user("local", now=T0)
    store.close()
    assert writes == []


def test_migrated_schema_matches_the_table_declarations(sql_url):
    store = SqlStudyStore(sql_url)
    inspector = sa.inspect(store.engine)
    for table in schema.metadata.sorted_tables:
        columns = {c["name"] for c in inspector.get_columns(table.name)}
        assert columns == {c.name for c in table.columns}, table.name
    store.close()


def test_review_days_migration_backfills_counters_from_the_log(blank_sql_url):
    from sysdrill.storage.engine import create_study_engine, migrate

    sql_url = blank_sql_url
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
                    "day": "2026-11-01",
                    "state": state,
                    "interval": interval,
                    "first": first,
                },
            )
    engine.dispose()
    store = SqlStudyStore(sql_url, migrate_schema=True)
    [day] = store.daily_stats(StudyScope(UserId(1), LEGACY_VAULT_ID))
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


def test_unwritable_data_folder_raises_storage_unavailable(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(blocker / "sub"))
    with pytest.raises(StorageUnavailable, match="Cannot create the folder for"):
        SqlStudyStore(f"sqlite:///{blocker / 'sub' / 'study.sqlite3'}")


def test_sqlite_file_in_a_missing_folder_is_refused_and_nothing_created(tmp_path, monkeypatch):
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    typo = tmp_path / "studdy" / "db.sqlite3"
    with pytest.raises(StorageUnavailable, match=r"the folder .*studdy does not exist"):
        SqlStudyStore(f"sqlite:///{typo}")
    assert not typo.parent.exists()


def test_the_data_folder_is_created_on_first_use(tmp_path, monkeypatch):
    data = tmp_path / "new" / "data"
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(data))
    prepare_sqlite_database(f"sqlite:///{data / 'study.sqlite3'}")
    assert (data / "study.sqlite3").is_file()


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

    store = SqlStudyStore("sqlite://", migrate_schema=True)
    user = store.ensure_user("local", now=T0)
    store.put_settings(user, {"new_per_day": 3})
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(store.get_settings(user)))
    thread.start()
    thread.join()
    store.close()
    assert seen == [{"new_per_day": 3}]


def test_failed_migration_is_rolled_back_with_its_record(blank_sql_url, tmp_path):
    import shutil
    import textwrap

    from sysdrill.storage.engine import MIGRATIONS_DIR, create_study_engine, migrate

    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    sql_url = blank_sql_url
    (scripts / "versions" / "9999_broken.py").write_text(
        textwrap.dedent(
            """
            import sqlalchemy as sa
            from alembic import op

            revision = "9999_broken"
            down_revision = "{head}"
            branch_labels = None
            depends_on = None


            def upgrade():
                op.create_table("half_done", sa.Column("id", sa.Integer(), primary_key=True))
                op.execute("SELECT * FROM no_such_table")


            def downgrade():
                pass
            """
        ).replace("{head}", HEAD_REVISION)
    )
    engine = create_study_engine(sql_url)
    with pytest.raises(MigrationError, match="Database failure while migrating the database"):
        migrate(engine, scripts=scripts)
    tables = set(sa.inspect(engine).get_table_names())
    with engine.connect() as conn:
        version = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    engine.dispose()
    assert "half_done" not in tables
    assert "active_sessions" in tables
    assert version == HEAD_REVISION


def test_postgres_without_its_driver_names_the_extra_to_install(monkeypatch):
    from sysdrill.storage import engine

    monkeypatch.setattr(engine, "find_spec", lambda name: None)
    with pytest.raises(StorageUnavailable, match=r"pip install 'sysdrill\[postgres\]'"):
        engine.create_study_engine("postgresql+psycopg://u@localhost/db")


def test_stores_opened_and_closed_from_threads_share_and_release_one_engine(sql_url):
    import threading

    from sysdrill.storage import engine as engines

    errors: list[BaseException] = []
    engines_seen: set[int] = set()

    def work(n: int) -> None:
        try:
            for _ in range(5):
                store = SqlStudyStore(sql_url)
                engines_seen.add(id(store.engine))
                store.put_settings(store.ensure_user("local", now=T0), {f"k{n}": n})
                store.close()
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)

    holder = SqlStudyStore(sql_url)
    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    settings = holder.get_settings(holder.ensure_user("local", now=T0))
    holder.close()
    assert errors == []
    assert engines_seen == {id(holder.engine)}
    assert settings == {f"k{n}": n for n in range(8)}
    assert sql_url not in engines._ENGINES


@pytest.mark.postgres
def test_a_pooled_connection_dropped_while_idle_is_replaced(postgres_url, monkeypatch):
    from sysdrill.storage import engine as engine_module
    from sysdrill.storage.engine import upgrade_database

    upgrade_database(postgres_url)
    store = SqlStudyStore(postgres_url)
    try:
        user = store.ensure_user("local", now=datetime(2026, 11, 25, tzinfo=UTC))
        with store.engine.connect() as conn:
            pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar()
        # The database drops the pooled connection (a restart, a firewall's timeout).
        admin = sa.create_engine(postgres_url)
        with admin.begin() as conn:
            conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        admin.dispose()
        monkeypatch.setattr(engine_module, "PING_AFTER_IDLE_S", 0.0)
        # Tested before use, found dead and replaced: the read works.
        assert store.ensure_user("local", now=datetime(2026, 11, 25, tzinfo=UTC)) == user
    finally:
        store.close()


def _active_session_index(engine: sa.Engine) -> list[str]:
    [index] = [
        found
        for found in sa.inspect(engine).get_indexes("active_sessions")
        if found["name"] == "ix_active_sessions_user"
    ]
    return [str(column) for column in index["column_names"]]


def test_active_session_moves_change_no_indexed_column(blank_sql_url):
    from sysdrill.storage.engine import create_study_engine, migrate

    engine = create_study_engine(blank_sql_url)
    try:
        migrate(engine, target="0008_settings_version")
        assert _active_session_index(engine) == ["user_id", "vault_id", "updated_at"]
        migrate(engine)
        # A move changes updated_at: an index without it lets PostgreSQL update in place.
        assert _active_session_index(engine) == ["user_id", "vault_id"]
    finally:
        engine.dispose()
