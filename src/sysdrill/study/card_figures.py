"""What the progress report reads of a learner's cards: a few numbers each, and day counts.

The report needs, of each card reviewed at least once, its state, stability, lapses
and the time of its last review, and of the due dates only how many fall on each
day. A store answers with exactly that (:meth:`~sysdrill.study.store.StudyStore.seen_cards`
and :meth:`~sysdrill.study.store.StudyStore.due_days`): plain tuples and counts the
database works out, instead of whole card records with two datetimes each, which
is most of the report's cost over 100,000 cards.

Times are whole microseconds since the Unix epoch (UTC) and days are days since
1970-01-01 (UTC). ``(later_us - earlier_us) // DAY_US`` is exactly the ``days`` of
the ``timedelta`` between the two times, as FSRS counts elapsed days.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from sysdrill.study.card_state import CardRecord
from sysdrill.study.clock import require_utc

__all__ = ["DAY_US", "EPOCH", "ForecastCard", "SeenCard", "epoch_day", "epoch_us", "forecast_card"]

DAY_US = 86_400_000_000
"""Microseconds in a day."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""Time zero of :func:`epoch_us` and :func:`epoch_day`."""

SeenCard = tuple[str, int, float | None, int | None, int]
"""A card reviewed at least once: (item id, state as an int of
:class:`~sysdrill.study.card_state.CardState`, stability in days, last review in
epoch microseconds, lapses)."""

ForecastCard = tuple[str, int, int | None, float | None, float | None, int | None, int | None]
"""A card past the NEW state, as the workload forecast reads it: (item id, state as
an int of :class:`~sysdrill.study.card_state.CardState`, learning step, stability in
days, difficulty, due and last review in epoch microseconds)."""


def epoch_us(moment: datetime) -> int:
    """Whole microseconds from :data:`EPOCH` to ``moment`` (UTC), exactly.

    Raises:
        ValueError: If ``moment`` is naive or not UTC.
    """
    delta = require_utc(moment) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def epoch_day(day: date) -> int:
    """Days from 1970-01-01 to ``day``."""
    return (day - EPOCH.date()).days


def forecast_card(card: CardRecord) -> ForecastCard:
    """The numbers of ``card`` the workload forecast reads (:data:`ForecastCard`)."""
    return (
        card.item_id,
        int(card.state),
        card.step,
        card.stability_days,
        card.difficulty,
        None if card.due is None else epoch_us(card.due),
        None if card.last_review is None else epoch_us(card.last_review),
    )
