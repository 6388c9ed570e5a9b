"""Recording reviews: scheduling an item's next review and writing it, or taking it back.

Mixed into :class:`~sysdrill.study.service.StudyService`, the one entry point.
Scheduling is the domain's (:meth:`ReviewRecording.schedule_review` returns the new
card and the review's log entry, as py-fsrs's ``review_card`` does, and writes
nothing); one store call then writes it (:meth:`ReviewRecording.record_review` on
its own, :meth:`ReviewRecording.save_move` with the session move that made it), only
while the stored card is still the one it was scheduled from.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from sysdrill.errors import SchedulingError
from sysdrill.study.card_state import CardRecord, CardState, ReadCard
from sysdrill.study.clock import require_utc, utc_day
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import SessionId, StudyScope

__all__ = ["ReadCard", "ReviewOutcome", "ReviewRecording", "ScheduledReview"]


@dataclass(frozen=True, slots=True)
class ScheduledReview:
    """A review scheduled but not yet written (:meth:`StudyService.schedule_review`)."""

    rating: Rating
    graded_by: GradedBy
    read: CardRecord | None
    """The card it was scheduled from; None: the item had none."""
    card: CardRecord
    """The card after the review."""
    review: ReviewRecord
    due: datetime
    """When the item is due next (UTC)."""


@dataclass(frozen=True, slots=True)
class _Given:
    """What the learner gave for one review."""

    rating: Rating
    graded_by: GradedBy
    answer: str | None
    duration_ms: int
    moment: datetime


@dataclass(frozen=True, slots=True)
class ReviewOutcome:
    """What recording one review did."""

    item_id: str
    rating: Rating
    graded_by: GradedBy
    review_id: int
    """Position of the review in the log (increasing)."""
    card: CardRecord
    """The item's card after the review."""
    previous_state: CardState
    due: datetime
    """When the item is due next (UTC)."""
    interval_days: float
    """Time from this review to the next due, in days (fractions for learning steps)."""
    card_before: CardRecord | None = None
    """The item's card before the review; None when it had none (undo deletes the card)."""


def _given(
    rating: Rating, graded_by: GradedBy, answer: str | None, duration_ms: int, now: datetime
) -> _Given:
    """What the learner gave, checked.

    Raises:
        SchedulingError: If ``now`` is naive or not UTC, or duration is negative.
    """
    moment = require_utc(now)
    if duration_ms < 0:
        raise SchedulingError(f"duration_ms must be 0 or more, got {duration_ms}.")
    return _Given(Rating(rating), GradedBy(graded_by), answer, int(duration_ms), moment)


class ReviewRecording:
    """The review-recording methods of :class:`~sysdrill.study.service.StudyService`."""

    _store: StudyStore
    _known: set[str] | None
    _today: tuple[date, int, int] | None

    @property
    def scope(self) -> StudyScope:
        """The learner and the vault (the service's)."""
        raise NotImplementedError

    @property
    def settings(self) -> StudySettings:
        """The learner's settings in force (the service's)."""
        raise NotImplementedError

    def _reload(self) -> None:
        raise NotImplementedError

    def cards_of(self, item_ids: Collection[str]) -> dict[str, ReadCard]:
        """Read the cards of ``item_ids`` in one query, to review them later with ``read=``."""
        stored = self._store.cards_of(self.scope, item_ids)
        return {item_id: ReadCard(stored.get(item_id)) for item_id in item_ids}

    # -- recording -------------------------------------------------------------

    def record_review(
        self,
        item_id: str,
        *,
        rating: Rating,
        graded_by: GradedBy,
        answer: str | None = None,
        duration_ms: int = 0,
        now: datetime,
        session_id: SessionId | None = None,
        read: ReadCard | None = None,
    ) -> ReviewOutcome:
        """Schedule the item's next review and append the review to the log.

        The card update and the log entry are one transaction, committed before
        this returns: an acknowledged review survives a crash.

        Args:
            item_id: The item reviewed.
            rating: Again, Hard, Good or Easy (see :func:`rating_from_confidence`).
            graded_by: How the rating was decided.
            answer: What the learner answered (free text, option letter, number), if any.
            duration_ms: Time the learner took, in milliseconds.
            now: Time of the review (UTC).
            session_id: The session this review belongs to, if any.
            read: The item's card as the caller read it earlier (see
                :meth:`cards_of`); read now when None.

        Returns:
            The new card state and when the item is due next.

        Raises:
            SchedulingError: If ``now`` is naive or not UTC, or duration is negative.
            CardChanged: If the stored card changed after it was read (nothing written).
            StorageError: If the review could not be written (nothing was written).
        """
        if read is None:
            read = ReadCard(self._store.get_card(self.scope, item_id))
        scheduled = self.schedule_review(
            item_id,
            rating=rating,
            graded_by=graded_by,
            answer=answer,
            duration_ms=duration_ms,
            now=now,
            session_id=session_id,
            card=read.card,
        )
        review_id = self._store.record_review(
            self.scope, scheduled.card, scheduled.review, read=read
        )
        return self._written(scheduled, review_id)

    def schedule_review(
        self,
        item_id: str,
        *,
        rating: Rating,
        graded_by: GradedBy,
        answer: str | None = None,
        duration_ms: int = 0,
        now: datetime,
        session_id: SessionId | None = None,
        card: CardRecord | None,
    ) -> ScheduledReview:
        """The item's card after the review and the review's log entry; nothing is written.

        Args as :meth:`record_review`'s; ``card`` is the stored card (None: none yet).

        Raises:
            SchedulingError: If ``now`` is naive or not UTC, or duration is negative.
        """
        given = _given(rating, graded_by, answer, duration_ms, now)
        moment = given.moment
        before = card or new_card(item_id)
        after = review_card(before, given.rating, now=moment, settings=self.settings)
        after = replace(after, version=before.version + 1)  # as stored once written
        interval_before: float | None = None
        if before.due is not None and before.last_review is not None:
            interval_before = (before.due - before.last_review) / timedelta(days=1)
        first_of_day = before.last_review is None or utc_day(before.last_review) != utc_day(moment)
        review = ReviewRecord(
            item_id=item_id,
            rating=int(given.rating),
            graded_by=given.graded_by.value,
            answer=given.answer,
            duration_ms=given.duration_ms,
            reviewed_at=moment,
            state_before=before.state,
            interval_before_days=interval_before,
            first_of_day=first_of_day,
            settings=self.settings.to_mapping(),
            session_id=session_id,
        )
        assert after.due is not None
        return ScheduledReview(given.rating, given.graded_by, card, after, review, after.due)

    def save_move(
        self,
        session: SavedSession,
        *,
        review: ScheduledReview | None = None,
        stored_moves: int | None = None,
    ) -> ReviewOutcome | None:
        """Save ``session`` after a move, with the review the move made (one transaction).

        The review is written only while the item's stored card is the one it was
        scheduled from; the stored session's last move records the review's id.

        Returns:
            What the review did; None without one.

        Raises:
            CardChanged: If the item's card changed since it was read (nothing written).
            StorageConflict: If the session moved on meanwhile (nothing written).
        """
        if review is None:
            self._store.put_active_session(self.scope, session, stored_moves=stored_moves)
            return None
        review_id = self._store.record_review(
            self.scope, review.card, review.review, read=ReadCard(review.read), session=session
        )
        return self._written(review, review_id)

    def _written(self, scheduled: ScheduledReview, review_id: int) -> ReviewOutcome:
        """The outcome of a review once stored; today's counts follow it."""
        review = scheduled.review
        moment = review.reviewed_at
        if self._known is not None:
            self._known.add(review.item_id)
        if self._today is not None and self._today[0] == utc_day(moment):
            day, new, learned = self._today
            self._today = (
                day,
                new + (review.state_before is CardState.NEW),
                learned + (review.state_before is CardState.REVIEW and review.first_of_day),
            )
        return ReviewOutcome(
            item_id=review.item_id,
            rating=scheduled.rating,
            graded_by=scheduled.graded_by,
            review_id=review_id,
            card=scheduled.card,
            previous_state=review.state_before,
            due=scheduled.due,
            interval_days=(scheduled.due - moment) / timedelta(days=1),
            card_before=scheduled.read,
        )

    def undo_review(
        self, review_id: int, *, card: CardRecord | None, session: SavedSession | None = None
    ) -> None:
        """Take back one review: delete it and put the item's card back as it was.

        Args:
            review_id: The review's log id (``ReviewOutcome.review_id``).
            card: The card before the review; None when the item had no card.
            session: The session in progress without the undone move (saved with it).

        Raises:
            StorageError: If the learner has no review with that id.
        """
        self._store.undo_review(self.scope, review_id, card=card, session=session)
        # Today's counts and the known ids may have changed: read them afresh.
        self._known = None
        self._today = None
