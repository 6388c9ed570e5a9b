"""The embedded default just works: any SQLite URL is created or migrated on first use.

``--db sqlite:///FILE`` and ``$SYSDRILL_DATABASE_URL`` behave as the default file
does; an older file is copied before it is migrated and the CLI says so on one
stderr line; PostgreSQL keeps the explicit ``sysdrill db upgrade``.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
import sqlalchemy as sa
from tests.conftest import RunCli

from sysdrill.storage.engine import (
    HEAD_REVISION,
    REVISIONS,
    create_study_engine,
    migrate,
    safe_url,
)

OLDER = REVISIONS[-2]


def _revision(path: Path) -> str | None:
    with closing(sqlite3.connect(path)) as conn:
        found = conn.execute(
            "SELECT name FROM sqlite_master WHERE name = 'alembic_version'"
        ).fetchone()
        if found is None:
            return None
        return str(conn.execute("SELECT version_num FROM alembic_version").fetchone()[0])


def _older_file(path: Path) -> Path:
    engine = create_study_engine(f"sqlite:///{path}")
    migrate(engine, target=OLDER)
    engine.dispose()
    return path


def test_progress_creates_a_new_sqlite_file_named_with_db(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("progress", "--db", "sqlite:///new.db", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert _revision(tmp_path / "new.db") == HEAD_REVISION


def test_the_environment_variable_names_a_new_file_that_is_created(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", f"sqlite:///{tmp_path / 'env' / 'study.db'}")
    result = run_cli("settings", "show", "--json")
    assert result.exit_code == 0, result.stderr
    assert _revision(tmp_path / "env" / "study.db") == HEAD_REVISION


def test_an_older_file_is_migrated_after_a_copy_and_the_cli_says_so(tmp_path: Path) -> None:
    path = _older_file(tmp_path / "old.db")
    env = {
        **os.environ,
        "SYSDRILL_DATA_DIR": str(tmp_path / "userdata"),
        "SYSDRILL_CACHE_DIR": str(tmp_path / "cache"),
    }
    env.pop("SYSDRILL_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "sysdrill", "settings", "show", "--db", f"sqlite:///{path}"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    backup = tmp_path / f"old.db.before-{HEAD_REVISION}.bak"
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"Migrated {path} from schema {OLDER} to {HEAD_REVISION}; "
        f"a copy of it as it was is kept in {backup}\n"
    )
    assert (_revision(path), _revision(backup)) == (HEAD_REVISION, OLDER)


def test_db_upgrade_of_an_older_sqlite_file_keeps_a_copy(run_cli: RunCli, tmp_path: Path) -> None:
    path = _older_file(tmp_path / "old.db")
    db = f"sqlite:///{path}"
    result = run_cli("db", "upgrade", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"Upgraded {db} from schema {OLDER} to schema {HEAD_REVISION}.\n"
    assert _revision(tmp_path / f"old.db.before-{HEAD_REVISION}.bak") == OLDER


def test_a_folder_is_one_error_line_and_nothing_is_left_behind(
    run_cli: RunCli, tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    result = run_cli("progress", "--db", f"sqlite:///{folder}")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {folder} is a folder, not a study database file; give a file such as "
        f"sqlite:///{folder / 'study.sqlite3'} (created on first use).\n"
    )
    assert list(folder.iterdir()) == []


def test_a_file_that_is_not_a_database_is_one_error_line_and_left_as_it_was(
    run_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "mine").mkdir()
    path = tmp_path / "mine" / "notes.md"
    path.write_text("# my notes\n", encoding="utf-8")
    result = run_cli("progress", "--db", f"sqlite:///{path}")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: {path} is not a SQLite database, so it cannot hold the study database; "
        "give another file with --db (a new one is created), or move that one away.\n"
    )
    assert path.read_text(encoding="utf-8") == "# my notes\n"
    assert [p.name for p in path.parent.iterdir()] == ["notes.md"]


@pytest.mark.postgres
def test_postgresql_keeps_the_explicit_db_upgrade(run_cli: RunCli, postgres_url: str) -> None:
    result = run_cli("progress", "--db", postgres_url)
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: The study database {safe_url(postgres_url)} has no schema yet; run "
        f"`sysdrill db upgrade` (with the same --db) to bring it to {HEAD_REVISION}.\n"
    )
    engine = sa.create_engine(postgres_url)
    try:
        assert sa.inspect(engine).get_table_names() == []
    finally:
        engine.dispose()
    assert run_cli("db", "upgrade", "--db", postgres_url).exit_code == 0
    assert run_cli("progress", "--db", postgres_url, "--json").exit_code == 0


def test_a_db_path_in_a_missing_folder_is_refused_and_nothing_is_created(
    run_cli: RunCli, tmp_path: Path
) -> None:
    typo = tmp_path / "studdy" / "x.db"

    result = run_cli("progress", "--db", f"sqlite:///{typo}")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: Cannot open ")
    assert "does not exist" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not typo.parent.exists()
