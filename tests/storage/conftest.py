"""Stores for the contract suite: in-memory, SQLite and (when configured) PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.store import StudyStore


def _sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'study.sqlite3'}"


StoreFactory = Callable[[], StudyStore]


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A factory opening the same store again (a new connection for SQL stores)."""
    opened: list[StudyStore] = []
    if request.param == "memory":
        memory = MemoryStudyStore()

        def factory() -> StudyStore:
            return memory

    else:
        from sysdrill.storage.engine import upgrade_database
        from sysdrill.storage.sql_store import SqlStudyStore

        url = (
            _sqlite_url(tmp_path)
            if request.param == "sqlite"
            else request.getfixturevalue("postgres_url")
        )

        upgrade_database(url)

        def factory() -> StudyStore:
            store = SqlStudyStore(url)
            opened.append(store)
            return store

    yield factory
    for store in opened:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> StudyStore:
    """One open store of each kind."""
    return make_store()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def blank_sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database for each SQL backend: a SQLite file, and PostgreSQL when configured."""
    if request.param == "sqlite":
        return _sqlite_url(tmp_path)
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def sql_url(blank_sql_url: str) -> str:
    """A database for each SQL backend, upgraded to the current schema (``db upgrade``)."""
    from sysdrill.storage.engine import upgrade_database

    upgrade_database(blank_sql_url)
    return blank_sql_url
