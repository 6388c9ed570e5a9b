"""Fitting FSRS parameters to a learner's own review log (optional extra).

Needs ``pip install 'sysdrill[optimizer]'`` (the ``fsrs[optimizer]`` extra,
which brings PyTorch). FSRS learns only from reviews on a later day than the
item's previous review; with fewer than :data:`MIN_CROSS_DAY_REVIEWS` of them
the fit is refused, since the package would return its defaults anyway.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardState
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = ["MIN_CROSS_DAY_REVIEWS", "FitResult", "cross_day_reviews", "fit_parameters"]

MIN_CROSS_DAY_REVIEWS = 512
"""Reviews on a later day than the previous one needed for a fit (fsrs's batch size)."""


@dataclass(frozen=True, slots=True)
class FitResult:
    """Parameters fitted to a review log."""

    parameters: tuple[float, ...]
    reviews_used: int
    """Cross-day reviews in the log."""


def cross_day_reviews(store: StudyStore, scope: StudyScope) -> int:
    """Count reviews that follow an earlier day's review of the same item."""
    return sum(
        1
        for review in store.iter_reviews(scope)
        if review.first_of_day and review.state_before is not CardState.NEW
    )


def fit_parameters(store: StudyStore, scope: StudyScope) -> FitResult:
    """Fit the 21 FSRS weights to the learner's review log.

    Raises:
        SchedulingError: If the history is too short, or the optimizer extra is not installed.
    """
    used = cross_day_reviews(store, scope)
    if used < MIN_CROSS_DAY_REVIEWS:
        raise SchedulingError(
            f"History too short to fit parameters: {used} reviews on a later day than the "
            f"item's previous review, {MIN_CROSS_DAY_REVIEWS} needed. Keep practising; the "
            "default parameters serve until then."
        )
    try:
        import fsrs
        from fsrs.optimizer import Optimizer

        optimizer_class: Any = Optimizer
        logs: list[fsrs.ReviewLog] = []
        ids: dict[str, int] = {}
        for review in store.iter_reviews(scope):
            card_id = ids.setdefault(review.item_id, len(ids) + 1)
            logs.append(
                fsrs.ReviewLog(
                    card_id=card_id,
                    rating=fsrs.Rating(review.rating),
                    review_datetime=review.reviewed_at,
                    review_duration=review.duration_ms,
                )
            )
        optimizer = optimizer_class(logs)
    except ImportError as exc:
        raise SchedulingError(
            "The optimizer is not installed. Install it with: pip install 'sysdrill[optimizer]'."
        ) from exc
    parameters = tuple(float(p) for p in optimizer.compute_optimal_parameters())
    return FitResult(parameters=parameters, reviews_used=used)
