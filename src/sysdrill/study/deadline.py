"""Deadline mode: study towards an interview date.

With ``deadline`` set and the date still ahead (UTC days):

* **Interval cap.** The maximum interval becomes the days left minus one, so a
  review scheduled today falls due on the eve of the interview at the latest.
  Items scheduled before the deadline was set are offered on the eve too
  (:func:`deadline_eve`).
* **Retention ramp.** The desired retention rises from the learner's setting
  to ``max(setting, 0.95)`` (never above 0.97): unchanged 28 days or more before the
  date, raised linearly over the next three weeks, and held at the target in
  the last 7 days.
* **Workload.** :func:`expected_workload` simulates every card (and the new
  items the daily limit lets in) day by day until the date, assuming each
  review passes with Good, and counts reviews per day. Failed reviews add more.

Once the date has come, scheduling is normal again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sysdrill.errors import SchedulingError
from sysdrill.storage.records import CardRecord, CardState
from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.settings import MAX_DESIRED_RETENTION, StudySettings

__all__ = [
    "DEADLINE_RETENTION",
    "RAMP_END_DAYS",
    "RAMP_START_DAYS",
    "DayWorkload",
    "days_left",
    "deadline_eve",
    "effective_maximum_interval_days",
    "effective_retention",
    "expected_workload",
]

DEADLINE_RETENTION = 0.95
"""Desired retention reached before the deadline (unless the setting is higher)."""
RAMP_START_DAYS = 28
"""Days before the deadline at which the retention ramp starts."""
RAMP_END_DAYS = 7
"""Days before the deadline from which the ramp's target holds."""

_MAX_SIMULATED_REVIEWS = 200
"""Guard against a pathological loop per card in the workload simulation."""


def days_left(settings: StudySettings, *, now: datetime) -> int | None:
    """Whole UTC days from today to the deadline; None without a deadline still ahead."""
    if settings.deadline is None:
        return None
    left = (settings.deadline - require_utc(now).date()).days
    return left if left > 0 else None


def effective_retention(settings: StudySettings, *, now: datetime) -> float:
    """Desired retention in force at ``now`` (the setting, ramped up near a deadline)."""
    left = days_left(settings, now=now)
    base = settings.desired_retention
    if left is None or left >= RAMP_START_DAYS:
        return base
    target = min(max(base, DEADLINE_RETENTION), MAX_DESIRED_RETENTION)
    if left <= RAMP_END_DAYS:
        return target
    fraction = (RAMP_START_DAYS - left) / (RAMP_START_DAYS - RAMP_END_DAYS)
    return round(base + (target - base) * fraction, 4)


def effective_maximum_interval_days(settings: StudySettings, *, now: datetime) -> int:
    """Maximum interval in force at ``now``, in days (capped before a deadline)."""
    left = days_left(settings, now=now)
    if left is None:
        return settings.maximum_interval_days
    return max(1, min(settings.maximum_interval_days, left - 1))


def deadline_eve(settings: StudySettings, *, now: datetime) -> datetime | None:
    """Midnight UTC starting the day before the deadline, while the deadline is ahead."""
    if days_left(settings, now=now) is None:
        return None
    assert settings.deadline is not None
    return day_start(settings.deadline - timedelta(days=1))


@dataclass(frozen=True, slots=True)
class DayWorkload:
    """Expected study load of one UTC day."""

    day: date
    reviews: int
    """Reviews expected (including repeats within learning steps)."""
    new_items: int
    """New items introduced that day (within ``new_per_day``)."""


def _simulate(
    card: CardRecord,
    *,
    start: datetime,
    settings: StudySettings,
    deadline: date,
    counts: dict[date, int],
) -> None:
    from sysdrill.study.ratings import Rating
    from sysdrill.study.scheduler import review_card

    eve = deadline - timedelta(days=1)
    moment = max(start, card.due or start)
    current = card
    for _ in range(_MAX_SIMULATED_REVIEWS):
        if moment.date() >= deadline:
            reviewed_on = current.last_review.date() if current.last_review else None
            if reviewed_on is not None and reviewed_on < eve and start.date() <= eve:
                counts[eve] = counts.get(eve, 0) + 1
            return
        counts[moment.date()] = counts.get(moment.date(), 0) + 1
        current = review_card(current, Rating.GOOD, now=moment, settings=settings)
        assert current.due is not None
        moment = current.due


def expected_workload(
    cards: Sequence[CardRecord], *, unseen: int, settings: StudySettings, now: datetime
) -> list[DayWorkload]:
    """Expected reviews and new items per UTC day from today to the eve of the deadline.

    Args:
        cards: The learner's cards in scope.
        unseen: Items in scope never studied, introduced at ``new_per_day``.
        settings: Settings with a deadline.
        now: Current time (UTC); today's overdue items count today.

    Returns:
        One entry per day from today to the day before the deadline.

    Raises:
        SchedulingError: If no deadline is set or it is not after today.
    """
    moment = require_utc(now)
    if days_left(settings, now=moment) is None:
        raise SchedulingError(
            "No deadline ahead. Set one with `sysdrill settings set deadline YYYY-MM-DD`."
        )
    assert settings.deadline is not None
    deadline = settings.deadline
    counts: dict[date, int] = {}
    for card in cards:
        if card.state is not CardState.NEW:
            _simulate(card, start=moment, settings=settings, deadline=deadline, counts=counts)
    from sysdrill.study.scheduler import new_card

    # Identical new cards follow identical schedules without fuzz: simulate one
    # per introduction day and weight it by the day's batch.
    steady = settings.with_changes(fuzz=False)
    new_counts: dict[date, int] = {}
    remaining = unseen
    day = moment.date()
    while day < deadline and remaining > 0 and settings.new_per_day > 0:
        batch = min(settings.new_per_day, remaining)
        new_counts[day] = batch
        start = moment if day == moment.date() else day_start(day) + timedelta(hours=9)
        one: dict[date, int] = {}
        _simulate(new_card("new"), start=start, settings=steady, deadline=deadline, counts=one)
        for when, count in one.items():
            counts[when] = counts.get(when, 0) + count * batch
        remaining -= batch
        day += timedelta(days=1)
    total_days = (deadline - moment.date()).days
    days = [moment.date() + timedelta(days=offset) for offset in range(total_days)]
    return [DayWorkload(d, counts.get(d, 0), new_counts.get(d, 0)) for d in days]
