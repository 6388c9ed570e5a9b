"""An embedded SQLite study database is created, or backed up and migrated, on first use.

``prepare_sqlite_database`` is what every CLI command runs before opening the
study database (``app/study.py:ready_cli_database``); PostgreSQL is left alone.
"""

from __future__ import annotations

import logging
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import sqlalchemy as sa

from sysdrill.errors import MigrationError, StorageUnavailable
from sysdrill.storage import engine as engine_module
from sysdrill.storage.engine import (
    HEAD_REVISION,
    REVISIONS,
    backup_path,
    create_study_engine,
    migrate,
    prepare_sqlite_database,
    upgrade_database,
)

OLDER = REVISIONS[-2]
"""The revision an older sysdrill left its file at."""


def _revision(path: Path) -> str | None:
    with closing(sqlite3.connect(path)) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "alembic_version" not in tables:
            return None
        found = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return None if found is None else str(found[0])


def _users(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return [row[0] for row in conn.execute("SELECT name FROM users ORDER BY name")]


def _older_file(path: Path) -> Path:
    """A study database at :data:`OLDER` holding one learner, closed."""
    engine = create_study_engine(f"sqlite:///{path}")
    migrate(engine, target=OLDER)
    with engine.begin() as conn:
        conn.execute(
            sa.text("INSERT INTO users (name, created_at) VALUES ('ann', '2026-11-01 09:00:00')")
        )
    engine.dispose()
    return path


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_new_file_is_created_at_the_head_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sub" / "new.db"
    # The configured default's folder is created on first use.
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", f"sqlite:///{path}")
    assert prepare_sqlite_database(f"sqlite:///{path}") is None
    assert _revision(path) == HEAD_REVISION
    assert _files(path.parent) == ["new.db"]


def test_an_empty_file_left_by_an_older_sysdrill_is_migrated_without_a_copy(
    tmp_path: Path,
) -> None:
    path = tmp_path / "new.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=WAL")  # what an old open left: a header, no tables
    assert path.stat().st_size > 0
    assert prepare_sqlite_database(f"sqlite:///{path}") is None
    assert _revision(path) == HEAD_REVISION
    assert _files(tmp_path) == ["new.db"]


def test_an_older_file_is_copied_next_to_itself_then_migrated(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _older_file(tmp_path / "study.sqlite3")
    with caplog.at_level(logging.WARNING, logger="sysdrill.storage.engine"):
        backup = prepare_sqlite_database(f"sqlite:///{path}")
    assert backup == tmp_path / f"study.sqlite3.before-{HEAD_REVISION}.bak"
    assert (_revision(path), _users(path)) == (HEAD_REVISION, ["ann"])
    assert (_revision(backup), _users(backup)) == (OLDER, ["ann"])
    assert [r.getMessage() for r in caplog.records] == [
        f"Migrated {path} from schema {OLDER} to {HEAD_REVISION}; "
        f"a copy of it as it was is kept in {backup}"
    ]
    # Current now: nothing more is copied or said.
    caplog.clear()
    assert prepare_sqlite_database(f"sqlite:///{path}") is None
    assert caplog.records == []
    assert _files(tmp_path) == ["study.sqlite3", backup.name]


def test_a_second_migration_never_overwrites_an_earlier_copy(tmp_path: Path) -> None:
    path = _older_file(tmp_path / "study.sqlite3")
    taken = backup_path(path)
    taken.write_bytes(b"an earlier copy")
    backup = prepare_sqlite_database(f"sqlite:///{path}")
    assert backup == tmp_path / f"study.sqlite3.before-{HEAD_REVISION}.2.bak"
    assert taken.read_bytes() == b"an earlier copy"
    assert _revision(backup) == OLDER


def test_db_upgrade_copies_an_older_sqlite_file_too(tmp_path: Path) -> None:
    path = _older_file(tmp_path / "study.sqlite3")
    assert upgrade_database(f"sqlite:///{path}") == (OLDER, HEAD_REVISION)
    assert _revision(backup_path(path).with_name(f"study.sqlite3.before-{HEAD_REVISION}.bak"))
    assert upgrade_database(f"sqlite:///{path}") == (HEAD_REVISION, HEAD_REVISION)


def test_a_folder_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    with pytest.raises(StorageUnavailable) as caught:
        prepare_sqlite_database(f"sqlite:///{folder}")
    assert str(caught.value) == (
        f"{folder} is a folder, not a study database file; give a file such as "
        f"sqlite:///{folder / 'study.sqlite3'} (created on first use)."
    )
    assert list(folder.iterdir()) == []


def test_a_file_that_is_not_a_sqlite_database_is_refused_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes, not a database\n", encoding="utf-8")
    with pytest.raises(StorageUnavailable) as caught:
        prepare_sqlite_database(f"sqlite:///{path}")
    assert str(caught.value) == (
        f"{path} is not a SQLite database, so it cannot hold the study database; give "
        "another file with --db (a new one is created), or move that one away."
    )
    assert path.read_text(encoding="utf-8") == "my notes, not a database\n"
    assert _files(tmp_path) == ["notes.txt"]


def test_a_sqlite_database_that_is_not_a_study_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "vault.db"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE items (id TEXT PRIMARY KEY)")
    before = path.read_bytes()
    with pytest.raises(StorageUnavailable, match=r"is a SQLite database but not a sysdrill study"):
        prepare_sqlite_database(f"sqlite:///{path}")
    with pytest.raises(StorageUnavailable, match=r"is a SQLite database but not a sysdrill study"):
        upgrade_database(f"sqlite:///{path}")
    assert path.read_bytes() == before
    assert _files(tmp_path) == ["vault.db"]


def test_a_failed_migration_of_a_new_file_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(engine: sa.Engine, **_: object) -> None:
        with engine.begin() as conn:
            conn.execute(sa.text("CREATE TABLE half_done (id INTEGER)"))
        raise MigrationError("Cannot migrate the study database: broken on purpose.")

    monkeypatch.setattr(engine_module, "migrate", broken)
    with pytest.raises(MigrationError, match="broken on purpose"):
        prepare_sqlite_database(f"sqlite:///{tmp_path / 'new.db'}")
    assert _files(tmp_path) == []


def test_a_newer_schema_is_left_for_opening_to_refuse(tmp_path: Path) -> None:
    path = tmp_path / "newer.db"
    upgrade_database(f"sqlite:///{path}")
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    assert prepare_sqlite_database(f"sqlite:///{path}") is None
    assert _revision(path) == "9999_from_the_future"
    assert _files(tmp_path) == ["newer.db"]


@pytest.mark.postgres
def test_postgresql_is_never_migrated_unasked(postgres_url: str) -> None:
    assert prepare_sqlite_database(postgres_url) is None
    engine = sa.create_engine(postgres_url)
    try:
        tables = sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
    assert tables == []
