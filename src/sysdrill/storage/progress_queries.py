"""Cards as plain numbers: the progress report's queries and the workload forecast's.

The report reads seen cards and due dates counted by day; its headline (the
dashboard's) reads only whether each seen card is mastered; the forecast reads
every card past the NEW state.

The database does the date arithmetic, so no datetime is built in Python for the
100,000 cards of a large vault. Its dialects spell it differently, so the two
expressions below compile to SQLite's or PostgreSQL's own form; each gives the
exact value Python would (see :mod:`sysdrill.study.card_figures`):

- :class:`epoch_us`: whole microseconds since the Unix epoch of a UTC timestamp;
- :class:`epoch_day`: days since 1970-01-01 of a UTC timestamp's date.

Rows are read from the driver's cursor: every column is an int, a float or a
string, which need no conversion, and SQLAlchemy's row objects would cost as much
as the query.

On SQLite both queries read the table from end to end (:class:`unindexed`): a
learner's cards are most of a study database, and reaching them through the
primary-key or due index costs one lookup per card, several times the scan.
PostgreSQL, which may serve many learners, keeps its planner's choice.

What they read is kept while the scope's cards stay as they were, which the
database confirms on every call (:mod:`sysdrill.storage.card_snapshot`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from datetime import datetime
from itertools import chain, filterfalse
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from sysdrill.storage import schema as t
from sysdrill.storage.card_snapshot import kept_figure
from sysdrill.study.card_figures import ForecastCard, SeenCard
from sysdrill.study.card_state import CardState
from sysdrill.study.ratings import Rating
from sysdrill.study.user_state import StudyScope

__all__ = ["ProgressQueries", "epoch_day", "epoch_us", "unindexed"]


class epoch_us(FunctionElement[int]):  # noqa: N801 - named like the SQL functions it stands for
    """Whole microseconds since the Unix epoch of a UTC timestamp column."""

    type = sa.BigInteger()
    name = "epoch_us"
    inherit_cache = True


class epoch_day(FunctionElement[int]):  # noqa: N801
    """Days since 1970-01-01 of the UTC date of a timestamp column."""

    type = sa.BigInteger()
    name = "epoch_day"
    inherit_cache = True


class unindexed(FunctionElement[Any]):  # noqa: N801
    """A column as it is, except that SQLite may not use an index for it (``+column``)."""

    name = "unindexed"
    inherit_cache = True

    def __init__(self, column: sa.ColumnElement[Any]) -> None:
        super().__init__(column)
        self.type = column.type


def _column(element: FunctionElement[Any], compiler: SQLCompiler, **kw: Any) -> str:
    (column,) = element.clauses
    return str(compiler.process(column, **kw))


@compiles(unindexed)
def _unindexed_default(element: unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    return _column(element, compiler, **kw)


@compiles(unindexed, "sqlite")
def _unindexed_sqlite(element: unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite's unary plus leaves any value as it is and hides the column from the planner.
    return "+" + _column(element, compiler, **kw)


def _of_scope_scanned(scope: StudyScope) -> sa.ColumnElement[bool]:
    """The cards of ``scope``, found by a scan on SQLite (see the module's docstring)."""
    return sa.and_(
        unindexed(t.cards.c.user_id) == scope.user_id,
        unindexed(t.cards.c.vault_id) == scope.vault_id,
    )


# SQLite stores these columns as text, "YYYY-MM-DD HH:MM:SS.ffffff" (schema.UtcDateTime).
# The whole seconds come from the text before the fraction (SQLite's date functions
# would round the fraction to milliseconds first, and could carry it into the next
# second), through julianday, whose error is far below the half second rounded off;
# the microseconds come from the text as they are.
@compiles(epoch_us, "sqlite")
def _epoch_us_sqlite(element: epoch_us, compiler: SQLCompiler, **kw: Any) -> str:
    text = _column(element, compiler, **kw)
    return (
        f"(CAST(round((julianday(substr({text}, 1, 19)) - 2440587.5) * 86400) AS INTEGER)"
        f" * 1000000 + CAST(substr({text}, 21, 6) AS INTEGER))"
    )


@compiles(epoch_day, "sqlite")
def _epoch_day_sqlite(element: epoch_day, compiler: SQLCompiler, **kw: Any) -> str:
    # A date's Julian day number ends in .5 exactly, so the difference is whole.
    text = _column(element, compiler, **kw)
    return f"CAST(julianday(substr({text}, 1, 10)) - 2440587.5 AS INTEGER)"


# PostgreSQL: the whole seconds and the microseconds within the second are each
# exact, whether EXTRACT answers in numeric (PostgreSQL 14+) or double precision.
@compiles(epoch_us, "postgresql")
def _epoch_us_postgresql(element: epoch_us, compiler: SQLCompiler, **kw: Any) -> str:
    stamp = _column(element, compiler, **kw)
    return (
        f"(CAST(EXTRACT(EPOCH FROM date_trunc('second', {stamp})) AS BIGINT) * 1000000"
        f" + mod(CAST(EXTRACT(MICROSECONDS FROM {stamp}) AS BIGINT), 1000000))"
    )


@compiles(epoch_day, "postgresql")
def _epoch_day_postgresql(element: epoch_day, compiler: SQLCompiler, **kw: Any) -> str:
    stamp = _column(element, compiler, **kw)
    return f"(CAST(({stamp} AT TIME ZONE 'UTC') AS DATE) - DATE '1970-01-01')"


_c = t.cards.c


def _cursor_rows(conn: Connection, query: sa.Select[Any]) -> tuple[Any, ...]:
    """The rows ``query`` selects, as the driver's cursor gives them (plain tuples)."""
    result = conn.execute(query)
    try:
        return tuple(result.cursor.fetchall())
    finally:
        result.close()


_KEPT_CHECKS = 2
"""Answers of :func:`_all_in` kept (each holds its ids and its collection alive)."""
_checks_lock = threading.Lock()
_checks: list[tuple[tuple[Any, ...], Collection[str], bool]] = []


def _all_in(ids: tuple[Any, ...], item_ids: Collection[str]) -> bool:
    """Whether every id of the kept rows ``ids`` is in ``item_ids``.

    Asked on every dashboard visit of the same kept rows and the same loaded vault
    (90,000 lookups, about 10 ms): the answer is kept for the last pairs, by identity.
    """
    with _checks_lock:
        for kept_ids, kept_items, answer in _checks:
            if kept_ids is ids and kept_items is item_ids:
                return answer
    answer = next(filterfalse(item_ids.__contains__, chain.from_iterable(ids)), None) is None
    with _checks_lock:
        _checks.append((ids, item_ids, answer))
        del _checks[:-_KEPT_CHECKS]
    return answer


class ProgressQueries:
    """The progress report's queries, mixed into the SQL study store."""

    _engine: Engine

    def seen_cards(self, scope: StudyScope) -> list[SeenCard]:
        """Every card of the scope reviewed at least once, as plain numbers (any order).

        While the cards are unchanged this is the same list each call (read-only), so
        the progress report keeps its grouping of them (``study/progress_groups.py``).
        """
        query = sa.select(
            _c.item_id, _c.state, _c.stability_days, epoch_us(_c.last_review), _c.lapses
        ).where(_of_scope_scanned(scope), _c.never_seen.is_(False))

        def read(conn: Connection) -> list[SeenCard]:
            return cast("list[SeenCard]", list(_cursor_rows(conn, query)))

        return cast("list[SeenCard]", self._kept(scope, "seen", read))

    def seen_counts(
        self, scope: StudyScope, item_ids: Collection[str], *, mastered_stability_days: float
    ) -> tuple[int, int]:
        """Cards of ``item_ids`` reviewed at least once, and how many of them are mastered.

        The database counts both. A card may outlive its item in the vault and must
        not be counted, so the seen cards' ids are read as well (ids alone, checked
        in C); only when some lie outside ``item_ids`` are the cards' mastery flags
        read and counted here instead.
        """
        mastered = sa.case(
            (
                sa.and_(
                    _c.state == int(CardState.REVIEW),
                    _c.stability_days >= mastered_stability_days,
                ),
                1,
            ),
            else_=0,
        )
        seen_of_scope = sa.and_(_of_scope_scanned(scope), _c.never_seen.is_(False))
        counted = sa.select(sa.func.count(), sa.func.coalesce(sa.func.sum(mastered), 0))

        def read(conn: Connection) -> tuple[int, int, tuple[Any, ...]]:
            seen, mastered_count = conn.execute(counted.where(seen_of_scope)).one()
            ids = _cursor_rows(conn, sa.select(_c.item_id).where(seen_of_scope))
            return int(seen), int(mastered_count), ids

        seen, mastered_count, ids = self._kept(scope, ("counts", mastered_stability_days), read)
        if _all_in(ids, item_ids):
            return int(seen), int(mastered_count)
        rows = self._kept_rows(
            scope,
            ("mastery", mastered_stability_days),
            sa.select(_c.item_id, mastered).where(seen_of_scope),
        )
        flags = [flag for item_id, flag in rows if item_id in item_ids]
        return len(flags), sum(flags)

    def forecast_cards(self, scope: StudyScope) -> list[ForecastCard]:
        """Every card of the scope past the NEW state, as plain numbers (any order)."""
        query = sa.select(
            _c.item_id,
            _c.state,
            _c.step,
            _c.stability_days,
            _c.difficulty,
            epoch_us(_c.due),
            epoch_us(_c.last_review),
        ).where(_of_scope_scanned(scope), _c.state != int(CardState.NEW))
        return cast("list[ForecastCard]", list(self._kept_rows(scope, "forecast", query)))

    def rating_counts(self, scope: StudyScope, *, since: datetime) -> dict[str, tuple[int, int]]:
        """Reviews of each item in the log since ``since``, and how many were rated Again.

        The database counts them, reading the span through the reviews' time index
        (the whole log of a million reviews took 1.6 s more per ``progress``). Every
        review changes its card, so the counts are kept while the scope's cards are
        unchanged, as the cards' figures are.
        """
        r = t.reviews.c
        again = sa.func.coalesce(
            sa.func.sum(sa.case((r.rating == int(Rating.AGAIN), 1), else_=0)), 0
        )
        query = (
            sa.select(r.item_id, sa.func.count(), again)
            .where(r.user_id == scope.user_id, r.vault_id == scope.vault_id, r.reviewed_at >= since)
            .group_by(r.item_id)
        )

        def read(conn: Connection) -> dict[str, tuple[int, int]]:
            return {
                str(item_id): (int(reviews), int(failed))
                for item_id, reviews, failed in _cursor_rows(conn, query)
            }

        kept = self._kept(scope, ("rating counts", since), read)
        return cast("dict[str, tuple[int, int]]", kept)

    def _kept(self, scope: StudyScope, name: Any, read: Callable[[Connection], Any]) -> Any:
        return kept_figure(self._engine, scope, _of_scope_scanned(scope), name, read)

    def _kept_rows(self, scope: StudyScope, name: Any, query: sa.Select[Any]) -> tuple[Any, ...]:
        """The cards ``query`` selects, kept as ``name`` (see :func:`_cursor_rows`)."""
        return cast("tuple[Any, ...]", self._kept(scope, name, lambda c: _cursor_rows(c, query)))

    def due_days(self, scope: StudyScope, *, before: datetime) -> dict[int, int]:
        """Cards past the NEW state falling due before ``before``, counted by due day.

        Returns:
            Count of cards by the UTC day they are due, in days since 1970-01-01.
        """
        day = epoch_day(_c.due)
        query = (
            sa.select(day, sa.func.count())
            .where(
                _of_scope_scanned(scope),
                _c.state != int(CardState.NEW),
                _c.due.is_not(None),
                unindexed(_c.due) < before,
            )
            .group_by(day)
        )
        counts = self._kept(
            scope,
            ("due days", before),
            lambda conn: {int(due_day): int(count) for due_day, count in conn.execute(query)},
        )
        return dict(counts)
