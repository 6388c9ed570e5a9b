"""The review log: one record per review, and what each review adds to its day's counters.

Progress reports read daily aggregates (:class:`DailyReviewStats`); a store
builds them with :func:`day_counts`, so the young/mature rule
(:data:`~sysdrill.study.card_state.MATURE_INTERVAL_DAYS`) is decided here once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sysdrill.study.card_state import MATURE_INTERVAL_DAYS, CardState

__all__ = ["DAY_COUNTERS", "DailyReviewStats", "ReviewRecord", "day_counts"]


@dataclass(frozen=True, slots=True)
class ReviewRecord:
    """One entry of the append-only review log."""

    item_id: str
    rating: int
    """1 Again, 2 Hard, 3 Good, 4 Easy."""
    graded_by: str
    answer: str | None
    duration_ms: int
    reviewed_at: datetime
    state_before: CardState
    interval_before_days: float | None
    """Interval the item had been scheduled at before this review, in days (None if new)."""
    first_of_day: bool
    """Whether this is the item's first review on its UTC day."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Scheduler settings in force (StudySettings.to_mapping)."""
    session_id: int | None = None
    review_id: int | None = None
    """Log position, assigned by the store; None before it is written."""


@dataclass(frozen=True, slots=True)
class DailyReviewStats:
    """Review counts of one UTC day, aggregated by the store for progress reports."""

    day: date
    reviews: int
    new_items: int
    """Reviews of items that were new before the review."""
    young_first: int
    """First-of-day reviews of graduated items scheduled under 21 days."""
    young_passed: int
    mature_first: int
    """First-of-day reviews of graduated items scheduled 21 days or more."""
    mature_passed: int
    duration_ms: int


DAY_COUNTERS: tuple[str, ...] = (
    "reviews",
    "new_items",
    "young_first",
    "young_passed",
    "mature_first",
    "mature_passed",
    "duration_ms",
)
"""The counters of :class:`DailyReviewStats`, in field order after ``day``."""


def day_counts(review: ReviewRecord) -> dict[str, int]:
    """Return what one review adds to its UTC day's :class:`DailyReviewStats` counters."""
    counts = dict.fromkeys(DAY_COUNTERS, 0)
    counts["reviews"] = 1
    counts["duration_ms"] = review.duration_ms
    if review.state_before is CardState.NEW:
        counts["new_items"] = 1
    if review.first_of_day and review.state_before is CardState.REVIEW:
        interval = review.interval_before_days
        group = "mature" if interval is not None and interval >= MATURE_INTERVAL_DAYS else "young"
        counts[f"{group}_first"] = 1
        counts[f"{group}_passed"] = 1 if review.rating > 1 else 0
    return counts
