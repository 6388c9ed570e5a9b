"""Plain records the study store reads and writes (no SQL types leak past storage)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import IntEnum
from typing import Any, NewType

__all__ = [
    "DAY_COUNTERS",
    "MATURE_INTERVAL_DAYS",
    "CardRecord",
    "CardState",
    "DailyReviewStats",
    "ReviewRecord",
    "SessionId",
    "SessionRecord",
    "UserId",
    "UserState",
    "day_counts",
]

UserId = NewType("UserId", int)
SessionId = NewType("SessionId", int)


class CardState(IntEnum):
    """Learning state of a card; 1-3 are the values of ``fsrs.State``."""

    NEW = 0
    """Never reviewed."""
    LEARNING = 1
    """Going through the learning steps."""
    REVIEW = 2
    """Graduated; scheduled in days."""
    RELEARNING = 3
    """Lapsed and going through the relearning steps."""


@dataclass(frozen=True, slots=True)
class CardRecord:
    """The scheduling state of one item for one user."""

    item_id: str
    state: CardState
    step: int | None
    """Index of the current learning or relearning step; None in review."""
    stability_days: float | None
    """FSRS stability: days until recall probability falls to 90 %."""
    difficulty: float | None
    """FSRS difficulty, 1 (easy) to 10 (hard)."""
    due: datetime | None
    """When the item is due next (UTC); None for a new item."""
    last_review: datetime | None
    reps: int = 0
    """Reviews so far."""
    lapses: int = 0
    """Times a learned item was forgotten (Again in review)."""
    never_seen: bool = True
    """True until the learner has reviewed the item at least once."""


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
class SessionRecord:
    """A practice session, quiz, gauntlet, chain walk or daily set."""

    kind: str
    started_at: datetime
    ended_at: datetime | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    session_id: int | None = None


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


@dataclass(slots=True)
class UserState:
    """Everything stored for one user, as moved by export and import."""

    cards: list[CardRecord] = field(default_factory=list)
    reviews: list[ReviewRecord] = field(default_factory=list)
    sessions: list[SessionRecord] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)


MATURE_INTERVAL_DAYS = 21.0
"""Items scheduled at this interval or longer count as mature (the Anki convention)."""
