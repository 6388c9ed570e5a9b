"""Connections of a store: one per call, or one held for a whole unit of work.

Each store method reads or writes through :meth:`ConnectionHolder._read` and
:meth:`ConnectionHolder._write`. Outside a unit of work every call checks a
connection out of the engine's pool and returns it (a write commits before the
method returns, as the store protocol says). Inside
:meth:`ConnectionHolder.unit_of_work` every call uses the one connection the
block holds, in one write transaction committed when the block ends, or rolled
back with everything in it if the block raises: a learner's move (read the
session, write the review, the card, the day's counts and the session) is then
one round of the pool and one transaction, and a move that fails halfway writes
nothing.

On PostgreSQL a unit of work sends BEGIN only before its first write (its reads
before that run on their own, which at READ COMMITTED sees what a transaction
would), and a unit whose one write is its last (:meth:`ConnectionHolder._write_last`,
a session's save after an answer) runs that write on its own when the unit ends:
one round trip where BEGIN, the write and COMMIT were three.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine

from sysdrill.storage.engine import WRITE_OPTION
from sysdrill.storage.translate import translate_errors

__all__ = ["ConnectionHolder", "engine_memo", "read_connection"]

_memos: weakref.WeakKeyDictionary[Engine, dict[str, int]] = weakref.WeakKeyDictionary()
_memos_lock = threading.Lock()


def engine_memo(engine: Engine) -> dict[str, int]:
    """A dict kept as long as ``engine``, for facts that never change once committed.

    The scheduler-settings ids are such facts: a digest's id, once committed, is
    the same for every store on the engine, so each request need not ask again.
    Safe under threads: a dict's single get and set are atomic.
    """
    with _memos_lock:
        memo = _memos.get(engine)
        if memo is None:
            memo = _memos[engine] = {}
        return memo


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


Write = Callable[[Connection], None]
"""A write a store method hands over to run on the unit of work's connection."""


class ConnectionHolder:
    """Hands out connections to a store's methods; holds one through a unit of work."""

    _engine: Engine
    _held: Connection | None = None
    _driver: Any = None
    """PostgreSQL's connection (psycopg's) while the unit has not begun its transaction."""
    _last_write: Write | None = None
    """The unit's last write, held back to run on its own when the unit ends."""

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A connection to read with: the held one, else one from the pool."""
        if self._held is not None:
            if self._last_write is not None:
                # A read after the held-back write must see it: both go in the transaction.
                self._begin_writing()
            yield self._held
            return
        with read_connection(self._engine) as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A connection in a write transaction, committed on leaving the block.

        Inside a unit of work, the held connection: its transaction commits when
        the unit ends.
        """
        if self._held is not None:
            self._begin_writing()
            yield self._held
            return
        with self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                yield conn

    def _write_last(self, write: Write) -> None:
        """Run ``write``, which its caller makes last in any unit of work.

        Outside a unit, at once in a transaction of its own. In a unit that has
        written nothing yet, when the unit ends (on PostgreSQL, on its own: no
        BEGIN and COMMIT) unless the unit reads or writes again first, which
        runs it at that point inside the unit's transaction.
        """
        if self._held is None:
            with self._write() as conn:
                write(conn)
            return
        if self._driver is not None and self._last_write is None:
            self._last_write = write
            return
        self._begin_writing()
        write(self._held)

    def _begin_writing(self) -> None:
        """Make the held connection's next statements one transaction (PostgreSQL)."""
        driver = self._driver
        if driver is None:
            return
        self._driver = None
        # psycopg sends BEGIN before the next statement.
        driver.autocommit = False
        held, self._last_write = self._last_write, None
        if held is not None:
            assert self._held is not None
            held(self._held)

    @contextmanager
    def unit_of_work(self) -> Iterator[None]:
        """Make every call in the block one transaction on one connection.

        Committed when the block ends; rolled back, with every write made in
        it, when the block raises. Nested units join the outer one. On SQLite a
        unit begins as a write transaction (it takes the write lock at once, so
        its reads and writes see one state); on PostgreSQL at its first write.
        """
        if self._held is not None:
            yield
            return
        with translate_errors("saving your move"), self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            driver = (
                conn.connection.driver_connection if conn.dialect.name == "postgresql" else None
            )
            try:
                with conn.begin():
                    self._held = conn
                    if driver is not None:
                        driver.autocommit = True
                        self._driver = driver
                    try:
                        yield
                        last, self._last_write = self._last_write, None
                        if last is not None:
                            last(conn)  # alone in the unit: on its own, committed at once
                    finally:
                        self._held = None
                        self._driver = None
                        self._last_write = None
            finally:
                if driver is not None and not driver.broken and not driver.closed:
                    # Back to the pool as it came: statements in transactions.
                    driver.autocommit = False
