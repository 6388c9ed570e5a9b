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
* **Workload.** :func:`sysdrill.study.workload.expected_workload` forecasts
  the reviews per day until the date (it needs the scheduler, which needs the
  rules here, so it lives in its own module).

Once the date has come, scheduling is normal again.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.settings import MAX_DESIRED_RETENTION, StudySettings

__all__ = [
    "DEADLINE_RETENTION",
    "RAMP_END_DAYS",
    "RAMP_START_DAYS",
    "days_left",
    "deadline_eve",
    "effective_maximum_interval_days",
    "effective_retention",
]

DEADLINE_RETENTION = 0.95
"""Desired retention reached before the deadline (unless the setting is higher)."""
RAMP_START_DAYS = 28
"""Days before the deadline at which the retention ramp starts."""
RAMP_END_DAYS = 7
"""Days before the deadline from which the ramp's target holds."""


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
