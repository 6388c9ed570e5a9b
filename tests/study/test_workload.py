from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

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


# -- the forecast on plain numbers against the scheduler, card by card ----------


def _forecast_by_the_scheduler(cards, *, unseen, settings, now, introduced_today=0):
    """The forecast worked out plainly: every simulated review through ``review_card``.

    This is how the forecast counted before it ran on plain numbers (issue 30);
    the fast one must give the same days, reviews and new items.
    """
    from sysdrill.study.clock import day_start
    from sysdrill.study.deadline import FINAL_PASS_DAYS, final_pass_day
    from sysdrill.study.workload import _pass_shares

    deadline = settings.deadline
    settings = settings.with_changes(fuzz=False)
    pass_start = day_start(deadline - timedelta(days=FINAL_PASS_DAYS))
    study_hour = timedelta(hours=9)
    counts: dict = {}

    def simulate(card, start, pass_day, into):
        moment = max(start, card.due or start)
        for _ in range(200):
            looked = card.last_review is not None and card.last_review >= pass_start
            if not looked and card.last_review is not None and moment.date() > pass_day:
                moment = max(start, day_start(pass_day) + study_hour)
            if moment.date() >= deadline:
                return
            into[moment.date()] = into.get(moment.date(), 0) + 1
            card = review_card(card, Rating.GOOD, now=moment, settings=settings)
            moment = card.due

    for card in cards:
        if card.state is not CardState.NEW:
            day = final_pass_day(card.item_id, deadline=deadline, today=now.date())
            simulate(card, now, day, counts)
    new_counts: dict = {}
    remaining, day = unseen, now.date()
    while day < deadline and remaining > 0 and settings.new_per_day > 0:
        spent = introduced_today if day == now.date() else 0
        batch = min(max(0, settings.new_per_day - spent), remaining)
        if batch:
            new_counts[day] = batch
            start = now if day == now.date() else day_start(day) + study_hour
            for pass_day, share in _pass_shares(batch, deadline=deadline, today=now.date()):
                one: dict = {}
                simulate(new_card("new"), start, pass_day, one)
                for when, count in one.items():
                    counts[when] = counts.get(when, 0) + count * share
            remaining -= batch
        day += timedelta(days=1)
    days = [now.date() + timedelta(days=n) for n in range((deadline - now.date()).days)]
    return [(d, counts.get(d, 0), new_counts.get(d, 0)) for d in days]


def _history(item_id: str, ratings: list[int], *, start: datetime, gaps_hours: list[int]):
    """A card after ``ratings`` (1-4) given ``gaps_hours`` apart from ``start``."""
    settings = StudySettings(fuzz=False)
    card, moment = new_card(item_id), start
    for rating, gap in zip(ratings, gaps_hours, strict=False):
        card = review_card(card, Rating(rating), now=moment, settings=settings)
        moment += timedelta(hours=gap)
    return card


histories = st.lists(
    st.tuples(
        st.lists(st.integers(1, 4), min_size=1, max_size=6),
        st.lists(st.integers(0, 24 * 60), min_size=6, max_size=6),
        st.integers(0, 24 * 90),
    ),
    min_size=1,
    max_size=12,
)


@hypothesis_settings(max_examples=60, deadline=None)
@given(
    histories=histories,
    deadline_days=st.integers(1, 40),
    hour=st.integers(0, 23),
    retention=st.sampled_from([0.8, 0.9, 0.95, 0.97]),
    new_per_day=st.integers(0, 30),
    unseen=st.integers(0, 50),
    introduced_today=st.integers(0, 5),
)
def test_workload_on_plain_numbers_counts_what_the_scheduler_counts_card_by_card(
    histories, deadline_days, hour, retention, new_per_day, unseen, introduced_today
):
    now = T0.replace(hour=hour)
    cards = [
        _history(f"item-{n}", ratings, start=now - timedelta(hours=back), gaps_hours=gaps)
        for n, (ratings, gaps, back) in enumerate(histories)
    ]
    # Only reviews before now: a history may run past it, which review_card refuses.
    cards = [card for card in cards if card.last_review is None or card.last_review <= now]
    chosen = StudySettings(
        fuzz=False,
        desired_retention=retention,
        new_per_day=new_per_day,
        deadline=now.date() + timedelta(days=deadline_days),
    )
    fast = expected_workload(
        cards, unseen=unseen, settings=chosen, now=now, introduced_today=introduced_today
    )
    assert [(w.day, w.reviews, w.new_items) for w in fast] == _forecast_by_the_scheduler(
        cards, unseen=unseen, settings=chosen, now=now, introduced_today=introduced_today
    )


def test_workload_with_kept_pass_marks_is_the_workload_without_them():
    from sysdrill.study.deadline import final_pass_marks

    settings = with_deadline(12)
    cards = [_far(f"item-{n}") for n in range(200)]
    marks = {card.item_id: final_pass_marks(card.item_id) for card in cards}
    plain = expected_workload(cards, unseen=3, settings=settings, now=T0)
    assert expected_workload(cards, unseen=3, settings=settings, now=T0, pass_marks=marks) == plain
    assert sum(w.reviews for w in plain) >= 200


@hypothesis_settings(max_examples=40, deadline=None)
@given(
    days_left=st.integers(1, 60),
    retention=st.sampled_from([0.7, 0.85, 0.9, 0.95, 0.97]),
    wanted=st.integers(0, 80),
)
def test_least_stability_is_exactly_where_the_interval_reaches_the_days(
    days_left, retention, wanted
):
    import math

    from sysdrill.study.scheduler import scheduler_for
    from sysdrill.study.workload import _GoodReview, _least_stability

    chosen = StudySettings(fuzz=False, desired_retention=retention, deadline=T0.date())
    step = _GoodReview(scheduler_for(chosen, now=T0 - timedelta(days=days_left)))
    least = _least_stability(step, wanted)
    if least == -math.inf:
        assert wanted <= 1
    elif least == math.inf:
        assert step.interval(1e300) < wanted
    else:
        assert step.interval(least) >= wanted
        assert step.interval(math.nextafter(least, 0.0)) < wanted


@pytest.mark.parametrize("deadline_days", [3, 9, 16, 30])
def test_workload_on_plain_numbers_counts_cards_on_every_side_of_its_interval_bounds(
    deadline_days,
):
    # Stabilities a twentieth of a day apart put cards on each side of every whole
    # interval; due dates from overdue to after the deadline, and last reviews before
    # and inside the final pass, reach each shortcut of the forecast and the loop.
    from dataclasses import replace

    base = review_card(
        new_card("x"), Rating.GOOD, now=T0 - timedelta(days=40), settings=StudySettings(fuzz=False)
    )
    cards = []
    for n in range(1200):
        cards.append(
            replace(
                base,
                item_id=f"item-{n}",
                state=CardState.REVIEW,
                step=None,
                stability_days=0.3 + n / 20,
                difficulty=1 + (n % 9),
                due=T0 + timedelta(days=(n % 47) - 12, hours=n % 24),
                last_review=T0 - timedelta(days=1 + n % 30, hours=n % 7),
            )
        )
    chosen = with_deadline(deadline_days, new_per_day=0)
    fast = expected_workload(cards, unseen=0, settings=chosen, now=T0)
    assert [(w.day, w.reviews, w.new_items) for w in fast] == _forecast_by_the_scheduler(
        cards, unseen=0, settings=chosen, now=T0
    )
