from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from sysdrill.study.deadline import (
    deadline_eve,
    effective_maximum_interval_days,
    effective_retention,
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
    assert deadline_eve(settings, now=T0) is None


def test_interval_cap_ends_before_the_deadline():
    settings = with_deadline(10)
    assert effective_maximum_interval_days(settings, now=T0) == 9
    graduated = review_card(new_card("q"), Rating.EASY, now=T0, settings=settings)
    for _ in range(5):
        assert graduated.due is not None
        assert graduated.due.date() < date(2026, 11, 12)
        if graduated.due.date() >= date(2026, 11, 11):
            break
        graduated = review_card(graduated, Rating.EASY, now=graduated.due, settings=settings)


def test_interview_tomorrow_still_allows_one_day_interval():
    assert effective_maximum_interval_days(with_deadline(1), now=T0) == 1
