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
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

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


class ConnectionHolder:
    """Hands out connections to a store's methods; holds one through a unit of work."""

    _engine: Engine
    _held: Connection | None = None

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A connection to read with: the held one, else one from the pool."""
        if self._held is not None:
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
            yield self._held
            return
        with self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                yield conn
                self._before_commit(conn)

    @contextmanager
    def unit_of_work(self) -> Iterator[None]:
        """Make every call in the block one transaction on one connection.

        Committed when the block ends; rolled back, with every write made in
        it, when the block raises. Nested units join the outer one. A unit
        begins as a write transaction (on SQLite it takes the write lock at
        once, so its reads and writes see one state).
        """
        if self._held is not None:
            yield
            return
        with translate_errors("saving your move"), self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                self._held = conn
                try:
                    yield
                    self._before_commit(conn)
                finally:
                    self._held = None

    def _before_commit(self, conn: Connection) -> None:
        """Last word before a write transaction commits: raise to roll it back."""
