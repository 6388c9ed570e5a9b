"""A card: the scheduling state of one item for one learner, and when it counts as mature.

These are domain records: the scheduler computes them, the study store keeps
them (:mod:`sysdrill.storage` imports them from here, never the other way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum

__all__ = ["MATURE_INTERVAL_DAYS", "CardRecord", "CardState", "ReadCard"]

MATURE_INTERVAL_DAYS = 21.0
"""Items scheduled at this interval or longer count as mature (the Anki convention)."""


class CardState(IntEnum):
    """Learning state of a card; 1-3 are the values of ``fsrs.State``."""

    NEW = 0
    """Never reviewed."""
    LEARNING = 1
    """Going through the learning steps."""
    REVIEW = 2
    """Graduated; scheduled in days."""
    RELEARNING = 3
    """Lapsed and going through the relearning steps."""


@dataclass(frozen=True, slots=True)
class CardRecord:
    """The scheduling state of one item for one user."""

    item_id: str
    state: CardState
    step: int | None
    """Index of the current learning or relearning step; None in review."""
    stability_days: float | None
    """FSRS stability: days until recall probability falls to 90 %."""
    difficulty: float | None
    """FSRS difficulty, 1 (easy) to 10 (hard)."""
    due: datetime | None
    """When the item is due next (UTC); None for a new item."""
    last_review: datetime | None
    reps: int = 0
    """Reviews so far."""
    lapses: int = 0
    """Times a learned item was forgotten (Again in review)."""
    never_seen: bool = True
    """True until the learner has reviewed the item at least once."""
    version: int = field(default=0, compare=False)
    """Writes of the stored card so far: a review of the card read is written only while
    the store holds this version (the optimistic check); not part of its state."""


@dataclass(frozen=True, slots=True)
class ReadCard:
    """An item's card as read from the store earlier; ``card`` None: none was stored."""

    card: CardRecord | None
