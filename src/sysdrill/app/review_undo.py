"""Undo the learner's last review from anywhere, as Anki's Edit > Undo does.

``sysdrill undo`` and the dashboard's "Undo last review" call
:func:`undo_last_review`. The review is deleted and the item's card put back as
it was before it, in one transaction (:meth:`StudyService.undo_review`). When
the review belongs to a session still in progress, the session's own undo
runs, so the session asks the item again; otherwise the card before the review
is rebuilt by scheduling the item's earlier reviews again, each with the
settings recorded with it (a session's moves, which held that card, are
dropped once it finishes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sysdrill.app.study_vault import StudyVault
from sysdrill.app.worker_memory import WorkerMemory
from sysdrill.errors import SchedulingError, UsageError
from sysdrill.study.card_state import CardRecord
from sysdrill.study.clock import require_utc
from sysdrill.study.ratings import Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.service import StudyService
from sysdrill.study.settings import StudySettings

__all__ = ["UndoneReview", "undo_last_review"]


@dataclass(frozen=True, slots=True)
class UndoneReview:
    """The review taken back, as the learner is told of it."""

    item_id: str
    title: str
    rating: str
    """Again, Hard, Good or Easy."""
    reviewed_at: datetime
    """When the review was given (UTC)."""
    session_id: int | None
    """The session in progress that asks the item again; None when none does."""

    @property
    def message(self) -> str:
        """One line naming the item and the rating taken back."""
        again = " Its session asks it again." if self.session_id is not None else ""
        named = self.item_id if self.title == self.item_id else f"{self.title} ({self.item_id})"
        return (
            f"Undid your {self.rating} review of {named} "
            f"from {self.reviewed_at:%Y-%m-%d %H:%M} UTC.{again}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready values."""
        return {
            "item_id": self.item_id,
            "title": self.title,
            "rating": self.rating,
            "reviewed_at": self.reviewed_at.isoformat(),
            "session_id": self.session_id,
            "message": self.message,
        }


def _settings_of(review: ReviewRecord, fallback: StudySettings) -> StudySettings:
    # A review logged under settings since renamed still replays, under today's.
    try:
        return StudySettings.from_mapping(review.settings) if review.settings else fallback
    except SchedulingError:
        return fallback


def card_before_last(
    item_id: str, earlier: list[ReviewRecord], *, settings: StudySettings
) -> CardRecord | None:
    """The item's card after ``earlier`` reviews (oldest first); None when there are none.

    Args:
        item_id: The item.
        earlier: The reviews before the one taken back, in the order given.
        settings: Settings for reviews logged without theirs.
    """
    if not earlier:
        return None
    card = new_card(item_id)
    for review in earlier:
        after = review_card(
            card,
            Rating(review.rating),
            now=review.reviewed_at,
            settings=_settings_of(review, settings),
        )
        card = replace(after, version=card.version + 1)
    return card


def _in_progress(study: StudyService, review: ReviewRecord) -> int | None:
    """The session in progress whose last rating is ``review``, if there is one."""
    if review.session_id is None:
        return None
    saved = study.store.get_active_session(study.scope, review.session_id)
    if saved is None:
        return None
    ids = [move.get("review_id") for move in saved.moves if move.get("review_id") is not None]
    return saved.session_id if ids and ids[-1] == review.review_id else None


def undo_last_review(
    study: StudyService,
    vault: StudyVault,
    *,
    now: datetime,
    memory: WorkerMemory | None = None,
) -> UndoneReview:
    """Take back the learner's most recent review in this vault.

    Args:
        study: The learner's study service.
        vault: The vault served (for the item's title and a session's items).
        now: Current time (UTC).
        memory: What a web worker keeps (a session's machine), when one calls.

    Returns:
        What was taken back.

    Raises:
        UsageError: If the learner has no review to take back.
    """
    from sysdrill.app.sessions import undo_last_rating

    moment = require_utc(now)
    last = study.store.last_review(study.scope)
    if last is None or last.review_id is None:
        raise UsageError("Nothing to undo: you have not reviewed any item of this vault yet.")
    item = vault.by_id.get(last.item_id)
    done = UndoneReview(
        item_id=last.item_id,
        title=(item.title if item is not None else None) or last.item_id,
        rating=Rating(last.rating).name.capitalize(),
        reviewed_at=last.reviewed_at,
        session_id=_in_progress(study, last),
    )
    if done.session_id is not None:
        undo_last_rating(study, vault, done.session_id, now=moment, memory=memory)
        return done
    earlier = [
        review
        for review in study.store.item_reviews(study.scope, last.item_id)
        if review.review_id != last.review_id
    ]
    card = card_before_last(last.item_id, earlier, settings=study.settings)
    stored = study.store.get_card(study.scope, last.item_id)
    if card is not None and stored is not None:
        # A version never stored before, so a reader of the card being undone is
        # told it changed (cards imported with their history may count otherwise).
        card = replace(card, version=stored.version + 1)
    study.undo_review(last.review_id, card=card)
    return done
