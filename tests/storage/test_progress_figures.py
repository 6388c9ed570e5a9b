"""The progress report from the store's reduced figures equals the card-by-card computation.

``_reference_report`` is the report as it was computed before the store counted
for it: every card read as a record, FSRS's own retrievability per card, due days
from datetimes. A generated history (edge cases included) must give the very same
report, to the last digit, on the in-memory, SQLite and PostgreSQL stores.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest

from sysdrill.content.models import Item
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.progress import (
    FORECAST_DAYS,
    MASTERED_STABILITY_DAYS,
    ProgressReport,
    build_progress,
    build_summary,
)
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.settings import StudySettings
from sysdrill.study.user_state import StudyScope, UserState, VaultId

NOW = datetime(2026, 11, 21, 12, 30, 15, 654321, tzinfo=UTC)
AREAS = ["compute", "memory", "latency", None]
TRACKS = ["cloud", "edge", None]


def _reference_figures(store, scope, items, *, now, settings) -> dict[str, object]:
    """Seen, mastered, coverage, forecast and weakest topics, card record by card record."""
    from sysdrill.study.scheduler import scheduler_for, to_fsrs_card

    cards = {card.item_id: card for card in store.iter_cards(scope)}
    scheduler = scheduler_for(settings.with_changes(deadline=None), now=now)
    cells: dict[tuple[str, str], list[int]] = {}
    topics: dict[str, list[float]] = {}
    seen = mastered = 0
    for item in items:
        cell = cells.setdefault(
            (item.competency_area or "(none)", item.track or "(none)"), [0, 0, 0]
        )
        cell[0] += 1
        card = cards.get(item.id)
        if card is None or card.never_seen:
            continue
        seen += 1
        cell[1] += 1
        if (
            card.state is CardState.REVIEW
            and card.stability_days is not None
            and card.stability_days >= MASTERED_STABILITY_DAYS
        ):
            mastered += 1
            cell[2] += 1
        if item.topic:
            # A card with no stability or no review is recalled with probability 0; FSRS
            # 6.3.0 divides by the missing stability instead (6.3.1 returns 0).
            recall = (
                0.0
                if card.stability_days is None or card.last_review is None
                else scheduler.get_card_retrievability(to_fsrs_card(card, now=now), now)
            )
            entry = topics.setdefault(item.topic, [0.0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += float(recall)
            entry[2] += card.lapses
    today = now.date()
    forecast = [0] * FORECAST_DAYS
    for card in cards.values():
        if card.state is CardState.NEW or card.due is None:
            continue
        offset = max(0, (card.due.date() - today).days)
        if offset < FORECAST_DAYS:
            forecast[offset] += 1
    # Reviews and Again ratings of each topic, review by review from the log.
    ratings: dict[str, list[int]] = {}
    topic_of = {
        item.id: item.topic
        for item in items
        if item.topic and item.id in cards and not cards[item.id].never_seen
    }
    # The ranking counts the last 30 days' reviews (RECENT_DAYS, today included).
    since = datetime.combine(today - timedelta(days=29), datetime.min.time(), tzinfo=UTC)
    for logged in store.iter_reviews(scope):
        if logged.item_id in topic_of and logged.reviewed_at >= since:
            entry = ratings.setdefault(topic_of[logged.item_id], [0, 0])
            entry[0] += 1
            entry[1] += logged.rating == 1
    rows = [
        (topic, int(n), round(total / n, 4), int(lapses), *ratings.get(topic, [0, 0]))
        for topic, (n, total, lapses) in topics.items()
    ]
    # How often a topic fails: its recent share of Again (from 5 reviews), or 1 - recall.
    failing = {row[0]: max(row[5] / row[4] if row[4] >= 5 else 0.0, 1 - row[2]) for row in rows}
    weakest = sorted(
        (row for row in rows if failing[row[0]] >= 0.1),
        key=lambda t: (-failing[t[0]], -t[5], -t[3], t[0]),
    )[:5]
    return {
        "items_seen": seen,
        "items_mastered": mastered,
        "coverage": sorted((key, tuple(cell)) for key, cell in cells.items()),
        "forecast": forecast,
        "weakest_topics": weakest,
    }


def _figures(report: ProgressReport) -> dict[str, object]:
    return {
        "items_seen": report.items_seen,
        "items_mastered": report.items_mastered,
        "coverage": [
            ((c.competency_area, c.track), (c.items, c.seen, c.mastered)) for c in report.coverage
        ],
        "forecast": [d.count for d in report.forecast],
        "weakest_topics": [
            (t.topic, t.seen, t.mean_recall, t.lapses, t.reviews, t.rated_again)
            for t in report.weakest_topics
        ],
    }


def _items(count: int) -> list[Item]:
    return [
        Item.model_validate(
            {
                "id": f"q-{n:04d}",
                "question": "?",
                **({"competency_area": AREAS[n % 4]} if AREAS[n % 4] else {}),
                **({"track": TRACKS[n % 3]} if TRACKS[n % 3] else {}),
                **({"topic": f"topic-{n % 7}"} if n % 5 else {}),
            }
        )
        for n in range(count)
    ]


def _history(items: list[Item], rng: random.Random) -> UserState:
    """Cards of most items (and of items no longer in the vault), with every odd case."""
    state = UserState()
    ids = [item.id for item in items[: len(items) * 4 // 5]] + [f"gone-{n}" for n in range(15)]
    for n, item_id in enumerate(ids):
        kind = n % 9
        last = NOW - timedelta(
            days=rng.randint(0, 400), microseconds=rng.randint(0, 86_399_999_999)
        )
        if kind == 0:  # reviewed exactly a whole number of days ago, to the microsecond
            last = NOW - timedelta(days=rng.randint(0, 60))
        due = NOW + timedelta(days=rng.uniform(-50, 40))
        if kind == 1:  # due on a day boundary, or a microsecond before one
            midnight = datetime.combine(NOW.date(), datetime.min.time(), tzinfo=UTC)
            due = midnight + timedelta(days=rng.randint(-3, 31), microseconds=-(n % 2))
        card = CardRecord(
            item_id=item_id,
            state=[CardState.REVIEW, CardState.LEARNING, CardState.RELEARNING][n % 3]
            if kind != 2
            else CardState.NEW,
            step=None,
            stability_days=None if kind == 3 else rng.choice([rng.uniform(0.1, 90), 21.0]),
            difficulty=rng.uniform(1, 10),
            due=None if kind == 4 else due,
            last_review=None if kind == 5 else min(last, NOW + timedelta(hours=rng.choice([0, 3]))),
            reps=rng.randint(1, 30),
            lapses=rng.randint(0, 5),
            never_seen=kind == 6 and n % 2 == 0,
        )
        state.cards.append(card)
        rating = 1 if n % 4 == 0 else 3  # some Again, so topics rank among the weakest
        state.reviews.append(
            ReviewRecord(item_id, rating, "self", None, 1000, last, CardState.NEW, None, True, {})
        )
    state.reviews.sort(key=lambda review: review.reviewed_at)
    return state


@pytest.mark.parametrize("seed", [1, 2])
def test_report_figures_equal_the_card_by_card_computation(store, seed: int) -> None:
    rng = random.Random(seed)
    items = _items(400)
    scope = StudyScope(store.ensure_user("local", now=NOW), VaultId("v"))
    store.replace_user_state(scope, _history(items, rng))
    settings = StudySettings(desired_retention=0.87)

    report = build_progress(store, scope, items, now=NOW, settings=settings)

    expected = _reference_figures(store, scope, items, now=NOW, settings=settings)
    assert _figures(report) == expected
    assert sum(expected["forecast"]) > 0 and expected["weakest_topics"]
    summary = build_summary(store, scope, items, now=NOW, settings=settings)
    assert (summary.items_seen, summary.items_mastered) == (
        expected["items_seen"],
        expected["items_mastered"],
    )
    assert [d.count for d in summary.forecast] == expected["forecast"]
    assert summary.forecast[0].day == NOW.date() and isinstance(summary.forecast[0].day, date)


def test_recall_equals_fsrs_retrievability_bit_for_bit() -> None:
    import fsrs

    from sysdrill.study.card_figures import epoch_us
    from sysdrill.study.progress import _Recall
    from sysdrill.study.scheduler import scheduler_for

    scheduler = scheduler_for(StudySettings(), now=NOW)
    recall = _Recall(scheduler.parameters, NOW)
    rng = random.Random(3)
    for _ in range(2000):
        last = NOW - timedelta(microseconds=rng.randint(-(10**9), 500 * 86_400_000_000))
        stability = rng.uniform(0.01, 400)
        card = fsrs.Card(
            state=fsrs.State.Review, stability=stability, difficulty=5.0, due=NOW, last_review=last
        )
        assert recall(2, stability, epoch_us(last)) == scheduler.get_card_retrievability(card, NOW)
