"""Deadline workload: the reviews and new items expected each day until the interview.

:func:`expected_workload` simulates every card (and the new items the daily
limit lets in) day by day until the date with the real scheduler, assuming each
review passes with Good, and counts reviews per day. Failed reviews add more.
The deadline rules it relies on are in :mod:`sysdrill.study.deadline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.deadline import FINAL_PASS_DAYS, days_left, final_pass_day
from sysdrill.study.ratings import Rating
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.settings import StudySettings

__all__ = ["DayWorkload", "expected_workload", "no_days_left"]

_MAX_SIMULATED_REVIEWS = 200
"""Guard against a pathological loop per card in the workload simulation."""
_STUDY_HOUR = timedelta(hours=9)
"""When a simulated day's study starts (after midnight UTC)."""


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
    pass_day: date,
    counts: dict[date, int],
) -> None:
    pass_start = day_start(deadline - timedelta(days=FINAL_PASS_DAYS))
    moment = max(start, card.due or start)
    current = card
    for _ in range(_MAX_SIMULATED_REVIEWS):
        looked = current.last_review is not None and current.last_review >= pass_start
        if not looked and current.last_review is not None and moment.date() > pass_day:
            # The final pass offers it on its own day (study/deadline.py).
            moment = max(start, day_start(pass_day) + _STUDY_HOUR)
        if moment.date() >= deadline:
            return
        counts[moment.date()] = counts.get(moment.date(), 0) + 1
        current = review_card(current, Rating.GOOD, now=moment, settings=settings)
        assert current.due is not None
        moment = current.due


def _pass_shares(batch: int, *, deadline: date, today: date) -> list[tuple[date, int]]:
    """``batch`` new items split evenly over the final-pass days left from ``today``."""
    first = max(today, deadline - timedelta(days=FINAL_PASS_DAYS))
    days = [first + timedelta(days=n) for n in range((deadline - first).days)]
    if not days:
        return []
    whole, extra = divmod(batch, len(days))
    shares = [(day, whole + (1 if n < extra else 0)) for n, day in enumerate(days)]
    return [(day, share) for day, share in shares if share]


def no_days_left(deadline: date | None, *, today: date) -> str:
    """Why there is no workload to plan (no deadline, or one today or past), and what to do."""
    fix = "Set the next one with `sysdrill settings set deadline YYYY-MM-DD`"
    off = "or turn deadline mode off with `sysdrill settings set deadline none`."
    if deadline is None:
        return f"No deadline set. {fix}."
    if deadline == today:
        return (
            f"The deadline {deadline.isoformat()} is today: no days are left to plan. {fix}, {off}"
        )
    ago = (today - deadline).days
    return (
        f"The deadline {deadline.isoformat()} has passed ({ago} day{'s' if ago != 1 else ''} ago). "
        f"{fix}, {off}"
    )


def expected_workload(
    cards: Sequence[CardRecord],
    *,
    unseen: int,
    settings: StudySettings,
    now: datetime,
    introduced_today: int = 0,
) -> list[DayWorkload]:
    """Expected reviews and new items per UTC day from today to the eve of the deadline.

    Args:
        cards: The learner's cards in scope.
        unseen: Items in scope never studied, introduced at ``new_per_day``.
        settings: Settings with a deadline.
        now: Current time (UTC); today's overdue items count today.
        introduced_today: New items already introduced today, which today's
            ``new_per_day`` allowance has spent (as practice's banner counts them).

    Returns:
        One entry per day from today to the day before the deadline.

    Raises:
        SchedulingError: If no deadline is set or it is not after today.
    """
    moment = require_utc(now)
    if days_left(settings, now=moment) is None:
        raise SchedulingError(no_days_left(settings.deadline, today=moment.date()))
    assert settings.deadline is not None
    deadline = settings.deadline
    # Fuzz draws random intervals: without it the same state and date give the same plan.
    settings = settings.with_changes(fuzz=False)
    counts: dict[date, int] = {}
    today = moment.date()
    for card in cards:
        if card.state is not CardState.NEW:
            pass_day = final_pass_day(card.item_id, deadline=deadline, today=today)
            _simulate(
                card,
                start=moment,
                settings=settings,
                deadline=deadline,
                pass_day=pass_day,
                counts=counts,
            )
    # Identical new cards follow identical schedules without fuzz: simulate one
    # per introduction day and final-pass day, weighted by the items of the
    # day's batch that the pass offers on that day (it spreads them evenly).
    new_counts: dict[date, int] = {}
    remaining = unseen
    day = moment.date()
    while day < deadline and remaining > 0 and settings.new_per_day > 0:
        spent = introduced_today if day == moment.date() else 0
        batch = min(max(0, settings.new_per_day - spent), remaining)
        if batch == 0:
            day += timedelta(days=1)
            continue
        new_counts[day] = batch
        start = moment if day == moment.date() else day_start(day) + _STUDY_HOUR
        for pass_day, share in _pass_shares(batch, deadline=deadline, today=today):
            one: dict[date, int] = {}
            _simulate(
                new_card("new"),
                start=start,
                settings=settings,
                deadline=deadline,
                pass_day=pass_day,
                counts=one,
            )
            for when, count in one.items():
                counts[when] = counts.get(when, 0) + count * share
        remaining -= batch
        day += timedelta(days=1)
    total_days = (deadline - moment.date()).days
    days = [moment.date() + timedelta(days=offset) for offset in range(total_days)]
    return [DayWorkload(d, counts.get(d, 0), new_counts.get(d, 0)) for d in days]
