from __future__ import annotations

from datetime import UTC, datetime

from sysdrill.study.card_state import CardState
from sysdrill.study.review_log import ReviewRecord, day_counts

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def _review(state, interval, rating, first=True):
    return ReviewRecord("q", rating, "self", None, 250, T0, state, interval, first, {})


def test_day_counts_of_a_new_item():
    assert day_counts(_review(CardState.NEW, None, 3)) == {
        "reviews": 1,
        "new_items": 1,
        "young_first": 0,
        "young_passed": 0,
        "mature_first": 0,
        "mature_passed": 0,
        "duration_ms": 250,
    }


def test_day_counts_split_young_and_mature_at_21_days():
    young = day_counts(_review(CardState.REVIEW, 20.9, 1))
    mature = day_counts(_review(CardState.REVIEW, 21.0, 2))
    assert (young["young_first"], young["young_passed"], young["mature_first"]) == (1, 0, 0)
    assert (mature["mature_first"], mature["mature_passed"], mature["young_first"]) == (1, 1, 0)


def test_repeat_reviews_and_learning_steps_do_not_count_for_retention():
    for review in (
        _review(CardState.REVIEW, 5.0, 3, first=False),
        _review(CardState.LEARNING, None, 3),
        _review(CardState.RELEARNING, 0.01, 3),
    ):
        counts = day_counts(review)
        assert counts["young_first"] == counts["mature_first"] == 0
