"""Problem reports about items, kept in the study database.

Every worker serving one database writes and lists the same reports. This module
stores rows; what a report may say (its kinds, the message's limits) is the rule
of :mod:`sysdrill.app.problem_reports`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore

__all__ = ["ReportRow", "ReportStore"]


@dataclass(frozen=True, slots=True)
class ReportRow:
    """One stored problem report, as the database holds it."""

    item_id: str
    kind: str
    message: str
    user_name: str
    """Who sent it (``local`` in single-user mode)."""
    reported_at: datetime
    """When it was sent (UTC)."""


_NEWEST_FIRST = sa.select(
    t.problem_reports.c.item_id,
    t.problem_reports.c.kind,
    t.problem_reports.c.message,
    t.problem_reports.c.user_name,
    t.problem_reports.c.reported_at,
).order_by(t.problem_reports.c.reported_at.desc(), t.problem_reports.c.id.desc())


class ReportStore(EngineStore):
    """Problem report rows over the process's engine for one database URL."""

    def add_report(self, report: ReportRow) -> None:
        """Store one report."""
        with self._write(f"storing a problem report about {report.item_id!r}") as conn:
            conn.execute(
                t.problem_reports.insert().values(
                    item_id=report.item_id,
                    kind=report.kind,
                    message=report.message,
                    user_name=report.user_name,
                    reported_at=report.reported_at,
                )
            )

    def list_reports(self) -> list[ReportRow]:
        """Every report, newest first (of two sent at one time, the later stored first)."""
        with self._read("listing the problem reports") as conn:
            rows = conn.execute(_NEWEST_FIRST).all()
        return [
            ReportRow(
                item_id=str(row.item_id),
                kind=str(row.kind),
                message=str(row.message),
                user_name=str(row.user_name),
                # PostgreSQL answers in the connection's time zone.
                reported_at=row.reported_at.astimezone(UTC),
            )
            for row in rows
        ]
