"""Sessions as records: those still in progress, and the reports of finished ones."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sysdrill.app.session_views import ReportView
from sysdrill.errors import SessionNotFound
from sysdrill.study.clock import require_utc
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.saved import SavedSession

__all__ = ["finished_report", "list_sessions"]


def finished_report(study: StudyService, session_id: int) -> ReportView:
    """The report of a finished session (a gauntlet's results page).

    Raises:
        SessionNotFound: If the learner has no finished session with that id.
    """
    for record in study.sessions():
        if record.session_id == session_id and record.ended_at is not None:
            stored = record.meta.get("report")
            if isinstance(stored, dict):
                return ReportView.from_dict(stored)
    raise SessionNotFound(
        f"No finished session {session_id} with a report. Finish the session first."
    )


def _over(saved: SavedSession, now: datetime | None) -> bool:
    """Whether a stored session asks nothing more.

    Its last move ended it, or its countdown ran out at ``now`` while nobody looked.
    """
    if saved.moves and saved.moves[-1].get("ends"):
        return True
    limit = saved.options.get("time_limit_seconds")
    if now is None or limit is None:
        return False
    return saved.started_at + timedelta(seconds=float(limit)) <= require_utc(now)


def list_sessions(study: StudyService, *, now: datetime | None = None) -> list[dict[str, Any]]:
    """The learner's sessions in progress, the most recently moved first (JSON-ready).

    A session that asks nothing more is left out, though its results were not
    looked at yet: every item answered, or (given ``now``) its countdown over.
    """
    return [
        {
            "session_id": int(saved.session_id),
            "kind": saved.kind,
            "title": saved.options.get("title", saved.kind),
            "position": saved.position,
            "items": len(saved.item_ids),
            "started_at": saved.started_at.isoformat(),
            "updated_at": saved.updated_at.isoformat(),
        }
        for saved in study.store.list_active_sessions(study.scope)
        if not _over(saved, now)
    ]
