"""The study store interface: what the study service needs from persistence.

The study layer defines this protocol and the records it moves
(:mod:`~sysdrill.study.card_state`, :mod:`~sysdrill.study.review_log`,
:mod:`~sysdrill.study.user_state`); :mod:`sysdrill.storage` implements it, so
storage depends on study and not the other way round.

Implementations: :class:`~sysdrill.storage.sql_store.SqlStudyStore` (SQLite or
PostgreSQL through SQLAlchemy) and :class:`~sysdrill.storage.memory.MemoryStudyStore`
(for service tests). One contract test suite runs against all of them.
Every method that writes commits before it returns; a failure raises a
:class:`~sysdrill.errors.StorageError` and leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from datetime import date, datetime
from typing import Any, Protocol

from sysdrill.study.card_figures import ForecastCard, SeenCard
from sysdrill.study.card_flags import CardFlags
from sysdrill.study.card_state import CardRecord, ReadCard
from sysdrill.study.review_log import DailyReviewStats, ReviewRecord
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.user_state import (
    SessionId,
    SessionRecord,
    StudyScope,
    UserId,
    UserState,
    VaultId,
)

__all__ = ["StudyStore"]


class StudyStore(Protocol):
    """Persistence of users, card states, the review log, sessions and settings.

    Settings belong to the user; everything else is kept per vault, under a
    :class:`~sysdrill.study.user_state.StudyScope` (the user and the vault).

    Sessions in progress (:class:`~sysdrill.study.sessions.saved.SavedSession`)
    are kept beside the history of sessions, one row each until they finish.
    """

    def ensure_user(self, name: str, *, now: datetime) -> UserId:
        """Return the id of user ``name``, creating the user on first use."""
        ...

    def move_vault_state(self, user_id: UserId, *, source: VaultId, target: VaultId) -> bool:
        """Give the state of vault ``source`` to vault ``target``, all or nothing.

        Cards, reviews, review days, sessions, sessions in progress and card flags move. Nothing
        moves when ``target`` already has a card or a review (two histories are
        never merged).

        Returns:
            Whether anything moved.
        """
        ...

    def get_card(self, scope: StudyScope, item_id: str) -> CardRecord | None:
        """Return the card of ``item_id``, or None when the user never had one."""
        ...

    def cards_of(self, scope: StudyScope, item_ids: Collection[str]) -> dict[str, CardRecord]:
        """Return the stored cards of ``item_ids`` by item id (items without one are left out)."""
        ...

    def iter_cards(self, scope: StudyScope) -> Iterator[CardRecord]:
        """Yield every card of the user, in item-id order."""
        ...

    def studied_item_ids(self, scope: StudyScope) -> set[str]:
        """Return the ids of items whose card has left the NEW state."""
        ...

    def seen_cards(self, scope: StudyScope) -> list[SeenCard]:
        """Every card reviewed at least once (``never_seen`` false), as plain numbers.

        In any order; see :mod:`~sysdrill.study.card_figures` for the tuple. A store
        may give back the same list while the cards are unchanged: callers must not
        change it.
        """
        ...

    def seen_counts(
        self, scope: StudyScope, item_ids: Collection[str], *, mastered_stability_days: float
    ) -> tuple[int, int]:
        """Cards of ``item_ids`` reviewed at least once, and how many of those are mastered.

        Mastered: in the REVIEW state with a stability of at least
        ``mastered_stability_days`` (days). Cards of items outside ``item_ids``
        are not counted.

        Returns:
            (seen cards, mastered cards).
        """
        ...

    def forecast_cards(self, scope: StudyScope) -> list[ForecastCard]:
        """Every card past the NEW state, as plain numbers (any order).

        What the workload forecast simulates; see :mod:`~sysdrill.study.card_figures`.
        """
        ...

    def due_days(self, scope: StudyScope, *, before: datetime) -> dict[int, int]:
        """Cards past the NEW state with a due time before ``before``, counted by due day.

        Returns:
            Count of cards by the UTC day they are due, in days since 1970-01-01.
        """
        ...

    def due_cards(
        self, scope: StudyScope, *, due_by: datetime, offset: int, limit: int
    ) -> list[CardRecord]:
        """Return cards due at or before ``due_by``, earliest first (ties by item id).

        Args:
            scope: The user and the vault.
            due_by: Cut-off instant (UTC).
            offset: Rows to skip (for paging).
            limit: Rows to return at most.
        """
        ...

    def count_reviews_on(self, scope: StudyScope, day: date) -> tuple[int, int]:
        """Return (new items reviewed, first-of-day reviews of learned items) on a UTC day."""
        ...

    def record_review(
        self,
        scope: StudyScope,
        card: CardRecord,
        review: ReviewRecord,
        *,
        read: ReadCard | None = None,
        session: SavedSession | None = None,
    ) -> int:
        """Write a review in one transaction: the card's new state, the log entry, the day.

        Args:
            scope: The user and the vault.
            card: The card's new state.
            review: The review to append.
            read: The card the review was scheduled from, as read (``read.card`` None:
                none was stored): the card is written only while the stored one is
                still that one (its ``version``). None: written whatever is stored.
            session: The session in progress after the move that made the review
                (as :meth:`put_active_session`): its last move is stored with the
                review's id, in the same transaction.

        Returns:
            The review's log id (increasing).

        Raises:
            CardChanged: If the stored card is no longer ``read.card`` (nothing written).
            StorageConflict: If ``session`` was moved on meanwhile (nothing written).
        """
        ...

    def iter_reviews(self, scope: StudyScope) -> Iterator[ReviewRecord]:
        """Yield the user's review log in the order it was written."""
        ...

    def item_reviews(self, scope: StudyScope, item_id: str) -> list[ReviewRecord]:
        """Return the reviews of one item in the order they were written (its history)."""
        ...

    def last_review(self, scope: StudyScope) -> ReviewRecord | None:
        """Return the review written last, or None when the log is empty."""
        ...

    def items_reviewed_in_sessions(
        self, scope: StudyScope, *, kind: str, started_from: datetime, started_before: datetime
    ) -> set[str]:
        """Ids of items with a review in the log from a session of ``kind``.

        Only sessions started at or after ``started_from`` and before
        ``started_before`` (UTC) count, finished or in progress. A review taken
        back (:meth:`undo_review`) is no longer in the log, so its item no longer counts.
        """
        ...

    def get_card_flags(self, scope: StudyScope, item_id: str) -> CardFlags:
        """Return whether the item is suspended or buried (clear flags when neither)."""
        ...

    def put_card_flags(self, scope: StudyScope, flags: CardFlags) -> None:
        """Store ``flags`` in place of the item's, in one transaction.

        Clear flags are not kept. Flags move with the vault's state
        (:meth:`move_vault_state`); :meth:`replace_user_state` leaves them.
        """
        ...

    def held_item_ids(self, scope: StudyScope, *, now: datetime) -> set[str]:
        """Return the ids of items kept out of sessions at ``now``: suspended, or buried past it."""
        ...

    def daily_stats(self, scope: StudyScope) -> list[DailyReviewStats]:
        """Return one aggregate row per UTC day that has reviews, oldest first."""
        ...

    def rating_counts(self, scope: StudyScope, *, since: datetime) -> dict[str, tuple[int, int]]:
        """Reviews of each item in the log since ``since`` (UTC), and how many were rated Again.

        Every review counts, in learning as in review (a review taken back is gone).
        A store may give back the same mapping while the log is unchanged: callers
        must not change it.

        Returns:
            ``{item_id: (reviews, rated_again)}`` for each item with a review.
        """
        ...

    def get_settings(self, user_id: UserId) -> dict[str, Any]:
        """Return the stored settings (JSON values by key); missing keys are absent."""
        ...

    def put_settings(self, user_id: UserId, values: Mapping[str, Any]) -> None:
        """Store ``values`` (JSON-ready) by key, replacing those keys, in one transaction."""
        ...

    def start_session(self, scope: StudyScope, session: SessionRecord) -> SessionId:
        """Store a new session and return its id."""
        ...

    def finish_session(
        self, session_id: SessionId, *, ended_at: datetime, meta: Mapping[str, Any]
    ) -> None:
        """Mark a session ended and merge ``meta`` into its metadata."""
        ...

    def list_sessions(
        self, scope: StudyScope, *, kind: str | None = None, open_only: bool = False
    ) -> list[SessionRecord]:
        """Return the user's sessions, oldest first.

        Args:
            scope: The user and the vault.
            kind: Only sessions of this kind (``practice``, ``plan``...); None for all.
            open_only: Only sessions not ended.
        """
        ...

    def undo_review(
        self,
        scope: StudyScope,
        review_id: int,
        *,
        card: CardRecord | None,
        session: SavedSession | None = None,
    ) -> None:
        """Take back one review in one transaction: delete it and put ``card`` back.

        Args:
            scope: The user and the vault.
            review_id: The review's log id (as :meth:`record_review` returned it).
            card: The item's card before the review; None when it had none
                (the card row is removed).
            session: The session in progress without the move that made the review
                and those after it, saved in the same transaction (its moves are
                what stays of the stored ones).

        Raises:
            StorageError: If the user has no review with that id.
        """
        ...

    def put_active_session(
        self, scope: StudyScope, session: SavedSession, *, stored_moves: int | None = None
    ) -> None:
        """Insert or update a session in progress.

        ``session.revision`` must be 0 for a new session and one more than the
        stored revision for an update, with the stored start time (an update
        writes only the moves, position, revision and time of the last move).
        Each move is a row. ``stored_moves`` tells an update that the stored
        revision holds the first ``stored_moves`` of ``session.moves`` and no
        others, so only the rest are inserted (a move's save inserts one row);
        None when the caller does not know (the stored moves are replaced).

        Raises:
            StorageConflict: If the stored revision is not the one before (another
                request moved the session on); nothing is written.
        """
        ...

    def get_active_session(self, scope: StudyScope, session_id: int) -> SavedSession | None:
        """Return the user's session in progress with that id, or None."""
        ...

    def active_session_stamp(
        self, scope: StudyScope, session_id: int
    ) -> tuple[int, datetime] | None:
        """Return (revision, started at) of the user's session in progress, or None.

        What a worker holding the session's machine reads to know it is current:
        two small columns instead of the session's moves.
        """
        ...

    def list_active_sessions(self, scope: StudyScope) -> list[SavedSession]:
        """Return the user's sessions in progress, the most recently moved first."""
        ...

    def delete_active_session(self, scope: StudyScope, session_id: int) -> None:
        """Forget a session in progress (it finished); no error when absent."""
        ...

    def replace_user_state(self, scope: StudyScope, state: UserState) -> None:
        """Replace the scope's cards, reviews, sessions and the user's settings at once.

        Sessions in progress are dropped (their history records are replaced).

        Reviews refer to sessions by position in ``state.sessions`` (``session_id``
        is an index into that list, or None).
        """
        ...

    def close(self) -> None:
        """Release connections; the store must not be used afterwards."""
        ...
