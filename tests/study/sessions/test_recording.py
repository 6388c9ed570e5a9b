"""The store recorder: one review per result, the session opened and closed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.engine import ItemResult, Outcome, SessionKind, SessionPlan
from sysdrill.study.sessions.recording import StoreRecorder
from sysdrill.study.sessions.report import SessionReport

START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def test_recorder_writes_reviews_in_its_session_and_finishes_it(vault):
    study = StudyService(MemoryStudyStore(), now=START)
    item = vault.items[0]
    plan = SessionPlan(SessionKind.GAUNTLET, "G", (item,), meta={"format": "quick"})
    recorder = StoreRecorder(study, plan, now=START)
    result = ItemResult(
        item,
        Outcome.ANSWERED,
        rating=Rating.HARD,
        graded_by=GradedBy.GAUNTLET,
        answer="an answer",
        duration_ms=1234,
    )
    due = recorder.record(result, now=START + timedelta(seconds=5))
    assert due is not None and due > START
    report = SessionReport(
        SessionKind.GAUNTLET, "G", (result,), timedelta(seconds=5), 1, 1, 0, 0, 0.6
    )
    recorder.finish(report, now=START + timedelta(seconds=6))
    (review,) = study.store.iter_reviews(study.user_id)
    assert (review.item_id, review.rating, review.graded_by, review.answer, review.duration_ms) == (
        item.id,
        int(Rating.HARD),
        "gauntlet",
        "an answer",
        1234,
    )
    (session,) = study.sessions()
    assert review.session_id == session.session_id == recorder.session_id
    assert session.meta["format"] == "quick" and session.meta["score_percent"] == 60
    assert recorder.recorded == 1
