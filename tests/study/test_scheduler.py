from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import fsrs
import pytest

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardState
from sysdrill.study.ratings import Rating
from sysdrill.study.scheduler import new_card, review_card, scheduler_for, to_fsrs_card
from sysdrill.study.settings import StudySettings

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
STEADY = StudySettings(fuzz=False)


def test_good_on_new_item_moves_to_second_learning_step():
    card = review_card(new_card("q"), Rating.GOOD, now=T0, settings=STEADY)
    assert card.state is CardState.LEARNING
    assert card.step == 1
    assert card.due == T0 + timedelta(minutes=10)
    assert (card.reps, card.lapses, card.never_seen) == (1, 0, False)


def test_again_on_new_item_repeats_first_step():
    card = review_card(new_card("q"), Rating.AGAIN, now=T0, settings=STEADY)
    assert (card.state, card.step, card.due) == (CardState.LEARNING, 0, T0 + timedelta(minutes=1))


def test_easy_on_new_item_graduates_to_days():
    card = review_card(new_card("q"), Rating.EASY, now=T0, settings=STEADY)
    assert card.state is CardState.REVIEW
    assert card.due is not None and card.due - T0 >= timedelta(days=1)


def test_scheduling_matches_the_fsrs_package():
    ours = review_card(new_card("q"), Rating.EASY, now=T0, settings=STEADY)
    theirs, _ = fsrs.Scheduler(enable_fuzzing=False).review_card(
        fsrs.Card(card_id=1, due=T0), fsrs.Rating.Easy, review_datetime=T0
    )
    assert (ours.stability_days, ours.difficulty, ours.due) == (
        theirs.stability,
        theirs.difficulty,
        theirs.due,
    )


def test_again_on_review_item_counts_a_lapse_and_relearns():
    graduated = review_card(new_card("q"), Rating.EASY, now=T0, settings=STEADY)
    assert graduated.due is not None
    lapsed = review_card(graduated, Rating.AGAIN, now=graduated.due, settings=STEADY)
    assert lapsed.state is CardState.RELEARNING
    assert lapsed.lapses == 1


def test_review_does_not_mutate_its_input():
    before = review_card(new_card("q"), Rating.EASY, now=T0, settings=STEADY)
    snapshot = replace(before)
    review_card(before, Rating.HARD, now=T0 + timedelta(days=5), settings=STEADY)
    assert before == snapshot


def test_maximum_interval_caps_the_interval():
    capped = StudySettings(fuzz=False, maximum_interval_days=2)
    card = review_card(new_card("q"), Rating.EASY, now=T0, settings=capped)
    assert card.due == T0 + timedelta(days=2)


def test_empty_learning_steps_graduate_at_once():
    card = review_card(
        new_card("q"), Rating.GOOD, now=T0, settings=StudySettings(learning_steps_minutes=())
    )
    assert card.state is CardState.REVIEW


def test_naive_time_is_rejected():
    with pytest.raises(SchedulingError, match="must be a timezone-aware UTC datetime"):
        review_card(new_card("q"), Rating.GOOD, now=datetime(2026, 1, 1), settings=STEADY)


def test_non_utc_time_is_rejected():
    tokyo = datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=9)))
    with pytest.raises(SchedulingError, match="must be in UTC"):
        review_card(new_card("q"), Rating.GOOD, now=tokyo, settings=STEADY)


def test_review_before_last_review_is_rejected():
    card = review_card(new_card("q"), Rating.GOOD, now=T0, settings=STEADY)
    with pytest.raises(SchedulingError, match="earlier than its last review"):
        review_card(card, Rating.GOOD, now=T0 - timedelta(hours=1), settings=STEADY)


def test_out_of_bounds_parameters_raise_scheduling_error():
    bad = StudySettings(fsrs_parameters=tuple([100.0] * 21))
    with pytest.raises(SchedulingError, match="settings set fsrs_parameters none"):
        scheduler_for(bad, now=T0)


def test_new_card_converts_to_a_fresh_learning_fsrs_card():
    converted = to_fsrs_card(new_card("q"), now=T0)
    assert (converted.state, converted.step, converted.stability) == (fsrs.State.Learning, 0, None)
