"""The session use cases: every move saved, resumed in another store, undone, finished."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study_vault import open_study_vault
from sysdrill.errors import SessionNotFound, UsageError
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.gauntlet import GauntletFormat
from sysdrill.study.sessions.state_machine import SessionKind

VAULT_DIR = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def _rate(study, vault, session_id, rating, *, now, memory=None):
    """Show the answer (a flashcard's back: a rating is refused before), then rate."""
    app.reveal(study, vault, session_id, now=now, memory=memory)
    return app.rate(study, vault, session_id, rating, now=now, memory=memory)


def _reviews(study: StudyService) -> list[tuple[str, Rating]]:
    return [(r.item_id, Rating(r.rating)) for r in study.store.iter_reviews(study.scope)]


def test_practice_starts_saved_and_shows_the_first_prompt(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    assert (view.phase, view.position, view.total) == ("rate", 1, 3)
    assert view.item is not None and view.item.item_id == "fc-1"
    assert view.item.mode == "flashcard"
    assert view.options == {"kind": "practice", "deck": "dp-cards", "limit": 20}
    assert [s["session_id"] for s in app.list_sessions(study)] == [view.session_id]


def test_each_move_is_saved_so_a_new_service_resumes_the_session(tmp_path, vault):
    from sysdrill.app.study import open_study

    url = f"sqlite:///{tmp_path / 'study.db'}"
    with open_study(url, vault=vault, upgrade=True) as first:
        view = app.start_session(
            first, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
        )
        _rate(first, vault, view.session_id, "4", now=T0 + timedelta(seconds=5))
    with open_study(url, vault=vault) as second:
        resumed = app.current_prompt(second, vault, view.session_id, now=T0 + timedelta(minutes=1))
        after = _rate(second, vault, view.session_id, "again", now=T0 + timedelta(minutes=2))
        second_reviews = _reviews(second)
    assert second_reviews == [("fc-1", Rating.EASY), ("fc-2", Rating.AGAIN)]
    assert resumed.item is not None and resumed.item.item_id == "fc-2"
    # The interval is fuzzed by the scheduler; the line comes from the saved due date.
    assert resumed.recorded is not None
    assert resumed.recorded.startswith("Recorded: Easy; next review in ")
    assert resumed.recorded.endswith(" days.")
    assert (after.position, after.total) == (3, 4)


def test_multiple_choice_is_graded_on_answer_with_the_reason(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.CHAIN, chain_id="hbm-basics"), now=T0
    )
    view = app.answer(study, vault, view.session_id, "80 GB", now=T0)
    assert view.phase == "rate"
    assert view.item is not None and view.item.given_answer == "80 GB"
    assert [name for name, _ in view.item.reveal][0] == "Model answer"
    view = _rate(study, vault, view.session_id, "good", now=T0)
    assert view.item is not None and view.item.mode == "multiple-choice"
    graded = app.answer(study, vault, view.session_id, "c", now=T0)
    assert graded.feedback is not None and graded.feedback.correct is True
    assert graded.feedback.why
    assert _reviews(study) == [("c-l1-hbm", Rating.GOOD), ("c-l2-mc", Rating.GOOD)]


def test_undo_takes_back_the_last_rating_and_asks_the_item_again(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    _rate(study, vault, view.session_id, "good", now=T0)
    _rate(study, vault, view.session_id, "again", now=T0)
    undone = app.undo_last_rating(study, vault, view.session_id, now=T0)
    assert undone.item is not None and undone.item.item_id == "fc-2"
    assert (undone.position, undone.total, undone.can_undo) == (2, 3, True)
    assert _reviews(study) == [("fc-1", Rating.GOOD)]
    assert study.store.get_card(study.scope, "fc-2") is None
    app.undo_last_rating(study, vault, view.session_id, now=T0)
    assert _reviews(study) == []
    with pytest.raises(UsageError, match="Nothing to undo"):
        app.undo_last_rating(study, vault, view.session_id, now=T0)


def test_exercise_parts_are_answered_one_by_one(study):
    sample = open_study_vault()
    view = app.start_session(
        study, sample, StartOptions(SessionKind.QUIZ, ItemFilter(deck="sample-exercises")), now=T0
    )
    assert view.item is not None and view.item.item_id == "global-0102"
    assert [label for label, _ in view.item.parts] == ["(a)", "(b)", "(c)"]
    view = app.answer_part(study, sample, view.session_id, "48.8 h", now=T0)
    view = app.answer_part(study, sample, view.session_id, "4600 s", now=T0)
    assert view.phase == "answer"
    assert view.item is not None and view.item.part_answers == ("48.8 h", "4600 s")
    view = app.answer_part(study, sample, view.session_id, "half an interval", now=T0)
    assert view.phase == "rate"
    assert view.item is not None
    assert view.item.given_answer == "(a) 48.8 h\n(b) 4600 s\n(c) half an interval"


def test_gauntlet_countdown_ends_the_session_and_finish_reports(study, vault):
    view = app.start_session(
        study,
        vault,
        StartOptions(SessionKind.GAUNTLET, gauntlet_format=GauntletFormat.QUICK, seed=3),
        now=T0,
    )
    assert view.remaining_seconds == 600.0
    late = app.current_prompt(study, vault, view.session_id, now=T0 + timedelta(minutes=11))
    assert late.phase == "done"
    assert late.report is not None and late.report.answered == 0
    report = app.finish(study, vault, view.session_id, now=T0 + timedelta(minutes=12))
    assert report.score_percent == 0
    assert report.elapsed_seconds == 600
    [record] = study.sessions()
    assert record.meta["score_percent"] == 0
    with pytest.raises(SessionNotFound, match="No session"):
        app.current_prompt(study, vault, view.session_id, now=T0)


def test_a_plan_with_nothing_to_ask_is_not_saved(study, vault):
    for item_id in ("fc-1", "fc-2", "fc-3"):
        study.record_review(item_id, rating=Rating.EASY, graded_by=GradedBy.SELF, now=T0)
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    assert view.session_id is None
    assert view.empty_message is not None and view.empty_message.startswith("Nothing to practise")
    assert app.list_sessions(study) == []


def test_views_serialise_to_json_ready_dicts(study, vault):
    import json

    view = app.start_session(
        study, vault, StartOptions(SessionKind.QUIZ, ItemFilter(deck="ch26-quiz")), now=T0
    )
    data = json.loads(json.dumps(view.to_dict()))
    assert data["kind"] == "quiz"
    assert data["item"]["item_id"] == "quiz-2"
    report = app.finish(study, vault, view.session_id, now=T0)
    assert json.loads(json.dumps(report.to_dict()))["results"][0]["outcome"] == "not-reached"


def test_finished_report_is_kept_with_the_session_record(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    _rate(study, vault, view.session_id, "good", now=T0)
    report = app.finish(study, vault, view.session_id, now=T0 + timedelta(minutes=1))
    assert app.finished_report(study, view.session_id) == report
    assert [(r.item_id, r.outcome, r.rating) for r in report.results] == [
        ("fc-1", "answered", "good"),
        ("fc-2", "not-reached", None),
        ("fc-3", "not-reached", None),
    ]
    with pytest.raises(SessionNotFound):
        app.finished_report(study, 999)


def test_a_move_from_a_stale_copy_is_refused(study, vault):
    from sysdrill.app.live_session import restore_session
    from sysdrill.errors import StorageConflict

    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    saved = study.store.get_active_session(study.scope, view.session_id)
    first = restore_session(study, vault, saved, clock=lambda: T0)
    second = restore_session(study, vault, saved, clock=lambda: T0)
    first.reveal()
    first.rate(Rating.GOOD)
    # Refused, not made again: the session moved on since the copy was read.
    with pytest.raises(StorageConflict):
        second.reveal()
    assert len(list(study.store.iter_reviews(study.scope))) == 1


def test_gauntlet_answers_are_scored_by_rubric_points(study, vault):
    view = app.start_session(
        study,
        vault,
        StartOptions(SessionKind.GAUNTLET, gauntlet_format=GauntletFormat.DESIGN, seed=1),
        now=T0,
    )
    view = app.answer(study, vault, view.session_id, "shard it", now=T0 + timedelta(minutes=1))
    assert view.phase == "rubric"
    points = len(view.rubric_points)
    assert points >= 2
    done = app.score_rubric(study, vault, view.session_id, [0], now=T0 + timedelta(minutes=2))
    assert done.phase == "done"
    assert done.report is not None
    assert done.report.score_percent == round(100 / points)
    [review] = study.store.iter_reviews(study.scope)
    assert review.graded_by == GradedBy.GAUNTLET.value


class _SteppingClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=2)
        return self.now


def test_drive_session_records_reviews_durations_and_the_score(study, vault):
    from sysdrill.study.sessions.answers import AnswerScript
    from sysdrill.study.sessions.line_mode import run_scripted

    clock = _SteppingClock()
    view = app.start_session(
        study, vault, StartOptions(SessionKind.QUIZ, ItemFilter(deck="dp-cards")), now=clock()
    )
    out: list[str] = []
    report = app.drive_session(
        study,
        vault,
        view.session_id,
        drive=lambda session: run_scripted(session, AnswerScript(["3", "1", "q"]), out.append),
        clock=clock,
    )
    assert (report.answered, report.score_percent) == (2, 50)
    reviews = list(study.store.iter_reviews(study.scope))
    assert [(r.item_id, r.rating, r.graded_by) for r in reviews] == [
        ("fc-1", int(Rating.GOOD), GradedBy.SELF.value),
        ("fc-2", int(Rating.AGAIN), GradedBy.SELF.value),
    ]
    # Every reading of the clock is 2 s later: shown at the start, then the back's
    # reveal and the rating prompt's intervals read it before the rating does.
    assert [r.duration_ms for r in reviews] == [8000, 6000]
    (session,) = study.sessions()
    assert session.ended_at is not None
    assert (session.meta["deck"], session.meta["score_percent"]) == ("dp-cards", 50)
    assert {r.session_id for r in reviews} == {session.session_id}
    assert app.list_sessions(study) == []


def test_a_driver_that_fails_still_finishes_the_session_with_its_reviews(study, vault):
    view = app.start_session(
        study, vault, StartOptions(SessionKind.QUIZ, ItemFilter(deck="dp-cards")), now=T0
    )

    def drive(session):
        session.reveal()
        session.rate(Rating.GOOD)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        app.drive_session(study, vault, view.session_id, drive=drive, clock=lambda: T0)
    assert [r.item_id for r in study.store.iter_reviews(study.scope)] == ["fc-1"]
    (session,) = study.sessions()
    assert session.ended_at is not None and session.meta["not_reached"] == 2
    assert app.list_sessions(study) == []


def test_a_session_whose_item_left_the_vault_is_refused_then_ended(study, vault):
    from dataclasses import replace as changed

    from sysdrill.errors import ContentInvalid

    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    _rate(study, vault, view.session_id, "good", now=T0)
    smaller = changed(vault, by_id={k: v for k, v in vault.by_id.items() if k != "fc-3"})
    with pytest.raises(ContentInvalid, match="asks fc-3, which the vault no longer holds"):
        app.current_prompt(study, smaller, view.session_id, now=T0)
    report = app.finish(study, smaller, view.session_id, now=T0)
    assert report.lines[0] == "Practice: 3 items (0 due, 3 new; 17 more new today): ended"
    assert app.list_sessions(study) == []
    assert [r.item_id for r in study.store.iter_reviews(study.scope)] == ["fc-1"]
    [record] = study.sessions()
    assert record.ended_at is not None and "no longer holds" in record.meta["abandoned"]
