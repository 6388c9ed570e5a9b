"""The progress report: coverage, true retention, daily reviews, streak, forecast, weak topics.

Definitions (also in docs/study.md):

* **Seen**: an item with at least one review. **Mastered**: an item in review
  state whose FSRS stability is at least 21 days (it would still be recalled
  with 90 % probability three weeks after its last review).
* **True retention**: pass rate (anything but Again) of the first review of
  each item on each UTC day, counting only graduated items (review state);
  **young** items were scheduled under 21 days, **mature** ones 21 days or more.
  Learning steps and same-day repeats are left out because they measure
  short-term memory.
* **Streak**: consecutive UTC days with at least one review, ending today, or
  yesterday when nothing has been reviewed yet today.
* **Forecast**: reviews falling due on each of the next 30 days; overdue items
  count today.
* **Weakest topics**: topics with seen items, ordered by the mean current
  probability of recall (FSRS retrievability) of their items, lowest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc
from sysdrill.study.review_log import DailyReviewStats
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = [
    "FORECAST_DAYS",
    "MASTERED_STABILITY_DAYS",
    "CoverageCell",
    "DayCount",
    "ProgressReport",
    "ProgressSummary",
    "Retention",
    "TopicStrength",
    "build_progress",
    "build_summary",
]

MASTERED_STABILITY_DAYS = 21.0
"""FSRS stability from which an item counts as mastered, in days."""
FORECAST_DAYS = 30
"""Days covered by the due forecast."""
RECENT_DAYS = 30
"""Days covered by the recent retention figures and the reviews-per-day series."""
WEAKEST_TOPICS = 5
"""Topics listed as weakest."""
_NO_VALUE = "(none)"


@dataclass(frozen=True, slots=True)
class CoverageCell:
    """Items of one competency area and track, and how many are seen and mastered."""

    competency_area: str
    track: str
    items: int
    seen: int
    mastered: int


@dataclass(frozen=True, slots=True)
class Retention:
    """Pass rate of first-of-day reviews of graduated items."""

    reviews: int
    passed: int

    @property
    def rate(self) -> float | None:
        """Passed over reviews, or None without reviews."""
        return self.passed / self.reviews if self.reviews else None


@dataclass(frozen=True, slots=True)
class DayCount:
    """A count for one UTC day."""

    day: date
    count: int


@dataclass(frozen=True, slots=True)
class TopicStrength:
    """How well one topic is held."""

    topic: str
    seen: int
    """Items of the topic reviewed at least once."""
    mean_recall: float
    """Mean FSRS probability of recall now, 0 to 1."""
    lapses: int
    """Times items of the topic were forgotten after graduating."""


@dataclass(frozen=True, slots=True)
class ProgressReport:
    """Everything ``sysdrill progress`` shows."""

    generated_at: datetime
    items_total: int
    items_seen: int
    items_mastered: int
    reviews_total: int
    coverage: list[CoverageCell]
    retention_young: Retention
    """All-time true retention of young items."""
    retention_mature: Retention
    """All-time true retention of mature items."""
    recent_retention_young: Retention
    """True retention of young items over the last 30 days."""
    recent_retention_mature: Retention
    """True retention of mature items over the last 30 days."""
    reviews_per_day: list[DayCount]
    """Reviews on each of the last 30 days (oldest first, today last)."""
    streak_days: int
    forecast: list[DayCount]
    """Reviews due on each of the next 30 days, today first (overdue counted today)."""
    weakest_topics: list[TopicStrength]
    deadline: date | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready data (dates ISO, rates as fractions)."""
        data = asdict(self)
        data["generated_at"] = self.generated_at.isoformat()
        data["deadline"] = self.deadline.isoformat() if self.deadline else None
        for key in (
            "retention_young",
            "retention_mature",
            "recent_retention_young",
            "recent_retention_mature",
        ):
            data[key]["rate"] = getattr(self, key).rate
        for key in ("reviews_per_day", "forecast"):
            for entry in data[key]:
                entry["day"] = entry["day"].isoformat()
        return data


@dataclass(frozen=True, slots=True)
class ProgressSummary:
    """The headline figures of the report (what a dashboard shows), without its charts."""

    items_total: int
    items_seen: int
    items_mastered: int
    reviews_total: int
    streak_days: int
    forecast: list[DayCount]
    """Reviews due on each of the next 30 days, today first (overdue counted today)."""
    deadline: date | None = None


def _is_mastered(card: CardRecord) -> bool:
    return (
        card.state is CardState.REVIEW
        and card.stability_days is not None
        and card.stability_days >= MASTERED_STABILITY_DAYS
    )


def _forecast(cards: Iterable[CardRecord], today: date) -> list[DayCount]:
    counts = [0] * FORECAST_DAYS
    for card in cards:
        if card.state is CardState.NEW or card.due is None:
            continue
        offset = max(0, (card.due.date() - today).days)
        if offset < FORECAST_DAYS:
            counts[offset] += 1
    return [DayCount(today + timedelta(days=i), count) for i, count in enumerate(counts)]


def build_summary(
    store: StudyStore,
    scope: StudyScope,
    items: Sequence[Item],
    *,
    now: datetime,
    settings: StudySettings,
) -> ProgressSummary:
    """The report's headline figures alone: no coverage grid, retention or recall estimates.

    Args:
        store: The study store.
        scope: The learner and the vault.
        items: Vault items (seen and mastered count these).
        now: Current time (UTC).
        settings: The learner's settings (for the deadline).

    Returns:
        The same figures :func:`build_progress` reports under the same names.
    """
    today = require_utc(now).date()
    cards = {card.item_id: card for card in store.iter_cards(scope)}
    stats = store.daily_stats(scope)
    seen = mastered = 0
    for item in items:
        card = cards.get(item.id)
        if card is None or card.never_seen:
            continue
        seen += 1
        mastered += _is_mastered(card)
    return ProgressSummary(
        items_total=len(items),
        items_seen=seen,
        items_mastered=mastered,
        reviews_total=sum(s.reviews for s in stats),
        streak_days=_streak({s.day for s in stats}, today),
        forecast=_forecast(cards.values(), today),
        deadline=settings.deadline,
    )


def _retention(stats: Sequence[DailyReviewStats], *, mature: bool) -> Retention:
    if mature:
        return Retention(sum(s.mature_first for s in stats), sum(s.mature_passed for s in stats))
    return Retention(sum(s.young_first for s in stats), sum(s.young_passed for s in stats))


def _streak(days_with_reviews: set[date], today: date) -> int:
    day = today if today in days_with_reviews else today - timedelta(days=1)
    streak = 0
    while day in days_with_reviews:
        streak += 1
        day -= timedelta(days=1)
    return streak


def build_progress(
    store: StudyStore,
    scope: StudyScope,
    items: Sequence[Item],
    *,
    now: datetime,
    settings: StudySettings,
) -> ProgressReport:
    """Build the progress report of one user over the given vault items.

    Args:
        store: The study store.
        scope: The learner and the vault.
        items: Vault items (coverage and topics are about these; cards of items
            no longer in the vault still count in retention and the forecast).
        now: Current time (UTC).
        settings: The learner's settings (the scheduler used for recall estimates).

    Returns:
        The report.
    """
    import fsrs

    from sysdrill.study.scheduler import scheduler_for, to_fsrs_card

    moment = require_utc(now)
    today = moment.date()
    cards = {card.item_id: card for card in store.iter_cards(scope)}
    stats = store.daily_stats(scope)
    scheduler: fsrs.Scheduler = scheduler_for(settings.with_changes(deadline=None), now=moment)

    cells: dict[tuple[str, str], list[int]] = {}
    topics: dict[str, list[float]] = {}
    seen = mastered = 0
    for item in items:
        # The enums are StrEnums: used as strings directly, without ``.value``.
        area: str = item.competency_area or _NO_VALUE
        track: str = item.track or _NO_VALUE
        cell = cells.setdefault((area, track), [0, 0, 0])
        cell[0] += 1
        card = cards.get(item.id)
        if card is None or card.never_seen:
            continue
        seen += 1
        cell[1] += 1
        if _is_mastered(card):
            mastered += 1
            cell[2] += 1
        if item.topic:
            recall = scheduler.get_card_retrievability(to_fsrs_card(card, now=moment), moment)
            entry = topics.setdefault(item.topic, [0.0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += float(recall)
            entry[2] += card.lapses

    weakest = sorted(
        (
            TopicStrength(topic, int(n), round(total / n, 4), int(lapses))
            for topic, (n, total, lapses) in topics.items()
        ),
        key=lambda t: (t.mean_recall, -t.lapses, t.topic),
    )[:WEAKEST_TOPICS]

    by_day = {s.day: s.reviews for s in stats}
    recent_start = today - timedelta(days=RECENT_DAYS - 1)
    recent = [s for s in stats if s.day >= recent_start]

    notes: list[str] = []
    if not stats:
        notes.append("No reviews yet. Start with `sysdrill practice`.")
    return ProgressReport(
        generated_at=moment,
        items_total=len(items),
        items_seen=seen,
        items_mastered=mastered,
        reviews_total=sum(s.reviews for s in stats),
        coverage=[
            CoverageCell(area, track, n, s, m) for (area, track), (n, s, m) in sorted(cells.items())
        ],
        retention_young=_retention(stats, mature=False),
        retention_mature=_retention(stats, mature=True),
        recent_retention_young=_retention(recent, mature=False),
        recent_retention_mature=_retention(recent, mature=True),
        reviews_per_day=[
            DayCount(
                recent_start + timedelta(days=i), by_day.get(recent_start + timedelta(days=i), 0)
            )
            for i in range(RECENT_DAYS)
        ],
        streak_days=_streak(set(by_day), today),
        forecast=_forecast(cards.values(), today),
        weakest_topics=weakest,
        deadline=settings.deadline,
        notes=notes,
    )
