"""The rating choices of a prompt, each with the interval it would schedule (as Anki shows).

A session rates on one scale (:class:`~sysdrill.study.ratings.RatingScale`);
:func:`rating_choices` lists its keys and labels and, when the item's card and
the learner's settings are known, the wait each rating would give the item, by
running the card through the same FSRS scheduler a review uses, at the time of
the prompt. Fuzz is left out of the preview: with it on, the interval actually
given may differ by a few percent, and a preview must not change between two
looks at the same prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sysdrill.study.card_state import CardRecord
from sysdrill.study.ratings import SCALE_CHOICES, Rating, RatingScale
from sysdrill.study.scheduler import review_card
from sysdrill.study.settings import StudySettings

__all__ = ["RatingChoice", "preview_intervals", "rating_choices", "short_interval"]


@dataclass(frozen=True, slots=True)
class RatingChoice:
    """One button (or key) of the rating prompt."""

    key: str
    """What the learner presses or types: ``1`` to ``4`` (or ``5`` on the confidence scale)."""
    label: str
    """``Good``, or a confidence's words (``Recalled``)."""
    rating: Rating
    """The FSRS rating the key stands for."""
    interval: timedelta | None
    """The wait this rating would schedule from the prompt's time; None when unknown."""

    @property
    def interval_text(self) -> str:
        """The interval as Anki writes it (``10m``, ``4d``), empty when unknown."""
        return "" if self.interval is None else short_interval(self.interval)

    @property
    def caption(self) -> str:
        """What a button says: ``3 · Good · 4d`` (no interval part when unknown)."""
        shown = f"{self.key} · {self.label}"
        return f"{shown} · {self.interval_text}" if self.interval is not None else shown

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the interval in seconds and as text)."""
        return {
            "key": self.key,
            "label": self.label,
            "rating": self.rating.name.lower(),
            "interval_seconds": None if self.interval is None else self.interval.total_seconds(),
            "interval": self.interval_text or None,
        }


def short_interval(span: timedelta) -> str:
    """A wait in Anki's short form: ``1m``, ``10m``, ``3h``, ``4d``, ``2mo``, ``1.5y``.

    Minutes under an hour, hours under a day, days under a month (30 days),
    months under a year (365 days), then years to one decimal.
    """
    minutes = max(span.total_seconds(), 0.0) / 60
    if minutes < 60:
        return f"{max(1, round(minutes))}m"
    if minutes < 60 * 24:
        return f"{round(minutes / 60)}h"
    days = minutes / (60 * 24)
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{round(days / 30)}mo"
    return f"{days / 365:.1f}".removesuffix(".0") + "y"


def preview_intervals(
    card: CardRecord, *, settings: StudySettings, now: datetime
) -> dict[Rating, timedelta]:
    """The wait each rating would schedule for ``card`` reviewed at ``now`` (no fuzz).

    Args:
        card: The item's card as stored (a new card for an item never reviewed).
        settings: The learner's settings in force (deadline mode included).
        now: The time of the prompt (UTC).

    Returns:
        For each of the four ratings, the time from ``now`` to the due date it gives.
    """
    steady = settings.with_changes(fuzz=False) if settings.fuzz else settings
    waits: dict[Rating, timedelta] = {}
    for rating in Rating:
        after = review_card(card, rating, now=now, settings=steady)
        assert after.due is not None  # a reviewed card is always due again some day
        waits[rating] = after.due - now
    return waits


def rating_choices(
    scale: RatingScale, intervals: Mapping[Rating, timedelta] | None = None
) -> tuple[RatingChoice, ...]:
    """The choices of ``scale``, each with its interval from ``intervals`` when given."""
    return tuple(
        RatingChoice(
            key=key,
            label=label,
            rating=rating,
            interval=None if intervals is None else intervals.get(rating),
        )
        for key, label, rating in SCALE_CHOICES[scale]
    )
