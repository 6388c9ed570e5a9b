"""Review scheduling through the ``fsrs`` package; no scheduler maths of our own.

The study settings (and deadline mode) decide how the ``fsrs.Scheduler`` is
configured; :func:`review_card` turns one stored card and a rating into the
next card state and never mutates its input.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

import fsrs

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc
from sysdrill.study.deadline import effective_maximum_interval_days, effective_retention
from sysdrill.study.ratings import Rating
from sysdrill.study.settings import StudySettings

__all__ = ["from_fsrs_card", "new_card", "review_card", "scheduler_for", "to_fsrs_card"]

_FSRS_STATES = {CardState(int(state)): state for state in fsrs.State}
_CARD_ID = 1
"""Stored cards are keyed by item id; fsrs only needs some id (and sleeps when given none)."""


def new_card(item_id: str) -> CardRecord:
    """Return the state of an item never reviewed."""
    return CardRecord(
        item_id=item_id,
        state=CardState.NEW,
        step=None,
        stability_days=None,
        difficulty=None,
        due=None,
        last_review=None,
        reps=0,
        lapses=0,
        never_seen=True,
    )


@lru_cache(maxsize=64)
def _scheduler(
    parameters: tuple[float, ...] | None,
    retention: float,
    learning: tuple[float, ...],
    relearning: tuple[float, ...],
    maximum_interval_days: int,
    fuzz: bool,
) -> fsrs.Scheduler:
    try:
        return fsrs.Scheduler(
            parameters=parameters if parameters is not None else fsrs.scheduler.DEFAULT_PARAMETERS,
            desired_retention=retention,
            learning_steps=tuple(timedelta(minutes=m) for m in learning),
            relearning_steps=tuple(timedelta(minutes=m) for m in relearning),
            maximum_interval=maximum_interval_days,
            enable_fuzzing=fuzz,
        )
    except ValueError as exc:
        raise SchedulingError(
            f"Invalid FSRS parameters: {exc} Reset them with "
            "`sysdrill settings set fsrs_parameters none`."
        ) from exc


def scheduler_for(settings: StudySettings, *, now: datetime) -> fsrs.Scheduler:
    """Return the fsrs scheduler configured by ``settings`` at time ``now``.

    Deadline mode changes the desired retention and maximum interval as the
    date nears (see :mod:`sysdrill.study.deadline`).
    """
    moment = require_utc(now)
    return _scheduler(
        settings.fsrs_parameters,
        effective_retention(settings, now=moment),
        settings.learning_steps_minutes,
        settings.relearning_steps_minutes,
        effective_maximum_interval_days(settings, now=moment),
        settings.fuzz,
    )


def to_fsrs_card(card: CardRecord, *, now: datetime) -> fsrs.Card:
    """Return an ``fsrs.Card`` for a stored card (a fresh learning card when new)."""
    if card.state is CardState.NEW:
        return fsrs.Card(card_id=_CARD_ID, state=fsrs.State.Learning, step=0, due=now)
    return fsrs.Card(
        card_id=_CARD_ID,
        state=_FSRS_STATES[card.state],
        step=card.step,
        stability=card.stability_days,
        difficulty=card.difficulty,
        due=card.due or now,
        last_review=card.last_review,
    )


def from_fsrs_card(
    card: fsrs.Card, *, item_id: str, reps: int, lapses: int, never_seen: bool = False
) -> CardRecord:
    """Return the stored form of an ``fsrs.Card``."""
    return CardRecord(
        item_id=item_id,
        state=CardState(int(card.state)),
        step=card.step,
        stability_days=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
        reps=reps,
        lapses=lapses,
        never_seen=never_seen,
    )


def review_card(
    card: CardRecord, rating: Rating, *, now: datetime, settings: StudySettings
) -> CardRecord:
    """Return the card's state after a review rated ``rating`` at ``now``.

    Args:
        card: The card before the review (not modified).
        rating: The learner's rating.
        now: Time of the review (UTC).
        settings: The learner's settings in force.

    Returns:
        A new card record: state, stability, difficulty and due from fsrs;
        ``reps`` plus one; ``lapses`` plus one for Again on a graduated card.

    Raises:
        SchedulingError: If ``now`` is naive, not UTC, or before the card's last review.
    """
    moment = require_utc(now)
    if card.last_review is not None and moment < card.last_review:
        raise SchedulingError(
            f"Review of {card.item_id} at {moment.isoformat()} is earlier than its last "
            f"review at {card.last_review.isoformat()}. Check the system clock."
        )
    scheduler = scheduler_for(settings, now=moment)
    updated, _ = scheduler.review_card(
        to_fsrs_card(card, now=moment), fsrs.Rating(int(rating)), review_datetime=moment
    )
    lapsed = card.state is CardState.REVIEW and rating is Rating.AGAIN
    return from_fsrs_card(
        updated,
        item_id=card.item_id,
        reps=card.reps + 1,
        lapses=card.lapses + (1 if lapsed else 0),
    )
