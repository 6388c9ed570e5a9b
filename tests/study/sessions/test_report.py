"""Session reports: quiz scores, gauntlet scores over every question, time used."""

from __future__ import annotations

from datetime import timedelta

from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.sessions.report import build_report, format_duration, report_lines
from sysdrill.study.sessions.state_machine import Session, SessionKind, SessionLineup


def _items(vault, *ids):
    by_id = {item.id: item for item in vault.items}
    return tuple(by_id[i] for i in ids)


def test_quiz_score_counts_right_answers_of_those_answered(vault, clock, recorder):
    plan = SessionLineup(SessionKind.QUIZ, "Quiz: q", _items(vault, "c-l2-mc", "quiz-1", "quiz-2"))
    session = Session(plan, recorder=recorder, clock=clock)
    clock.advance(timedelta(seconds=65))
    session.answer("c")
    session.answer("extra compute")
    session.rate(Rating.AGAIN)
    session.skip()
    report = build_report(session)
    assert (report.answered, report.passed, report.skipped, report.score_percent) == (2, 1, 1, 50)
    assert report_lines(report) == [
        "Quiz: q: finished",
        "Score: 1/2 passed (50%): 1 graded right, 0 graded wrong, 1 self-rated",
        "Time: 1:05",
        "Items: 2 answered, 1 skipped",
        " 1. Where the bytes go: graded right, rated Good",
        " 2. Name the two costs of activation checkpointing.: self-rated Again",
        " 3. What does (P-1)/(M+P-1) measure?: skipped",
    ]
    assert report.to_summary()["score_percent"] == 50


def test_gauntlet_score_spreads_over_all_questions_with_zones(vault, clock, recorder):
    plan = SessionLineup(
        SessionKind.GAUNTLET,
        "G",
        _items(vault, "c-l1-hbm", "c-l2-mc", "c-l4-diag"),
        time_limit=timedelta(minutes=10),
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
        warmup_ids=frozenset({"c-l1-hbm"}),
    )
    session = Session(plan, recorder=recorder, clock=clock)
    session.answer("80 GB")
    session.score_rubric({0})  # 1 of 2 points
    session.answer("c")
    clock.advance(timedelta(minutes=12))
    session.tick()
    report = build_report(session)
    assert report.score == (0.5 + 1.0 + 0.0) / 3
    lines = report_lines(report)
    assert lines[1] == "Score: 50% of 3 questions"
    assert lines[2] == "Time: 10:00 of 10:00"
    assert lines[4] == " 1. HBM capacity (warm-up): 1/2 key points, rated Hard"
    assert lines[6] == " 3. Slow step: out of time"
    assert lines[-1] == "By zone: recall 0.5/1, fluency 1/1, diagnosis 0/1"


def test_nothing_answered_has_no_score(vault, clock, recorder):
    session = Session(
        SessionLineup(SessionKind.PRACTICE, "P", _items(vault, "fc-1")),
        recorder=recorder,
        clock=clock,
    )
    session.quit()
    report = build_report(session)
    assert report.score is None
    # Items never reached are counted, not listed (a gauntlet lists them).
    assert report_lines(report) == [
        "P: finished",
        "Score: nothing answered",
        "Time: 0:00",
        "Items: 0 answered, 1 not reached",
    ]


def test_format_duration():
    assert format_duration(timedelta(seconds=59.9)) == "0:59"
    assert format_duration(timedelta(minutes=35)) == "35:00"
    assert format_duration(timedelta(hours=1, seconds=5)) == "1:00:05"
    assert format_duration(timedelta(seconds=-3)) == "0:00"


def test_recorded_line_names_the_rating_and_the_next_review(vault):
    from datetime import UTC, datetime

    from sysdrill.study.sessions.report import recorded_line
    from sysdrill.study.sessions.state_machine import ItemResult, Outcome

    (item,) = _items(vault, "fc-1")
    reviewed = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
    rated = ItemResult(
        item,
        Outcome.ANSWERED,
        rating=Rating.GOOD,
        reviewed_at=reviewed,
        next_due=reviewed + timedelta(days=3),
    )
    assert recorded_line(rated) == "Recorded: Good; next review in 3 days."
    assert recorded_line(ItemResult(item, Outcome.ANSWERED, rating=Rating.HARD)) == (
        "Recorded: Hard."
    )
    assert recorded_line(ItemResult(item, Outcome.SKIPPED)) is None
