"""A store over the process's shared engine for one database URL: open, read, write, close.

Every store (study state, accounts, personal decks) holds the engine the same way:
acquired on open, the schema checked once, released on close, and each read or
write in its own connection with database errors translated. A write is one plain
transaction (``engine.begin()``), committed before the method returns.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Self

from sqlalchemy.engine import Connection, Engine

from sysdrill.storage.engine import (
    WRITE_OPTION,
    acquire_engine,
    check_schema,
    release_engine,
    safe_url,
)
from sysdrill.storage.translate import translate_errors

__all__ = ["EngineStore", "read_connection"]


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """A pooled connection to read with, outside any transaction on PostgreSQL.

    Each read there runs on its own (autocommit), so it costs one round trip
    rather than three (BEGIN, the query, ROLLBACK when the connection goes back
    to the pool); at READ COMMITTED each statement saw its own snapshot anyway.
    SQLite reads cost no round trip and keep SQLAlchemy's transactions.
    """
    with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn.execution_options(isolation_level="AUTOCOMMIT")
        yield conn


class EngineStore:
    """The process's engine for one database URL, held from open to close."""

    def __init__(self, url: str) -> None:
        """Open the database at ``url`` (it must be migrated: ``sysdrill db upgrade``).

        Raises:
            StorageUnavailable: If the database cannot be opened.
            MigrationError: If the schema is behind or newer than this sysdrill.
        """
        self.url = safe_url(url)
        self._url = url
        self._engine = acquire_engine(url)
        self._closed = False
        try:
            check_schema(self._engine, url)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the engine."""
        if not self._closed:
            self._closed = True
            release_engine(self._url, self._engine)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self, doing: str) -> Iterator[Connection]:
        """One write transaction (SQLite: BEGIN IMMEDIATE); ``doing`` names it in errors."""
        with translate_errors(doing), self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self, doing: str) -> Iterator[Connection]:
        """One connection for reads (autocommit on PostgreSQL); ``doing`` names it in errors."""
        with translate_errors(doing), read_connection(self._engine) as conn:
            yield conn
