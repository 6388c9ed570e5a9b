"""Problem reports learners send about items, kept for the vault's authors.

Reports are appended to ``reports.jsonl`` in the user data folder, one JSON
object a line, rather than in the study database: they are for authors, not
part of a learner's history, and a file needs no schema migration.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from sysdrill.errors import StorageError, UsageError

__all__ = ["ProblemKind", "ProblemReport", "add_report", "list_reports", "reports_path"]

MESSAGE_LIMIT_CHARS = 4000
"""Longest report message kept."""

_lock = threading.Lock()


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
    user: str = "local"
    """Who sent it (``local`` in single-user mode)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (time as ISO 8601)."""
        data = asdict(self)
        data["kind"] = self.kind.value
        data["reported_at"] = self.reported_at.isoformat()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProblemReport:
        """Read a mapping written by :meth:`to_dict`."""
        return cls(
            item_id=str(data["item_id"]),
            kind=ProblemKind(data["kind"]),
            message=str(data["message"]),
            reported_at=datetime.fromisoformat(data["reported_at"]),
            user=str(data.get("user", "local")),
        )


def reports_path(data_dir: Path) -> Path:
    """The reports file in ``data_dir``."""
    return data_dir / "reports.jsonl"


def add_report(
    data_dir: Path,
    *,
    item_id: str,
    kind: str,
    message: str,
    now: datetime,
    user: str = "local",
) -> ProblemReport:
    """Store one report.

    Raises:
        UsageError: If the kind is unknown or the message blank or too long.
        StorageError: If the file cannot be written.
    """
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
    report = ProblemReport(item_id=item_id, kind=chosen, message=text, reported_at=now, user=user)
    path = reports_path(data_dir)
    line = json.dumps(report.to_dict(), ensure_ascii=False) + "\n"
    try:
        with _lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as out:
                out.write(line)
    except OSError as exc:
        raise StorageError(f"cannot write the report to {path}: {exc.strerror}") from exc
    return report


def list_reports(data_dir: Path) -> list[ProblemReport]:
    """Every stored report, newest first (unreadable lines are skipped).

    Raises:
        StorageError: If the file exists but cannot be read.
    """
    path = reports_path(data_dir)
    if not path.exists():
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise StorageError(f"cannot read the reports in {path}: {exc.strerror}") from exc
    found = []
    for line in lines:
        try:
            found.append(ProblemReport.from_dict(json.loads(line)))
        except (ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda r: r.reported_at, reverse=True)
