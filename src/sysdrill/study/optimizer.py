"""Fitting FSRS parameters to a learner's own review log (optional extra).

Needs ``pip install 'sysdrill[optimizer]'`` (the ``fsrs[optimizer]`` extra,
which brings PyTorch). FSRS learns only from reviews on a later day than the
item's previous review; with fewer than :data:`MIN_CROSS_DAY_REVIEWS` of them
the fit is refused, since the package would return its defaults anyway.

A fit reports two stages to its progress callback: :data:`READING_LOG` (one
step per review) and :data:`FITTING` (one step per training epoch). fsrs offers
no progress hook of its own, so an epoch is seen when the optimizer measures its
loss, which it does once at the end of every epoch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardState
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import StudyScope

__all__ = [
    "FITTING",
    "MIN_CROSS_DAY_REVIEWS",
    "READING_LOG",
    "FitResult",
    "cross_day_reviews",
    "fit_parameters",
]

MIN_CROSS_DAY_REVIEWS = 512
"""Reviews on a later day than the previous one needed for a fit (fsrs's batch size)."""

READING_LOG = "Reading the review log"
"""The stage of a fit that turns the log into the optimizer's input, one step per review."""
FITTING = "Fitting FSRS parameters"
"""The stage of a fit that trains the parameters, one step per epoch."""

_DEFAULT_EPOCHS = 5
"""fsrs's epoch count, used if the optimizer module stops naming it."""


@dataclass(frozen=True, slots=True)
class FitResult:
    """Parameters fitted to a review log."""

    parameters: tuple[float, ...]
    reviews_used: int
    """Cross-day reviews in the log."""


def _no_progress(stage: str, done: int, total: int) -> None:
    """The progress callback of a caller that shows none."""


def _counted_reviews(store: StudyStore, scope: StudyScope) -> tuple[int, int]:
    """(cross-day reviews, all reviews) of the log, in one pass."""
    cross_day = total = 0
    for review in store.iter_reviews(scope):
        total += 1
        if review.first_of_day and review.state_before is not CardState.NEW:
            cross_day += 1
    return cross_day, total


def cross_day_reviews(store: StudyStore, scope: StudyScope) -> int:
    """Count reviews that follow an earlier day's review of the same item."""
    return _counted_reviews(store, scope)[0]


def _epoch_reporting(optimizer_class: Any, progress: Callable[[str, int, int], None]) -> Any:
    """A subclass of fsrs's optimizer that reports each finished epoch as :data:`FITTING`."""
    import importlib

    epochs = int(getattr(importlib.import_module("fsrs.optimizer"), "num_epochs", _DEFAULT_EPOCHS))

    class EpochReportingOptimizer(optimizer_class):  # type: ignore[misc]
        _epochs_done = 0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            progress(FITTING, 0, epochs)

        def _compute_batch_loss(self, *, parameters: list[float]) -> float:
            loss: float = super()._compute_batch_loss(parameters=parameters)
            self._epochs_done += 1
            progress(FITTING, min(self._epochs_done, epochs), epochs)
            return loss

    return EpochReportingOptimizer


def fit_parameters(
    store: StudyStore,
    scope: StudyScope,
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> FitResult:
    """Fit the 21 FSRS weights to the learner's review log.

    Args:
        store: The study store holding the log.
        scope: Whose log, in which vault.
        progress: Called as ``progress(stage, done, total)`` while the log is read
            (:data:`READING_LOG`, per review) and the parameters trained
            (:data:`FITTING`, per epoch).

    Raises:
        SchedulingError: If the history is too short, or the optimizer extra is not installed.
    """
    report = progress or _no_progress
    used, total = _counted_reviews(store, scope)
    if used < MIN_CROSS_DAY_REVIEWS:
        raise SchedulingError(
            f"History too short to fit parameters: {used} reviews on a later day than the "
            f"item's previous review, {MIN_CROSS_DAY_REVIEWS} needed. Keep practising; the "
            "default parameters serve until then."
        )
    try:
        import fsrs
        from fsrs.optimizer import Optimizer

        logs: list[fsrs.ReviewLog] = []
        ids: dict[str, int] = {}
        for done, review in enumerate(store.iter_reviews(scope), start=1):
            card_id = ids.setdefault(review.item_id, len(ids) + 1)
            logs.append(
                fsrs.ReviewLog(
                    card_id=card_id,
                    rating=fsrs.Rating(review.rating),
                    review_datetime=review.reviewed_at,
                    review_duration=review.duration_ms,
                )
            )
            report(READING_LOG, done, total)
        optimizer = _epoch_reporting(Optimizer, report)(logs)
    except ImportError as exc:
        raise SchedulingError(
            "The optimizer is not installed. Install it with: pip install 'sysdrill[optimizer]'."
        ) from exc
    parameters = tuple(float(p) for p in optimizer.compute_optimal_parameters())
    return FitResult(parameters=parameters, reviews_used=used)
