from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardState
from sysdrill.study.ratings import Rating
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.settings import StudySettings
from sysdrill.study.workload import expected_workload

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def with_deadline(days: int, **changes) -> StudySettings:
    return StudySettings(fuzz=False, deadline=T0.date() + timedelta(days=days), **changes)


def test_workload_covers_each_day_until_the_deadline():
    settings = with_deadline(5, new_per_day=10)
    graduated = review_card(
        new_card("old"), Rating.GOOD, now=T0 - timedelta(days=3), settings=settings
    )
    workload = expected_workload([graduated], unseen=15, settings=settings, now=T0)
    assert [w.day for w in workload] == [T0.date() + timedelta(days=i) for i in range(5)]
    assert [w.new_items for w in workload] == [10, 5, 0, 0, 0]
    # Each new item passes two learning steps on its first day (Good, Good);
    # the overdue learning item comes up once today.
    assert workload[0].reviews == 10 * 2 + 1
    assert sum(w.reviews for w in workload) > 15


def _far(item_id: str):
    """A card last reviewed ten days ago and due long after the deadline."""
    card = review_card(
        new_card(item_id),
        Rating.EASY,
        now=T0 - timedelta(days=10),
        settings=StudySettings(fuzz=False),
    )
    return card.__class__(
        **{**{f: getattr(card, f) for f in card.__slots__}, "due": T0 + timedelta(days=30)}
    )


def test_workload_brings_far_items_back_once_before_the_deadline():
    settings = with_deadline(4)
    far = _far("far")
    workload = expected_workload([far], unseen=0, settings=settings, now=T0)
    assert sum(w.reviews for w in workload) == 1
    assert far.state is CardState.REVIEW
    # Reviewed since the final pass began (a week before the deadline): done.
    looked = far.__class__(
        **{**{f: getattr(far, f) for f in far.__slots__}, "last_review": T0 - timedelta(days=1)}
    )
    assert (
        sum(w.reviews for w in expected_workload([looked], unseen=0, settings=settings, now=T0))
        == 0
    )


def test_workload_spreads_the_final_pass_instead_of_piling_it_on_the_eve():
    settings = with_deadline(10)
    cards = [_far(f"item-{n}") for n in range(350)]
    reviews = [w.reviews for w in expected_workload(cards, unseen=0, settings=settings, now=T0)]
    assert sum(reviews) == 350
    assert reviews[:3] == [0, 0, 0]  # before the final pass nothing is due
    window = reviews[3:]
    assert len(window) == 7 and min(window) > 0
    assert max(window) < 2 * min(window), window


def test_new_items_are_spread_over_the_final_pass_too():
    settings = with_deadline(10, new_per_day=70)
    workload = expected_workload([], unseen=70, settings=settings, now=T0)
    assert workload[-1].reviews < 70


def test_workload_without_deadline_names_the_fix():
    with pytest.raises(SchedulingError, match="settings set deadline YYYY-MM-DD"):
        expected_workload([], unseen=0, settings=StudySettings(), now=T0)


def test_new_items_already_introduced_today_spend_todays_allowance():
    settings = with_deadline(5, new_per_day=10)
    workload = expected_workload([], unseen=25, settings=settings, now=T0, introduced_today=7)
    assert [w.new_items for w in workload] == [3, 10, 10, 2, 0]
    spent = expected_workload([], unseen=5, settings=settings, now=T0, introduced_today=12)
    assert [w.new_items for w in spent] == [0, 5, 0, 0, 0]
