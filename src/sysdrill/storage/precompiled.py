"""Statements of the per-move hot path, compiled once per engine and run as their SQL.

At every ``Connection.execute`` SQLAlchemy finds the statement's compiled form in
its cache by hashing the statement's whole cache key, a nested tuple as large as
the statement, then builds the bound values through the compiled form. For a
review's one statement on PostgreSQL (three data-modifying CTEs, forty-odd
values) that lookup showed as a tenth of the review's server time. A
:class:`Precompiled` statement is compiled once per engine (its dialect) and
sent with ``exec_driver_sql``, the values passed as they are.

Only where passing them as they are is what SQLAlchemy would send: the compiled
form is used when no bound value needs converting on that dialect (psycopg takes
Python's ints, strings, floats, bools and aware datetimes as they are; SQLite's
datetimes are converted to text, so SQLite keeps ``Connection.execute``). Floats
and bools count as needing nothing: SQLAlchemy only checks a bool, or turns an
int into a float, which PostgreSQL does too.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection, CursorResult
from sqlalchemy.engine import Dialect

__all__ = ["Precompiled"]


_AS_IS = (sa.Boolean, sa.Float)
"""Types whose bind processors only check a bool or turn an int into a float: the
driver takes the bools and floats (and PostgreSQL the ints) as they are."""


@dataclass(frozen=True, slots=True)
class _Compiled:
    text: str
    held: dict[str, Any]
    """The values of the statement's own literals, by bound name."""


class Precompiled:
    """A statement run as its SQL text compiled once per dialect (see the module)."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self._compiled: dict[tuple[Dialect, frozenset[str]], _Compiled | None] = {}
        self._lock = threading.Lock()

    def _sql(self, dialect: Dialect, keys: frozenset[str]) -> _Compiled | None:
        """The SQL text for these bound names, or None when a value would need converting."""
        slot = (dialect, keys)
        try:
            return self._compiled[slot]
        except KeyError:
            pass
        # An UPDATE without .values() sets the columns its values name: compile for those.
        compiled = self.statement.compile(dialect=dialect, column_keys=sorted(keys))
        as_is = dialect.paramstyle == "pyformat" and all(
            isinstance(bind.type, _AS_IS) or bind.type.bind_processor(dialect) is None
            for bind in compiled.binds.values()
        )
        # Values the statement holds itself (literals such as coalesce's 0).
        held = {
            compiled.bind_names[bind]: bind.effective_value
            for bind in compiled.binds.values()
            if not bind.required
        }
        sql = _Compiled(compiled.string, held) if as_is else None
        with self._lock:
            self._compiled[slot] = sql
        return sql

    def execute(self, conn: Connection, params: dict[str, Any]) -> CursorResult[Any]:
        """Run the statement with ``params`` on ``conn`` (booleans must be bools)."""
        sql = self._sql(conn.dialect, frozenset(params))
        if sql is None:
            return conn.execute(self.statement, params)
        return conn.exec_driver_sql(sql.text, {**sql.held, **params} if sql.held else params)
