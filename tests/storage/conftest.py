"""Stores for the contract suite: in-memory, SQLite and (when configured) PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.store import StudyStore

POSTGRES_ENV = "SYSDRILL_TEST_POSTGRES_URL"


def postgres_base_url() -> str:
    """The PostgreSQL URL under test, or a skip (a failure with SYSDRILL_REQUIRE_POSTGRES=1)."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get("SYSDRILL_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"{POSTGRES_ENV} is unset but SYSDRILL_REQUIRE_POSTGRES=1")
        pytest.skip(f"{POSTGRES_ENV} is not set")
    return url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL whose connections use a fresh schema, dropped after the test."""
    import sqlalchemy as sa

    base = postgres_base_url()
    schema = f"sysdrill_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


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
