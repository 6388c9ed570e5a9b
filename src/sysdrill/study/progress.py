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
* **Weakest topics**: topics ordered by how often their items fail, highest first:
  the share of their reviews in the last 30 days rated Again (in learning or in
  review alike; counted from five reviews on), or the chance of forgetting them now
  (1 - the mean FSRS retrievability), whichever is higher; then more lapses, name.
  A topic failing less than one time in ten (FSRS's usual target) is not weak.
  Recall alone would mislead on the first days: an item still in learning, rated
  Again minutes ago, has a recall of 100 % for FSRS, which counts elapsed whole days.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from operator import itemgetter
from typing import Any

from sysdrill.study.card_figures import DAY_US, epoch_day, epoch_us
from sysdrill.study.card_state import CardState
from sysdrill.study.clock import day_start, require_utc
from sysdrill.study.progress_groups import (
    MASTERED_STABILITY_DAYS,
    ProgressItem,
    TopicCards,
    group_cards,
)
from sysdrill.study.review_log import DailyReviewStats
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = [
    "FORECAST_DAYS",
    "MASTERED_STABILITY_DAYS",
    "MIN_TOPIC_REVIEWS",
    "CoverageCell",
    "DayCount",
    "ProgressItem",
    "ProgressReport",
    "ProgressSummary",
    "Retention",
    "TopicStrength",
    "build_progress",
    "build_summary",
]

FORECAST_DAYS = 30
"""Days covered by the due forecast."""
RECENT_DAYS = 30
"""Days covered by the recent retention figures and the reviews-per-day series."""
CALENDAR_DAYS = 371
"""Days of review counts the report keeps for the review calendar (53 weeks)."""
WEAKEST_TOPICS = 5
"""Topics listed as weakest."""
MIN_TOPIC_REVIEWS = 5
"""Recent reviews of a topic's items before their share rated Again counts: fewer tell
too little."""
WEAK_FAILURE_SHARE = 0.1
"""A topic failing at least this often (0 to 1) is listed as weak."""
_NO_VALUE = "(none)"
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


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
    reviews: int = 0
    """Reviews of the topic's items in the log."""
    rated_again: int = 0
    """Of those, the reviews rated Again (in learning or in review)."""

    @property
    def again_share(self) -> float:
        """Share of the topic's reviews rated Again, 0 to 1 (0 without reviews)."""
        return self.rated_again / self.reviews if self.reviews else 0.0


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
    weakest_topics_note: str | None = None
    """Why no topic is listed as weakest, once there are reviews (None when some are)."""
    notes: list[str] = field(default_factory=list)
    review_days: list[DayCount] = field(default_factory=list)
    """Reviews on each day of the last year that has any (oldest first), for a calendar."""

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
        for key in ("reviews_per_day", "forecast", "review_days"):
            for entry in data[key]:
                entry["day"] = entry["day"].isoformat()
        for entry, topic in zip(data["weakest_topics"], self.weakest_topics, strict=True):
            entry["again_share"] = round(topic.again_share, 4)
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


def _cell_order(
    cell: tuple[tuple[str | None, str | None], tuple[int, int, int]],
) -> tuple[str, str]:
    (area, track), _ = cell
    return (area or _NO_VALUE, track or _NO_VALUE)


_NEW = int(CardState.NEW)


def _forecast(store: StudyStore, scope: StudyScope, today: date) -> list[DayCount]:
    """Reviews due on each of the next days; the store counts them by due day."""
    counts = [0] * FORECAST_DAYS
    first = epoch_day(today)
    end = day_start(today + timedelta(days=FORECAST_DAYS))
    for day, count in store.due_days(scope, before=end).items():
        counts[max(0, day - first)] += count
    return [DayCount(today + timedelta(days=i), count) for i, count in enumerate(counts)]


class _Recall:
    """FSRS's probability of recall of a seen card now, as ``fsrs.Scheduler`` computes it.

    The same expression as ``Scheduler.get_card_retrievability`` (elapsed whole
    days, the scheduler's decay and factor), without building an ``fsrs.Card``
    per card; a test holds the two equal.
    """

    def __init__(self, parameters: Sequence[float], now: datetime) -> None:
        self._decay = -parameters[20]
        self._factor = 0.9 ** (1 / self._decay) - 1
        self._now_us = epoch_us(now)

    def __call__(
        self, state: int, stability_days: float | None, last_review_us: int | None
    ) -> float:
        """The recall of a card with this state, stability and last review (epoch µs)."""
        # A card back in the NEW state has no review for FSRS (a learning card).
        if state == _NEW or last_review_us is None or stability_days is None:
            return 0.0
        return self._sum([stability_days], [last_review_us])

    def total(self, cards: TopicCards) -> float:
        """The summed recall of a topic's seen cards (those without a review add 0)."""
        return self._sum(cards.stabilities_days, cards.last_reviews_us)

    def _sum(self, stabilities_days: list[float], last_reviews_us: list[int]) -> float:
        # One expression over plain lists: 90,000 cards in about 20 ms.
        decay, factor, now_us = self._decay, self._factor, self._now_us
        return float(
            sum(
                (1 + factor * max(0, (now_us - last_us) // DAY_US) / stability) ** decay
                for stability, last_us in zip(stabilities_days, last_reviews_us, strict=True)
            )
        )


def build_summary(
    store: StudyStore,
    scope: StudyScope,
    items: Sequence[ProgressItem],
    *,
    now: datetime,
    settings: StudySettings,
    item_ids: Collection[str] | None = None,
) -> ProgressSummary:
    """The report's headline figures alone: no coverage grid, retention or recall estimates.

    Args:
        store: The study store.
        scope: The learner and the vault.
        items: Vault items (seen and mastered count these).
        item_ids: The ids of ``items`` when the caller keeps them in a collection
            already (a loaded vault's index), so none is built per call.
        now: Current time (UTC).
        settings: The learner's settings (for the deadline).

    Returns:
        The same figures :func:`build_progress` reports under the same names.
    """
    today = require_utc(now).date()
    # The store counts (a dashboard asks on every visit: reading each seen card's
    # figures costs far more at 100,000 cards); the ids keep out cards of items the
    # vault no longer has, as the full report leaves them out.
    seen, mastered = store.seen_counts(
        scope,
        item_ids if item_ids is not None else {item.id for item in items},
        mastered_stability_days=MASTERED_STABILITY_DAYS,
    )
    stats = store.daily_stats(scope)
    return ProgressSummary(
        items_total=len(items),
        items_seen=seen,
        items_mastered=mastered,
        reviews_total=sum(s.reviews for s in stats),
        streak_days=_streak({s.day for s in stats}, today),
        forecast=_forecast(store, scope, today),
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


def _rating_totals(
    topics: dict[str, TopicCards], rating_counts: Mapping[str, tuple[int, int]]
) -> dict[str, tuple[int, int]]:
    """Reviews and Again ratings of each topic's seen items, summed."""
    totals: dict[str, tuple[int, int]] = {}
    for topic, cards in topics.items():
        # map and itemgetter keep the walk over 100,000 seen items in C.
        counted = [pair for pair in map(rating_counts.get, cards.item_ids) if pair is not None]
        totals[topic] = (sum(map(_FIRST, counted)), sum(map(_SECOND, counted)))
    return totals


def _failure_share(topic: TopicStrength) -> float:
    """How often the topic's items fail, 0 to 1: observed recently, or expected now."""
    observed = topic.again_share if topic.reviews >= MIN_TOPIC_REVIEWS else 0.0
    return max(observed, 1.0 - topic.mean_recall)


def _weakest_topics(
    topics: dict[str, TopicCards],
    rating_counts: Mapping[str, tuple[int, int]],
    recall_of: _Recall,
) -> tuple[list[TopicStrength], str | None]:
    """The weakest topics, and why none is listed when none is.

    Args:
        topics: The seen cards of each topic.
        rating_counts: Recent reviews and Again ratings of each item (the store's).
        recall_of: FSRS's recall now of a seen card.
    """
    totals = _rating_totals(topics, rating_counts)
    strengths = [
        TopicStrength(
            topic,
            cards.seen,
            round(recall_of.total(cards) / cards.seen, 4),
            cards.lapses,
            reviews=totals[topic][0],
            rated_again=totals[topic][1],
        )
        for topic, cards in topics.items()
    ]
    scored = [(_failure_share(t), t) for t in strengths]
    ranked = [
        t
        for _, t in sorted(
            ((share, t) for share, t in scored if share >= WEAK_FAILURE_SHARE),
            key=lambda pair: (-pair[0], -pair[1].rated_again, -pair[1].lapses, pair[1].topic),
        )
    ]
    if ranked:
        return ranked[:WEAKEST_TOPICS], None
    if any(t.reviews >= MIN_TOPIC_REVIEWS for t in strengths):
        return [], "None so far: every topic's items fail less than one time in ten."
    return [], (
        "Not enough reviews yet: a topic is ranked once its items have "
        f"{MIN_TOPIC_REVIEWS} reviews in the last {RECENT_DAYS} days, or are being forgotten."
    )


def build_progress(
    store: StudyStore,
    scope: StudyScope,
    items: Sequence[ProgressItem],
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

    from sysdrill.study.scheduler import scheduler_for

    moment = require_utc(now)
    today = moment.date()
    stats = store.daily_stats(scope)
    scheduler: fsrs.Scheduler = scheduler_for(settings.with_changes(deadline=None), now=moment)
    recall_of = _Recall(scheduler.parameters, moment)
    # The counts of the vault's 100,000 items are kept while the items and the
    # learner's cards are the same lists; only the recall depends on the time.
    groups = group_cards(items, store.seen_cards(scope))
    # Recent ratings: a topic weak a year ago and sound since is not weak now.
    since = day_start(today - timedelta(days=RECENT_DAYS - 1))
    ratings = store.rating_counts(scope, since=since)
    weakest, weakest_note = _weakest_topics(groups.topics, ratings, recall_of)

    by_day = {s.day: s.reviews for s in stats}
    recent_start = today - timedelta(days=RECENT_DAYS - 1)
    recent = [s for s in stats if s.day >= recent_start]

    notes: list[str] = []
    if not stats:
        notes.append("No reviews yet. Start with `sysdrill practice`.")
        weakest_note = None  # the note above says it
    elif weakest_note is not None:
        notes.append(f"Weakest topics: {weakest_note}")
    return ProgressReport(
        generated_at=moment,
        items_total=len(items),
        items_seen=groups.seen,
        items_mastered=groups.mastered,
        reviews_total=sum(s.reviews for s in stats),
        coverage=[
            CoverageCell(area or _NO_VALUE, track or _NO_VALUE, n, s, m)
            for (area, track), (n, s, m) in sorted(groups.cells.items(), key=_cell_order)
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
        forecast=_forecast(store, scope, today),
        weakest_topics=weakest,
        weakest_topics_note=weakest_note,
        deadline=settings.deadline,
        notes=notes,
        review_days=[
            DayCount(s.day, s.reviews)
            for s in stats
            if s.reviews and s.day > today - timedelta(days=CALENDAR_DAYS)
        ],
    )
