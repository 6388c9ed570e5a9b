"""The session engine: grading, recording, phases, countdown, chains and repeats."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sysdrill.errors import SchedulingError, UsageError
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.state_machine import (
    AnswerMode,
    Outcome,
    Phase,
    Session,
    SessionKind,
    SessionLineup,
    answer_mode,
)


def _by_id(vault, *ids):
    items = {item.id: item for item in vault.items}
    return tuple(items[i] for i in ids)


def _plan(vault, *ids, **options):
    return SessionLineup(
        kind=options.pop("kind", SessionKind.PRACTICE),
        title="test",
        items=_by_id(vault, *ids),
        **options,
    )


def test_answer_mode_follows_the_item(vault):
    modes = {item.id: answer_mode(item) for item in vault.items}
    assert modes["c-l2-mc"] is AnswerMode.MULTIPLE_CHOICE
    assert modes["c-l3-num"] is AnswerMode.NUMERIC
    assert modes["fc-1"] is AnswerMode.FLASHCARD
    assert modes["c-l4-diag"] is AnswerMode.FREE_TEXT
    assert modes["quiz-1"] is AnswerMode.FREE_TEXT


def test_right_option_is_recorded_good_and_wrong_option_again(vault, clock, recorder):
    session = Session(_plan(vault, "c-l2-mc", "c-l2-mc"), recorder=recorder, clock=clock)
    right = session.answer("c")
    wrong = session.answer("a")
    assert right.correct is True and right.message == "Correct."
    assert wrong.correct is False
    assert wrong.message == "Wrong: the answer is (c) Adam moments and the master copy."
    ratings = [(r.rating, r.graded_by, r.answer) for r, _ in recorder.recorded]
    assert ratings == [
        (Rating.GOOD, GradedBy.MULTIPLE_CHOICE, "c"),
        (Rating.AGAIN, GradedBy.MULTIPLE_CHOICE, "a"),
    ]
    assert session.phase is Phase.DONE


def test_unknown_option_letter_is_refused_and_nothing_recorded(vault, clock, recorder):
    session = Session(_plan(vault, "c-l2-mc"), recorder=recorder, clock=clock)
    with pytest.raises(UsageError, match="Answer with a letter a-d"):
        session.answer("f")
    assert recorder.recorded == []
    assert session.phase is Phase.ANSWER


def test_free_text_reveals_then_takes_a_self_rating(vault, clock, recorder):
    session = Session(_plan(vault, "c-l4-diag"), recorder=recorder, clock=clock)
    feedback = session.answer("recompute costs a forward pass")
    assert feedback.correct is None
    assert session.phase is Phase.RATE
    result = session.rate(Rating.HARD)
    assert (result.rating, result.graded_by) == (Rating.HARD, GradedBy.SELF)
    assert result.answer == "recompute costs a forward pass"
    assert result.next_due == result.reviewed_at + timedelta(days=1)
    assert session.phase is Phase.DONE


def test_flashcard_starts_at_rating_and_takes_one_once_its_back_is_shown(vault, clock, recorder):
    session = Session(_plan(vault, "fc-1"), recorder=recorder, clock=clock)
    assert session.phase is Phase.RATE and not session.revealed
    assert session.rating_choices() == ()
    with pytest.raises(UsageError, match="Show the answer first"):
        session.rate(Rating.EASY)
    assert recorder.recorded == []
    session.reveal()
    assert [c.caption for c in session.rating_choices()] == [
        "1 · Again",
        "2 · Hard",
        "3 · Good",
        "4 · Easy",
    ]
    session.rate(Rating.EASY)
    assert [r.rating for r, _ in recorder.recorded] == [Rating.EASY]


def test_duration_runs_from_showing_to_grading(vault, clock, recorder):
    session = Session(_plan(vault, "fc-1", "fc-2"), recorder=recorder, clock=clock)
    clock.advance(timedelta(seconds=7, milliseconds=250))
    session.reveal()
    session.rate(Rating.GOOD)
    clock.advance(timedelta(seconds=3))
    session.reveal()
    session.rate(Rating.GOOD)
    assert [r.duration_ms for r, _ in recorder.recorded] == [7250, 3000]


def test_naive_clock_is_refused(vault, recorder):
    with pytest.raises(SchedulingError, match="naive"):
        Session(_plan(vault, "fc-1"), recorder=recorder, clock=lambda: datetime(2026, 1, 1))


def test_gauntlet_rubric_score_sets_rating_and_gauntlet_grading(vault, clock, recorder):
    plan = _plan(
        vault,
        "c-l4-diag",
        "c-l2-mc",
        kind=SessionKind.GAUNTLET,
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
        time_limit=timedelta(minutes=10),
    )
    session = Session(plan, recorder=recorder, clock=clock)
    session.answer("profile the backward pass")
    assert session.phase is Phase.RUBRIC
    assert session.rubric is not None and len(session.rubric.points) == 5
    result = session.score_rubric({0, 1, 2, 3})
    assert (result.rubric_covered, result.rubric_total, result.score) == (4, 5, 0.8)
    session.answer("c")
    graded = [(r.rating, r.graded_by) for r, _ in recorder.recorded]
    assert graded == [(Rating.GOOD, GradedBy.GAUNTLET), (Rating.GOOD, GradedBy.GAUNTLET)]


def test_countdown_ends_the_gauntlet_and_leaves_the_rest_unrecorded(vault, clock, recorder):
    plan = _plan(
        vault,
        "c-l2-mc",
        "c-l4-diag",
        "c-l5-opt",
        kind=SessionKind.GAUNTLET,
        rubric_scoring=True,
        time_limit=timedelta(minutes=10),
    )
    session = Session(plan, recorder=recorder, clock=clock)
    clock.advance(timedelta(minutes=4))
    session.answer("c")
    assert session.remaining() == timedelta(minutes=6)
    clock.advance(timedelta(minutes=6, seconds=1))
    assert session.tick() is True
    assert session.phase is Phase.DONE
    assert session.remaining() == timedelta(0)
    outcomes = [r.outcome for r in session.results]
    assert outcomes == [Outcome.ANSWERED, Outcome.OUT_OF_TIME, Outcome.NOT_REACHED]
    assert len(recorder.recorded) == 1


def test_answer_after_the_countdown_is_not_graded(vault, clock, recorder):
    plan = _plan(vault, "c-l2-mc", kind=SessionKind.GAUNTLET, time_limit=timedelta(minutes=10))
    session = Session(plan, recorder=recorder, clock=clock)
    clock.advance(timedelta(minutes=11))
    feedback = session.answer("c")
    assert feedback.timed_out and feedback.message == "Time is up."
    assert recorder.recorded == []


def test_scoring_a_rubric_after_time_is_up_still_counts(vault, clock, recorder):
    plan = _plan(
        vault,
        "c-l4-diag",
        kind=SessionKind.GAUNTLET,
        rubric_scoring=True,
        time_limit=timedelta(minutes=10),
    )
    session = Session(plan, recorder=recorder, clock=clock)
    session.answer("an answer given in time")
    clock.advance(timedelta(minutes=20))
    assert session.tick() is False
    session.score_rubric({0})
    assert len(recorder.recorded) == 1


def test_chain_member_offers_the_next_item_and_taking_it_moves_it_up(vault, clock, recorder):
    chains = ChainIndex(vault.chains, vault.items)
    plan = _plan(vault, "c-l1-hbm", "c-l4-diag", "c-l3-num", offer_chain=True)
    session = Session(plan, recorder=recorder, clock=clock, chains=chains)
    session.answer("80 GB")
    session.rate(Rating.GOOD)
    assert session.phase is Phase.CHAIN
    assert session.chain_offer is not None and session.chain_offer.item.id == "c-l2-mc"
    session.follow_chain(True)
    assert session.current.id == "c-l2-mc"
    session.answer("c")
    assert session.phase is Phase.CHAIN  # c-l3-num comes next in the chain
    session.follow_chain(True)
    assert [item.id for item in session.queue] == ["c-l1-hbm", "c-l2-mc", "c-l3-num", "c-l4-diag"]


def test_declining_the_chain_keeps_the_order(vault, clock, recorder):
    chains = ChainIndex(vault.chains, vault.items)
    plan = _plan(vault, "c-l1-hbm", "c-l4-diag", offer_chain=True)
    session = Session(plan, recorder=recorder, clock=clock, chains=chains)
    session.answer("-")
    session.rate(Rating.AGAIN)
    session.follow_chain(False)
    assert session.current.id == "c-l4-diag"
    assert recorder.recorded[0][0].answer is None


def test_no_offer_when_the_next_chain_item_comes_next_anyway(vault, clock, recorder):
    chains = ChainIndex(vault.chains, vault.items)
    plan = _plan(vault, "c-l1-hbm", "c-l2-mc", offer_chain=True)
    session = Session(plan, recorder=recorder, clock=clock, chains=chains)
    session.answer("-")
    session.rate(Rating.GOOD)
    assert session.phase is Phase.ANSWER and session.current.id == "c-l2-mc"


def test_again_items_come_back_once_at_the_end(vault, clock, recorder):
    plan = _plan(vault, "fc-1", "fc-2", repeat_again=True)
    session = Session(plan, recorder=recorder, clock=clock)
    for rating in (Rating.AGAIN, Rating.GOOD):
        session.reveal()
        session.rate(rating)
    assert session.current.id == "fc-1"
    session.reveal()
    session.rate(Rating.AGAIN)
    assert session.phase is Phase.DONE
    assert [r.item.id for r, _ in recorder.recorded] == ["fc-1", "fc-2", "fc-1"]


def test_skip_records_nothing_and_quit_marks_the_rest_not_reached(vault, clock, recorder):
    session = Session(_plan(vault, "fc-1", "fc-2", "fc-3"), recorder=recorder, clock=clock)
    session.skip()
    session.quit()
    assert [r.outcome for r in session.results] == [
        Outcome.SKIPPED,
        Outcome.NOT_REACHED,
        Outcome.NOT_REACHED,
    ]
    assert recorder.recorded == []
    assert session.current is None


def test_moves_out_of_turn_are_refused(vault, clock, recorder):
    session = Session(_plan(vault, "c-l2-mc"), recorder=recorder, clock=clock)
    with pytest.raises(UsageError, match="waits for answer"):
        session.rate(Rating.GOOD)
    with pytest.raises(UsageError):
        session.follow_chain(True)


def test_empty_plan_is_done_at_once(vault, clock, recorder):
    session = Session(_plan(vault), recorder=recorder, clock=clock)
    assert session.phase is Phase.DONE and session.current is None


class _Grade:
    def __init__(self, correct, message):
        self.correct, self.given_value, self.message = correct, None, message


def test_numeric_answers_go_through_the_grader_with_the_item_expectation(vault, clock, recorder):
    calls = []

    def grader(given, *, expected_value, expected_unit, tolerance):
        calls.append((given, expected_value, expected_unit, tolerance))
        return _Grade(given == "40 ms", "checked")

    plan = _plan(vault, "c-l3-num", "c-l3-num")
    session = Session(plan, recorder=recorder, clock=clock, grader=grader)
    assert session.answer("40 ms").correct is True
    wrong = session.answer("4 ms")
    assert wrong.correct is False
    assert wrong.message == "checked Expected 40 ms (within 5 % of it: 38 to 42 ms)."
    assert calls[0] == ("40 ms", 40.0, "ms", 0.05)
    graded = [(r.rating, r.graded_by, r.answer) for r, _ in recorder.recorded]
    assert graded == [
        (Rating.GOOD, GradedBy.NUMERIC, "40 ms"),
        (Rating.AGAIN, GradedBy.NUMERIC, "4 ms"),
    ]
