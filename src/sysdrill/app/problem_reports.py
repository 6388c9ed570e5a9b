"""Problem reports learners send about items, kept for the vault's authors.

Reports live in the study database (:mod:`sysdrill.storage.report_store`), so every
worker serving it records and lists the same ones. Before schema 0011 the web app
appended them to ``reports.jsonl`` in the user data folder; that file is neither read
nor written any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sysdrill.errors import UsageError
from sysdrill.storage.location import study_database_url
from sysdrill.storage.report_store import ReportRow, ReportStore

__all__ = [
    "LOCAL_SENDER",
    "MESSAGE_LIMIT_CHARS",
    "ProblemKind",
    "ProblemReport",
    "list_problem_reports",
    "report_problem",
]

MESSAGE_LIMIT_CHARS = 4000
"""Longest report message kept."""
LOCAL_SENDER = "local"
"""The sender of a report in single-user mode."""


class ProblemKind(StrEnum):
    """What a learner says is wrong with an item."""

    WRONG_ANSWER = "wrong-answer"
    WRONG_MATH = "wrong-math"
    UNCLEAR = "unclear"
    TYPO = "typo"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class ProblemReport:
    """One report about one item."""

    item_id: str
    kind: ProblemKind
    message: str
    reported_at: datetime
    """When it was sent (UTC)."""
    user: str = LOCAL_SENDER
    """Who sent it (``local`` in single-user mode)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (time as ISO 8601)."""
        return {
            "item_id": self.item_id,
            "kind": self.kind.value,
            "message": self.message,
            "reported_at": self.reported_at.isoformat(),
            "user": self.user,
        }


def _checked(kind: str, message: str) -> tuple[ProblemKind, str]:
    try:
        chosen = ProblemKind(kind)
    except ValueError:
        allowed = ", ".join(k.value for k in ProblemKind)
        raise UsageError(f"kind must be one of {allowed}; got '{kind}'") from None
    text = message.strip()
    if not text:
        raise UsageError("say what is wrong: the message is empty")
    if len(text) > MESSAGE_LIMIT_CHARS:
        raise UsageError(f"the message is longer than {MESSAGE_LIMIT_CHARS} characters")
    return chosen, text


def report_problem(
    db_url: str | None,
    *,
    item_id: str,
    kind: str,
    message: str,
    now: datetime,
    user: str = LOCAL_SENDER,
) -> ProblemReport:
    """Store one report about the item ``item_id`` (the caller checked that it exists).

    Args:
        db_url: The study database URL; None for the default database.
        item_id: The item reported.
        kind: A :class:`ProblemKind` value.
        message: What is wrong; surrounding blanks are dropped.
        now: The current time (UTC), recorded as the report's time.
        user: The sender's name.

    Returns:
        The report as stored.

    Raises:
        UsageError: If the kind is unknown or the message blank or too long.
        MigrationError: If the database's schema is behind (``sysdrill db upgrade``).
        StorageError: If the database cannot be written.
    """
    chosen, text = _checked(kind, message)
    report = ProblemReport(item_id=item_id, kind=chosen, message=text, reported_at=now, user=user)
    with ReportStore(study_database_url(db_url)) as store:
        store.add_report(
            ReportRow(
                item_id=item_id, kind=chosen.value, message=text, user_name=user, reported_at=now
            )
        )
    return report


def list_problem_reports(db_url: str | None, *, cli: bool = False) -> list[ProblemReport]:
    """Every stored report, newest first.

    Args:
        db_url: The study database URL; None for the default database.
        cli: Called by a CLI command: an SQLite database is created or migrated
            first, as every CLI command does
            (:func:`sysdrill.app.study.ready_cli_database`); PostgreSQL must be
            upgraded with ``sysdrill db upgrade``.

    Raises:
        MigrationError: If the database's schema is behind (``sysdrill db upgrade``).
        StorageError: If the database cannot be read.
    """
    if cli:
        from sysdrill.app.study import ready_cli_database

        url = ready_cli_database(db_url)
    else:
        url = study_database_url(db_url)
    with ReportStore(url) as store:
        rows = store.list_reports()
    return [
        ProblemReport(
            item_id=row.item_id,
            kind=ProblemKind(row.kind),
            message=row.message,
            reported_at=row.reported_at,
            user=row.user_name,
        )
        for row in rows
    ]
