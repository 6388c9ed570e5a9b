"""Sending a session's results to the study database."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sysdrill.study.sessions.engine import ItemResult, SessionPlan
from sysdrill.study.sessions.report import SessionReport

if TYPE_CHECKING:
    from sysdrill.study.service import StudyService

__all__ = ["StoreRecorder"]


class StoreRecorder:
    """A :class:`~sysdrill.study.sessions.engine.Recorder` over the study service.

    Creating it records the start of the session; each result becomes one
    review, committed before :meth:`record` returns.

    Args:
        study: The learner's study service.
        plan: The session's plan (its kind and metadata are stored).
        now: Start of the session (UTC).
    """

    def __init__(self, study: StudyService, plan: SessionPlan, *, now: datetime) -> None:
        self._study = study
        self.session_id = study.start_session(plan.kind.value, now=now, meta=plan.meta)
        self.recorded = 0
        """Reviews recorded so far."""

    def record(self, result: ItemResult, *, now: datetime) -> datetime | None:
        """Record one graded item as a review; returns when it is due next."""
        assert result.rating is not None and result.graded_by is not None
        outcome = self._study.record_review(
            result.item.id,
            rating=result.rating,
            graded_by=result.graded_by,
            answer=result.answer,
            duration_ms=result.duration_ms,
            now=now,
            session_id=self.session_id,
        )
        self.recorded += 1
        return outcome.due

    def finish(self, report: SessionReport, *, now: datetime) -> None:
        """Record the end of the session with its score."""
        self._study.finish_session(self.session_id, now=now, summary=report.to_summary())
