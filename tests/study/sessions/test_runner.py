"""Running a plan against the study service: reviews and the session are stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import UsageError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.answers import AnswerScript
from sysdrill.study.sessions.engine import SessionKind, SessionPlan
from sysdrill.study.sessions.runner import EMPTY_MESSAGES, run_script_session, run_session

START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture
def study():
    service = StudyService(MemoryStudyStore(), now=START)
    yield service
    service.close()


def _plan(vault, *ids):
    by_id = {item.id: item for item in vault.items}
    return SessionPlan(SessionKind.QUIZ, "Quiz", tuple(by_id[i] for i in ids), meta={"deck": "d"})


def test_reviews_and_the_session_land_in_the_store(vault, study, clock):
    clock.step = timedelta(seconds=2)
    out: list[str] = []
    report = run_script_session(
        _plan(vault, "fc-1", "c-l2-mc"),
        study=study,
        script=AnswerScript(["4", "a"]),
        write=out.append,
        clock=clock,
    )
    assert report is not None and report.answered == 2
    reviews = list(study.store.iter_reviews(study.user_id))
    assert [(r.item_id, r.rating, r.graded_by, r.answer) for r in reviews] == [
        ("fc-1", int(Rating.GOOD), GradedBy.SELF.value, None),
        ("c-l2-mc", int(Rating.AGAIN), GradedBy.MULTIPLE_CHOICE.value, "a"),
    ]
    assert all(r.duration_ms > 0 for r in reviews)
    (session,) = study.sessions()
    assert session.kind == "quiz"
    assert session.ended_at is not None
    assert session.meta["deck"] == "d"
    assert session.meta["score_percent"] == 50
    assert {r.session_id for r in reviews} == {session.session_id}
    assert study.card_state("fc-1").last_review is not None


def test_bad_line_still_closes_the_session_with_earlier_reviews(vault, study, clock):
    with pytest.raises(UsageError):
        run_script_session(
            _plan(vault, "fc-1", "fc-2"),
            study=study,
            script=AnswerScript(["good", "nonsense"]),
            write=lambda line: None,
            clock=clock,
        )
    assert len(list(study.store.iter_reviews(study.user_id))) == 1
    assert study.sessions()[0].ended_at is not None


def test_empty_plan_says_why_and_records_no_session(vault, study, clock):
    out: list[str] = []
    plan = SessionPlan(SessionKind.DAILY, "Daily", ())
    assert (
        run_script_session(
            plan, study=study, script=AnswerScript([]), write=out.append, clock=clock
        )
        is None
    )
    assert out == [EMPTY_MESSAGES[SessionKind.DAILY]]
    assert study.sessions() == []


def test_a_session_left_by_an_exception_is_ended_and_recorded(vault, study, clock):
    def drive(session):
        session.rate(Rating.GOOD)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_session(_plan(vault, "fc-1", "fc-2"), study=study, clock=clock, drive=drive)
    assert [r.item_id for r in study.store.iter_reviews(study.user_id)] == ["fc-1"]
    (session,) = study.sessions()
    assert session.ended_at is not None


def test_run_session_records_nothing_for_an_empty_plan(study, clock):
    plan = SessionPlan(SessionKind.QUIZ, "Quiz", ())
    assert run_session(plan, study=study, clock=clock, drive=lambda session: None) is None
    assert study.sessions() == []
