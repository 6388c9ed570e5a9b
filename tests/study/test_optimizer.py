from __future__ import annotations

import importlib.util
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.optimizer import MIN_CROSS_DAY_REVIEWS, cross_day_reviews, fit_parameters
from sysdrill.study.review_log import ReviewRecord

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


def _store_with(cross_day: int):
    store = MemoryStudyStore()
    user = store.ensure_user("local", now=T0)
    card = CardRecord("q", CardState.REVIEW, None, 3.0, 5.0, T0, T0, 1, 0, False)
    store.record_review(
        user, card, ReviewRecord("q", 3, "self", None, 0, T0, CardState.NEW, None, True, {})
    )
    for n in range(cross_day):
        at = T0 + timedelta(days=n + 1)
        review = ReviewRecord("q", 3, "self", None, 0, at, CardState.REVIEW, 1.0, True, {})
        store.record_review(user, card, review)
    return store, user


def test_cross_day_reviews_leave_out_first_and_same_day_reviews():
    store, user = _store_with(3)
    assert cross_day_reviews(store, user) == 3


def test_short_history_is_refused_with_the_counts():
    store, user = _store_with(10)
    with pytest.raises(SchedulingError) as caught:
        fit_parameters(store, user)
    assert str(caught.value).startswith(
        f"History too short to fit parameters: 10 reviews on a later day than the item's "
        f"previous review, {MIN_CROSS_DAY_REVIEWS} needed."
    )


@pytest.mark.skipif(
    importlib.util.find_spec("torch") is not None, reason="the optimizer extra is installed"
)
def test_missing_optimizer_extra_names_the_install_command():
    store, user = _store_with(MIN_CROSS_DAY_REVIEWS)
    with pytest.raises(SchedulingError, match=r"pip install 'sysdrill\[optimizer\]'"):
        fit_parameters(store, user)
