from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from sysdrill.study.deadline import (
    FINAL_PASS_DAYS,
    effective_maximum_interval_days,
    effective_retention,
    final_pass_day,
    final_pass_start,
)
from sysdrill.study.ratings import Rating
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.settings import StudySettings

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def with_deadline(days: int, **changes) -> StudySettings:
    return StudySettings(fuzz=False, deadline=T0.date() + timedelta(days=days), **changes)


@pytest.mark.parametrize(
    ("days", "retention"),
    [(60, 0.90), (28, 0.90), (14, 0.9333), (7, 0.95), (2, 0.95)],
)
def test_retention_ramps_up_in_the_last_four_weeks(days, retention):
    assert effective_retention(with_deadline(days), now=T0) == pytest.approx(retention)


def test_higher_retention_setting_is_never_lowered():
    assert effective_retention(with_deadline(3, desired_retention=0.97), now=T0) == 0.97


def test_passed_deadline_restores_normal_scheduling():
    settings = with_deadline(-1)
    assert effective_retention(settings, now=T0) == 0.90
    assert effective_maximum_interval_days(settings, now=T0) == 36500
    assert final_pass_start(settings, now=T0) is None


def test_interval_cap_ends_before_the_deadline():
    settings = with_deadline(20)
    assert effective_maximum_interval_days(settings, now=T0) == 19
    graduated = review_card(new_card("q"), Rating.EASY, now=T0, settings=settings)
    assert graduated.due is not None
    assert graduated.due.date() < date(2026, 11, 22)


def test_a_review_in_the_final_pass_is_the_last_look_and_is_not_capped():
    # Capping here would bring every item back on the eve of the interview.
    assert effective_maximum_interval_days(with_deadline(FINAL_PASS_DAYS), now=T0) == 36500
    assert effective_maximum_interval_days(with_deadline(1), now=T0) == 36500
    assert effective_maximum_interval_days(with_deadline(FINAL_PASS_DAYS + 1), now=T0) == 7


def test_final_pass_spreads_items_evenly_over_its_days():
    deadline = T0.date() + timedelta(days=30)
    days = [final_pass_day(f"item-{n}", deadline=deadline, today=T0.date()) for n in range(700)]
    window = [deadline - timedelta(days=d) for d in range(FINAL_PASS_DAYS, 0, -1)]
    assert set(days) == set(window)
    per_day = [days.count(day) for day in window]
    assert max(per_day) < 2 * min(per_day), per_day


def test_final_pass_day_never_falls_before_today_and_the_eve_takes_the_rest():
    deadline = T0.date() + timedelta(days=3)
    days = {final_pass_day(f"i{n}", deadline=deadline, today=T0.date()) for n in range(100)}
    assert days == {T0.date() + timedelta(days=d) for d in range(3)}
    eve = deadline - timedelta(days=1)
    assert final_pass_day("any", deadline=deadline, today=eve) == eve


def test_final_pass_marks_give_the_final_pass_day_from_any_day_before_the_deadline():
    from sysdrill.study.deadline import final_pass_day_of_marks, final_pass_marks

    deadline = T0.date() + timedelta(days=12)
    for n in range(300):
        item_id = f"item-{n}"
        marks = final_pass_marks(item_id)
        for back in range(1, 13):
            today = deadline - timedelta(days=back)
            assert final_pass_day_of_marks(marks, deadline=deadline, today=today) == (
                final_pass_day(item_id, deadline=deadline, today=today)
            )
