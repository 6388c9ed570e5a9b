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

psycopg turns a query's ``%(name)s`` placeholders into PostgreSQL's ``$1``... by
scanning its text, and keeps the result only for queries of at most
:data:`DRIVER_CACHED_LENGTH` bytes and :data:`DRIVER_CACHED_VALUES` values; a
longer one is scanned at every call (a review's statement was: 5 % of the
server's time under load). So the text sent names its values ``p0``, ``p1``...,
and values the statement binds more than once under different names (the user's
id in each of its CTEs) are sent once, where the caller says they are the same
(``same=``); a call whose copies differ runs the statement as written.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection, CursorResult
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import visitors
from sqlalchemy.sql.elements import BindParameter

__all__ = ["DRIVER_CACHED_LENGTH", "DRIVER_CACHED_VALUES", "Precompiled"]

# psycopg's own limits (``psycopg._queries``, the same since 3.1), written out: importing
# psycopg here would load it into every process, SQLite's too, after the web app froze
# its start-up objects out of garbage collection, and double the cost of each full
# collection. tests/storage/test_precompiled.py checks them against psycopg's.
DRIVER_CACHED_LENGTH = 4096
"""The longest statement (bytes) whose placeholders psycopg converts once and keeps."""
DRIVER_CACHED_VALUES = 50
"""The most values a statement psycopg keeps may have."""

_AS_IS = (sa.Boolean, sa.Float)
"""Types whose bind processors only check a bool or turn an int into a float: the
driver takes the bools and floats (and PostgreSQL the ints) as they are."""

_PLACEHOLDER = re.compile(r"%%|%\((\w+)\)s")
"""A pyformat placeholder, or an escaped percent sign (skipped as a whole)."""


@dataclass(frozen=True, slots=True)
class _Compiled:
    text: str
    names: dict[str, str]
    """The name each of the caller's values is sent under, by the caller's name."""
    held: dict[str, Any]
    """The values of the statement's own literals, by the name they are sent under."""


def _renamed(text: str, names: Mapping[str, str]) -> str:
    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        return match.group(0) if name is None else f"%({names[name]})s"

    return _PLACEHOLDER.sub(rename, text)


class Precompiled:
    """A statement run as its SQL text compiled once per dialect (see the module)."""

    def __init__(self, statement: Any, *, same: Mapping[str, Iterable[str]] | None = None) -> None:
        """``same`` maps a bound name to the names bound elsewhere to the same value."""
        self.statement = statement
        self._copies = {copy: kept for kept, copies in (same or {}).items() for copy in copies}
        self._merged = statement
        if self._copies:
            binds = {
                element.key: element
                for element in visitors.iterate(statement)
                if isinstance(element, BindParameter)
            }

            def merge(element: Any, **_: Any) -> Any:
                if isinstance(element, BindParameter) and element.key in self._copies:
                    return sa.bindparam(self._copies[element.key], type_=element.type)
                return None

            unknown = sorted(set(self._copies) - set(binds))
            if unknown:
                raise ValueError(f"The statement binds no value named {', '.join(unknown)}.")
            self._merged = visitors.replacement_traverse(statement, {}, merge)
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
        compiled = self._merged.compile(
            dialect=dialect, column_keys=sorted(keys - self._copies.keys())
        )
        as_is = dialect.paramstyle == "pyformat" and all(
            isinstance(bind.type, _AS_IS) or bind.type.bind_processor(dialect) is None
            for bind in compiled.binds.values()
        )
        sql = None
        if as_is:
            bound = dict.fromkeys(compiled.bind_names.values())
            names = {name: f"p{n}" for n, name in enumerate(bound)}
            # Values the statement holds itself (literals such as coalesce's 0).
            held = {
                names[compiled.bind_names[bind]]: bind.effective_value
                for bind in compiled.binds.values()
                if not bind.required
            }
            sql = _Compiled(_renamed(compiled.string, names), names, held)
        with self._lock:
            self._compiled[slot] = sql
        return sql

    def _copies_agree(self, params: Mapping[str, Any]) -> bool:
        return all(
            copy not in params or params.get(kept) == params[copy]
            for copy, kept in self._copies.items()
        )

    def driver_form(
        self, dialect: Dialect, params: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """The SQL text and values sent for ``params``, or None when SQLAlchemy sends them."""
        if self._copies and not self._copies_agree(params):
            return None
        sql = self._sql(dialect, frozenset(params))
        if sql is None:
            return None
        names = sql.names
        sent = {names[key]: value for key, value in params.items() if key in names}
        return sql.text, sql.held | sent if sql.held else sent

    def execute(self, conn: Connection, params: dict[str, Any]) -> CursorResult[Any]:
        """Run the statement with ``params`` on ``conn`` (booleans must be bools)."""
        form = self.driver_form(conn.dialect, params)
        if form is None:
            return conn.execute(self.statement, params)
        return conn.exec_driver_sql(*form)
