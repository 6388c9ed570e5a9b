from __future__ import annotations

import importlib.util
import math
import os
import random
import sys
import types
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import SchedulingError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.optimizer import (
    FITTING,
    MIN_CROSS_DAY_REVIEWS,
    READING_LOG,
    FitResult,
    cross_day_reviews,
    fit_parameters,
)
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


def test_missing_optimizer_extra_names_the_install_command(monkeypatch):
    # A None entry makes `import fsrs.optimizer` fail as it does without the extra.
    monkeypatch.setitem(sys.modules, "fsrs.optimizer", None)
    store, user = _store_with(MIN_CROSS_DAY_REVIEWS)
    with pytest.raises(SchedulingError, match=r"pip install 'sysdrill\[optimizer\]'"):
        fit_parameters(store, user)


def _store_with_a_forgetful_learner():
    """60 items, each reviewed 12 times a day or more apart by a simulated learner.

    The learner recalls an item with probability 0.9 ** (days since last review /
    stability), starting at 1.5 days of stability and growing it 1.6x per recall:
    much faster forgetting than FSRS's defaults predict, so a real fit must move them.
    """
    rng = random.Random(7)
    store = MemoryStudyStore()
    user = store.ensure_user("local", now=T0)
    card = CardRecord("q", CardState.REVIEW, None, 3.0, 5.0, T0, T0, 1, 0, False)
    for n in range(60):
        item_id = f"q{n}"
        at = T0 + timedelta(hours=n)
        first = ReviewRecord(item_id, 3, "self", None, 0, at, CardState.NEW, None, True, {})
        store.record_review(user, card, first)
        stability_days, interval_days = 1.5, 1.0
        for _ in range(11):
            at += timedelta(days=interval_days)
            recalled = rng.random() < 0.9 ** (interval_days / stability_days)
            review = ReviewRecord(
                item_id,
                3 if recalled else 1,
                "self",
                None,
                0,
                at,
                CardState.REVIEW,
                interval_days,
                True,
                {},
            )
            store.record_review(user, card, review)
            if recalled:
                stability_days *= 1.6
                interval_days = max(1.0, round(stability_days * 1.5))
            else:
                stability_days, interval_days = max(0.5, stability_days / 2), 1.0
    return store, user


def _log_loss(parameters, store, user) -> float:
    """Mean binary cross-entropy of FSRS's recall predictions on cross-day reviews."""
    import fsrs

    scheduler = fsrs.Scheduler(parameters=parameters, enable_fuzzing=False)
    cards: dict[str, fsrs.Card] = {}
    losses = []
    for review in store.iter_reviews(user):
        card = cards.get(review.item_id)
        if card is None:
            card = fsrs.Card(due=review.reviewed_at)
        elif (review.reviewed_at - card.last_review).days > 0:
            recall = scheduler.get_card_retrievability(card, review.reviewed_at)
            recall = min(max(recall, 1e-9), 1 - 1e-9)
            losses.append(-math.log(recall if review.rating > 1 else 1 - recall))
        cards[review.item_id], _ = scheduler.review_card(
            card, fsrs.Rating(review.rating), review.reviewed_at
        )
    return sum(losses) / len(losses)


@pytest.mark.slow
def test_fit_moves_parameters_towards_the_learners_history():
    if importlib.util.find_spec("torch") is None:
        if os.environ.get("SYSDRILL_REQUIRE_OPTIMIZER") == "1":
            pytest.fail("torch is missing but SYSDRILL_REQUIRE_OPTIMIZER=1")
        pytest.skip("the optimizer extra is not installed: pip install 'sysdrill[optimizer]'")
    from fsrs.scheduler import (
        DEFAULT_PARAMETERS,
        LOWER_BOUNDS_PARAMETERS,
        UPPER_BOUNDS_PARAMETERS,
    )

    store, user = _store_with_a_forgetful_learner()
    fit = fit_parameters(store, user)
    assert fit.reviews_used == 60 * 11
    assert len(fit.parameters) == len(DEFAULT_PARAMETERS)
    moved = [abs(p - d) > 1e-3 for p, d in zip(fit.parameters, DEFAULT_PARAMETERS, strict=True)]
    assert sum(moved) >= 5, fit.parameters
    for value, low, high in zip(
        fit.parameters, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True
    ):
        assert low <= value <= high
    # The point of a fit: it predicts this learner's recalls better than the defaults.
    assert _log_loss(fit.parameters, store, user) < _log_loss(DEFAULT_PARAMETERS, store, user)


def stand_in_optimizer(epochs: int, fitted: list[float]) -> types.ModuleType:
    """A ``fsrs.optimizer`` that runs like the real one (a loss per epoch) without PyTorch."""
    module = types.ModuleType("fsrs.optimizer")
    module.num_epochs = epochs  # type: ignore[attr-defined]

    class Optimizer:
        def __init__(self, review_logs) -> None:
            self.review_logs = review_logs

        def _compute_batch_loss(self, *, parameters) -> float:
            return 0.25

        def compute_optimal_parameters(self, verbose: bool = False) -> list[float]:
            for _ in range(epochs):
                self._compute_batch_loss(parameters=fitted)
            return fitted

    module.Optimizer = Optimizer  # type: ignore[attr-defined]
    return module


def test_fit_reports_the_log_read_then_each_epoch(monkeypatch):
    monkeypatch.setitem(sys.modules, "fsrs.optimizer", stand_in_optimizer(3, [0.5] * 21))
    store, user = _store_with(MIN_CROSS_DAY_REVIEWS)
    seen: list[tuple[str, int, int]] = []

    fit = fit_parameters(store, user, progress=lambda *entry: seen.append(entry))

    reviews = MIN_CROSS_DAY_REVIEWS + 1  # the first review of the item counts as read
    assert [e for e in seen if e[0] == READING_LOG] == [
        (READING_LOG, n, reviews) for n in range(1, reviews + 1)
    ]
    assert [e for e in seen if e[0] == FITTING] == [(FITTING, n, 3) for n in range(4)]
    assert seen.index((READING_LOG, reviews, reviews)) < seen.index((FITTING, 0, 3))
    assert fit == FitResult(parameters=(0.5,) * 21, reviews_used=MIN_CROSS_DAY_REVIEWS)


def test_short_history_reports_no_progress():
    store, user = _store_with(10)
    seen: list[tuple[str, int, int]] = []
    with pytest.raises(SchedulingError, match="History too short"):
        fit_parameters(store, user, progress=lambda *entry: seen.append(entry))
    assert seen == []
