"""Recording reviews: scheduling an item's next review and writing it, or taking it back.

Mixed into :class:`~sysdrill.study.service.StudyService`, the one entry point.
A review is written on its own (:meth:`ReviewRecording.record_review`), or
scheduled first and written with the save of the session move that made it
(:meth:`ReviewRecording.prepare_review`, :meth:`ReviewRecording.record_prepared_review`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from sysdrill.errors import CardChanged, SchedulingError
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.clock import require_utc, utc_day
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.scheduler import new_card, review_card
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.settings import StudySettings
from sysdrill.study.store import StudyStore
from sysdrill.study.user_state import SessionId, StudyScope

__all__ = ["PreparedReview", "ReadCard", "ReviewOutcome", "ReviewRecording"]


@dataclass(frozen=True, slots=True)
class ReadCard:
    """An item's card as read from the store earlier; ``card`` None: none was stored."""

    card: CardRecord | None


@dataclass(frozen=True, slots=True)
class PreparedReview:
    """A review scheduled but not yet written (:meth:`StudyService.prepare_review`)."""

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
                :meth:`cards_of`): the review is scheduled from it while the store
                still holds it, else from the card read afresh.

        Returns:
            The new card state and when the item is due next.

        Raises:
            SchedulingError: If ``now`` is naive or not UTC, or duration is negative.
            StorageError: If the review could not be written (nothing was written).
        """
        given = _given(rating, graded_by, answer, duration_ms, now)
        if read is not None:
            outcome = self._write_review(item_id, read.card, given, session_id, checked=True)
            if outcome is not None:
                return outcome
            # Another session of the learner reviewed the item since: read it afresh.
        found = self._store.get_card(self.scope, item_id)
        outcome = self._write_review(item_id, found, given, session_id, checked=False)
        assert outcome is not None
        return outcome

    def _write_review(
        self,
        item_id: str,
        found: CardRecord | None,
        given: _Given,
        session_id: SessionId | None,
        *,
        checked: bool,
    ) -> ReviewOutcome | None:
        prepared = self._prepare(item_id, found, given, session_id)
        if checked:
            written = self._store.record_checked_review(
                self.scope, prepared.card, prepared.review, read=found
            )
            if written is None:
                return None
            review_id = written
        else:
            review_id = self._store.record_review(self.scope, prepared.card, prepared.review)
        return self._written(prepared, review_id)

    def _prepare(
        self, item_id: str, found: CardRecord | None, given: _Given, session_id: SessionId | None
    ) -> PreparedReview:
        moment = given.moment
        before = found or new_card(item_id)
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
        return PreparedReview(given.rating, given.graded_by, found, after, review, after.due)

    def _written(self, prepared: PreparedReview, review_id: int) -> ReviewOutcome:
        """The outcome of a prepared review once stored; today's counts follow it."""
        review = prepared.review
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
            rating=prepared.rating,
            graded_by=prepared.graded_by,
            review_id=review_id,
            card=prepared.card,
            previous_state=review.state_before,
            due=prepared.due,
            interval_days=(prepared.due - moment) / timedelta(days=1),
            card_before=prepared.read,
        )

    def prepare_review(
        self,
        item_id: str,
        *,
        rating: Rating,
        graded_by: GradedBy,
        answer: str | None = None,
        duration_ms: int = 0,
        now: datetime,
        session_id: SessionId | None = None,
        read: ReadCard,
    ) -> PreparedReview:
        """Schedule a review from a card read earlier, to write with its session's save.

        Nothing is written: :meth:`record_prepared_review` writes it. Arguments as
        :meth:`record_review`'s.

        Raises:
            SchedulingError: If ``now`` is naive or not UTC, or duration is negative.
        """
        given = _given(rating, graded_by, answer, duration_ms, now)
        return self._prepare(item_id, read.card, given, session_id)

    def record_prepared_review(
        self, prepared: PreparedReview, *, session: SavedSession, stored_moves: int | None = None
    ) -> ReviewOutcome:
        """Write a prepared review and save ``session``, whose last move made it, at once.

        The stored session's last move records the review's id. All or nothing.

        Raises:
            CardChanged: If the item's card is no longer the one the review was
                scheduled from (nothing is written): schedule it again from the stored card.
            StorageConflict: If the session moved on (nothing is written): make the move
                again from the database.
        """
        review_id = self._store.record_review_with_save(
            self.scope,
            prepared.card,
            prepared.review,
            read=prepared.read,
            session=session,
            stored_moves=stored_moves,
        )
        if review_id is None:
            raise CardChanged(
                f"The card of {prepared.review.item_id} changed while it was reviewed; "
                "reload the session and try again."
            )
        return self._written(prepared, review_id)

    def undo_review(self, review_id: int, *, card: CardRecord | None) -> None:
        """Take back one review: delete it and put the item's card back as it was.

        Args:
            review_id: The review's log id (``ReviewOutcome.review_id``).
            card: The card before the review; None when the item had no card.

        Raises:
            StorageError: If the learner has no review with that id.
        """
        self._store.undo_review(self.scope, review_id, card=card)
        # Today's counts and the known ids may have changed: read them afresh.
        self._known = None
        self._today = None
