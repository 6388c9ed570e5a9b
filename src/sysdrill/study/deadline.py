"""Deadline mode: study towards an interview date.

With ``deadline`` set and the date still ahead (UTC days):

* **Interval cap.** Until the last :data:`FINAL_PASS_DAYS` days, the maximum
  interval is the days left minus one, so no review is scheduled past the
  interview.
* **Final pass.** In the last :data:`FINAL_PASS_DAYS` days every studied item
  comes up once more, whatever its due date, unless it was reviewed in those
  days already; each item's day (:func:`final_pass_day`) is drawn from its id so
  the pass spreads evenly over the window instead of piling up on the eve. A
  review in the window is the item's last look: the interval cap no longer
  applies there.
* **Retention ramp.** The desired retention rises from the learner's setting
  to ``max(setting, 0.95)`` (never above 0.97): unchanged 28 days or more before the
  date, raised linearly over the next three weeks, and held at the target in
  the last 7 days.
* **Workload.** :func:`sysdrill.study.workload.expected_workload` forecasts
  the reviews per day until the date (it needs the scheduler, which needs the
  rules here, so it lives in its own module).

Once the date has come, scheduling is normal again.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timedelta

from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.settings import MAX_DESIRED_RETENTION, StudySettings

__all__ = [
    "DEADLINE_RETENTION",
    "RAMP_END_DAYS",
    "RAMP_START_DAYS",
    "days_left",
    "final_pass_day",
    "final_pass_day_of_marks",
    "final_pass_marks",
    "final_pass_start",
    "FINAL_PASS_DAYS",
    "effective_maximum_interval_days",
    "effective_retention",
]

DEADLINE_RETENTION = 0.95
"""Desired retention reached before the deadline (unless the setting is higher)."""
RAMP_START_DAYS = 28
"""Days before the deadline at which the retention ramp starts."""
RAMP_END_DAYS = 7
"""Days before the deadline from which the ramp's target holds."""
FINAL_PASS_DAYS = 7
"""Days before the deadline over which every studied item comes up once more."""


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
    if left is None or left <= FINAL_PASS_DAYS:
        return settings.maximum_interval_days
    return max(1, min(settings.maximum_interval_days, left - 1))


def final_pass_start(settings: StudySettings, *, now: datetime) -> datetime | None:
    """Midnight UTC starting the final pass, while the deadline is ahead."""
    if days_left(settings, now=now) is None:
        return None
    assert settings.deadline is not None
    return day_start(settings.deadline - timedelta(days=FINAL_PASS_DAYS))


def _takes(item_id: str, left: int) -> bool:
    """Whether the final pass takes ``item_id`` on the day with ``left`` days left."""
    digest = hashlib.blake2b(f"{item_id}/{left}".encode(), digest_size=8).digest()
    return int.from_bytes(digest) % left == 0


def final_pass_day(item_id: str, *, deadline: date, today: date) -> date:
    """The day, from ``today`` on, on which the final pass offers ``item_id``.

    Each day of the window takes each item still waiting with a chance of one in
    the days left (a hash of the id and that day count, modulo the count, is
    0), which spreads the items evenly over the window; the eve takes the rest.
    """
    day = max(today, deadline - timedelta(days=FINAL_PASS_DAYS))
    while (left := (deadline - day).days) > 1:
        if _takes(item_id, left):
            break
        day += timedelta(days=1)
    return day


def final_pass_marks(item_id: str) -> int:
    """The days-left counts whose day would take ``item_id`` in the final pass, as bits.

    Bit ``left`` (2 to :data:`FINAL_PASS_DAYS`) is set when :func:`final_pass_day`
    stops on the day with ``left`` days left, once it gets there. It depends on
    the id alone, so it can be kept: :func:`final_pass_day_of_marks` then gives
    the day without hashing.
    """
    return sum(1 << left for left in range(2, FINAL_PASS_DAYS + 1) if _takes(item_id, left))


def final_pass_day_of_marks(marks: int, *, deadline: date, today: date) -> date:
    """:func:`final_pass_day` of the item whose :func:`final_pass_marks` are ``marks``."""
    day = max(today, deadline - timedelta(days=FINAL_PASS_DAYS))
    while (left := (deadline - day).days) > 1:
        if marks >> left & 1:
            break
        day += timedelta(days=1)
    return day
