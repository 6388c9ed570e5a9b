"""An in-memory study store for service tests: the StudyStore contract without a database."""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

from sysdrill.errors import CardChanged, StorageConflict, StorageError
from sysdrill.study.card_figures import DAY_US, ForecastCard, SeenCard, epoch_us, forecast_card
from sysdrill.study.card_flags import CardFlags, is_held
from sysdrill.study.card_state import CardRecord, CardState, ReadCard
from sysdrill.study.ratings import Rating
from sysdrill.study.review_log import DAY_COUNTERS, DailyReviewStats, ReviewRecord, day_counts
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.user_state import (
    SessionId,
    SessionRecord,
    StudyScope,
    UserId,
    UserState,
    VaultId,
)

__all__ = ["MemoryStudyStore"]


class MemoryStudyStore:
    """A :class:`~sysdrill.study.store.StudyStore` kept in Python dictionaries."""

    def __init__(self) -> None:
        """Start empty."""
        self._users: dict[str, UserId] = {}
        self._cards: dict[StudyScope, dict[str, CardRecord]] = {}
        self._reviews: dict[StudyScope, list[ReviewRecord]] = {}
        self._settings: dict[UserId, dict[str, Any]] = {}
        self._sessions: dict[SessionId, tuple[StudyScope, SessionRecord]] = {}
        self._active: dict[SessionId, tuple[StudyScope, SavedSession]] = {}
        self._flags: dict[StudyScope, dict[str, CardFlags]] = {}
        self._next_review_id = 1
        self._closed = False

    def _check(self) -> None:
        if self._closed:
            raise StorageError("The study store is closed. Open it again with open_study().")

    def ensure_user(self, name: str, *, now: datetime) -> UserId:
        """Return the id of user ``name``, creating the user on first use."""
        self._check()
        if name not in self._users:
            self._users[name] = UserId(len(self._users) + 1)
        return self._users[name]

    def move_vault_state(self, user_id: UserId, *, source: VaultId, target: VaultId) -> bool:
        """Give the state of vault ``source`` to vault ``target`` unless it has some."""
        self._check()
        old, new = StudyScope(user_id, source), StudyScope(user_id, target)
        if self._cards.get(new) or self._reviews.get(new):
            return False
        cards, reviews = self._cards.pop(old, {}), self._reviews.pop(old, [])
        moved = bool(cards or reviews)
        self._cards[new], self._reviews[new] = cards, reviews
        flags = self._flags.pop(old, {})
        moved = moved or bool(flags)
        self._flags[new] = flags
        for key, (owner, record) in list(self._sessions.items()):
            if owner == old:
                self._sessions[key] = (new, record)
                moved = True
        for key, (holder, saved) in list(self._active.items()):
            if holder == old:
                self._active[key] = (new, saved)
        return moved

    def get_card(self, scope: StudyScope, item_id: str) -> CardRecord | None:
        """Return the card of ``item_id``, or None."""
        self._check()
        return self._cards.get(scope, {}).get(item_id)

    def cards_of(self, scope: StudyScope, item_ids: Collection[str]) -> dict[str, CardRecord]:
        """Return the stored cards of ``item_ids`` by item id."""
        self._check()
        cards = self._cards.get(scope, {})
        return {item_id: cards[item_id] for item_id in item_ids if item_id in cards}

    def iter_cards(self, scope: StudyScope) -> Iterator[CardRecord]:
        """Yield every card of the user, in item-id order."""
        self._check()
        cards = self._cards.get(scope, {})
        return iter([cards[key] for key in sorted(cards)])

    def studied_item_ids(self, scope: StudyScope) -> set[str]:
        """Return the ids of items whose card has left the NEW state."""
        self._check()
        cards = self._cards.get(scope, {}).values()
        return {card.item_id for card in cards if card.state is not CardState.NEW}

    def seen_cards(self, scope: StudyScope) -> list[SeenCard]:
        """Every card reviewed at least once, as plain numbers (any order)."""
        self._check()
        return [
            (
                card.item_id,
                int(card.state),
                card.stability_days,
                None if card.last_review is None else epoch_us(card.last_review),
                card.lapses,
            )
            for card in self._cards.get(scope, {}).values()
            if not card.never_seen
        ]

    def seen_counts(
        self, scope: StudyScope, item_ids: Collection[str], *, mastered_stability_days: float
    ) -> tuple[int, int]:
        """Cards of ``item_ids`` reviewed at least once, and how many of them are mastered."""
        self._check()
        seen = mastered = 0
        for card in self._cards.get(scope, {}).values():
            if card.never_seen or card.item_id not in item_ids:
                continue
            seen += 1
            mastered += (
                card.state is CardState.REVIEW
                and card.stability_days is not None
                and card.stability_days >= mastered_stability_days
            )
        return seen, mastered

    def forecast_cards(self, scope: StudyScope) -> list[ForecastCard]:
        """Every card past the NEW state, as plain numbers (any order)."""
        self._check()
        return [
            forecast_card(card)
            for card in self._cards.get(scope, {}).values()
            if card.state is not CardState.NEW
        ]

    def due_days(self, scope: StudyScope, *, before: datetime) -> dict[int, int]:
        """Cards past the NEW state falling due before ``before``, counted by due day."""
        self._check()
        counts: dict[int, int] = {}
        for card in self._cards.get(scope, {}).values():
            if card.state is CardState.NEW or card.due is None or card.due >= before:
                continue
            day = epoch_us(card.due) // DAY_US
            counts[day] = counts.get(day, 0) + 1
        return counts

    def due_cards(
        self, scope: StudyScope, *, due_by: datetime, offset: int, limit: int
    ) -> list[CardRecord]:
        """Return cards due at or before ``due_by``, earliest first (ties by item id)."""
        self._check()
        due = [
            card
            for card in self._cards.get(scope, {}).values()
            if card.due is not None and card.due <= due_by
        ]
        due.sort(key=lambda card: (card.due or due_by, card.item_id))
        return due[offset : offset + limit]

    def count_reviews_on(self, scope: StudyScope, day: date) -> tuple[int, int]:
        """Return (new items reviewed, first-of-day reviews of learned items) on a UTC day."""
        self._check()
        new = learned = 0
        for review in self._reviews.get(scope, []):
            if review.reviewed_at.astimezone(UTC).date() != day:
                continue
            if review.state_before is CardState.NEW:
                new += 1
            elif review.state_before is CardState.REVIEW and review.first_of_day:
                learned += 1
        return new, learned

    def record_review(
        self,
        scope: StudyScope,
        card: CardRecord,
        review: ReviewRecord,
        *,
        read: ReadCard | None = None,
        session: SavedSession | None = None,
    ) -> int:
        """Write the card (while it is ``read``), the review and ``session``: all or none."""
        self._check()
        if read is not None:
            stored = self._cards.get(scope, {}).get(card.item_id)
            expected = None if read.card is None else read.card.version
            if (None if stored is None else stored.version) != expected:
                raise CardChanged(
                    f"The card of {review.item_id} was changed by another review "
                    "meanwhile; nothing was written. Reload the session and rate it again."
                )
        if session is not None:
            self._check_revision(session)
        review_id = self._next_review_id
        self._next_review_id += 1
        stored_review = replace(
            review, review_id=review_id, settings=copy.deepcopy(review.settings)
        )
        self._reviews.setdefault(scope, []).append(stored_review)
        self._write_card(scope, card)
        if session is not None:
            self._save(scope, session.with_last_review(review_id), len(session.moves) - 1)
        return review_id

    def _write_card(self, scope: StudyScope, card: CardRecord) -> None:
        """Store ``card``, raising the stored version as every SQL card write does."""
        cards = self._cards.setdefault(scope, {})
        old = cards.get(card.item_id)
        cards[card.item_id] = replace(card, version=1 if old is None else old.version + 1)

    def iter_reviews(self, scope: StudyScope) -> Iterator[ReviewRecord]:
        """Yield the user's review log in the order it was written."""
        self._check()
        return iter(list(self._reviews.get(scope, [])))

    def item_reviews(self, scope: StudyScope, item_id: str) -> list[ReviewRecord]:
        """Return the reviews of one item in the order they were written."""
        self._check()
        return [review for review in self._reviews.get(scope, []) if review.item_id == item_id]

    def last_review(self, scope: StudyScope) -> ReviewRecord | None:
        """Return the review written last, or None when the log is empty."""
        self._check()
        reviews = self._reviews.get(scope, [])
        return reviews[-1] if reviews else None

    def items_reviewed_in_sessions(
        self, scope: StudyScope, *, kind: str, started_from: datetime, started_before: datetime
    ) -> set[str]:
        """Ids of items with a review from a session of ``kind`` started in the span."""
        self._check()
        sessions = {
            key
            for key, (owner, record) in self._sessions.items()
            if owner == scope
            and record.kind == kind
            and started_from <= record.started_at < started_before
        }
        return {
            review.item_id
            for review in self._reviews.get(scope, [])
            if review.session_id is not None and review.session_id in sessions
        }

    def get_card_flags(self, scope: StudyScope, item_id: str) -> CardFlags:
        """Return the item's flags (clear ones when none are stored)."""
        self._check()
        return self._flags.get(scope, {}).get(item_id, CardFlags(item_id))

    def put_card_flags(self, scope: StudyScope, flags: CardFlags) -> None:
        """Store ``flags`` in place of the item's (clear flags are forgotten)."""
        self._check()
        kept = self._flags.setdefault(scope, {})
        kept.pop(flags.item_id, None)
        if not flags.is_clear:
            kept[flags.item_id] = flags

    def held_item_ids(self, scope: StudyScope, *, now: datetime) -> set[str]:
        """Return the ids of items suspended, or buried past ``now`` (UTC)."""
        self._check()
        return {
            item_id
            for item_id, flags in self._flags.get(scope, {}).items()
            if is_held(flags, now=now)
        }

    def daily_stats(self, scope: StudyScope) -> list[DailyReviewStats]:
        """Return one aggregate row per UTC day that has reviews, oldest first."""
        self._check()
        days: dict[Any, dict[str, int]] = {}
        for review in self._reviews.get(scope, []):
            row = days.setdefault(
                review.reviewed_at.astimezone(UTC).date(), dict.fromkeys(DAY_COUNTERS, 0)
            )
            for key, value in day_counts(review).items():
                row[key] += value
        return [DailyReviewStats(day=day, **row) for day, row in sorted(days.items())]

    def rating_counts(self, scope: StudyScope, *, since: datetime) -> dict[str, tuple[int, int]]:
        """Reviews of each item in the log since ``since``, and how many were rated Again."""
        self._check()
        counts: dict[str, tuple[int, int]] = {}
        for review in self._reviews.get(scope, []):
            if review.reviewed_at < since:
                continue
            reviews, again = counts.get(review.item_id, (0, 0))
            counts[review.item_id] = (reviews + 1, again + (review.rating == int(Rating.AGAIN)))
        return counts

    def get_settings(self, user_id: UserId) -> dict[str, Any]:
        """Return the stored settings by key."""
        self._check()
        return copy.deepcopy(self._settings.get(user_id, {}))

    def put_settings(self, user_id: UserId, values: Mapping[str, Any]) -> None:
        """Store ``values`` by key."""
        self._check()
        self._settings.setdefault(user_id, {}).update(copy.deepcopy(dict(values)))

    def start_session(self, scope: StudyScope, session: SessionRecord) -> SessionId:
        """Store a new session and return its id."""
        self._check()
        session_id = SessionId(len(self._sessions) + 1)
        self._sessions[session_id] = (scope, replace(session, session_id=session_id))
        return session_id

    def finish_session(
        self, session_id: SessionId, *, ended_at: datetime, meta: Mapping[str, Any]
    ) -> None:
        """Mark a session ended and merge ``meta`` into its metadata."""
        self._check()
        if session_id not in self._sessions:
            raise StorageError(f"No session {session_id}. Start one with start_session().")
        scope, session = self._sessions[session_id]
        merged = {**session.meta, **copy.deepcopy(dict(meta))}
        self._sessions[session_id] = (scope, replace(session, ended_at=ended_at, meta=merged))

    def list_sessions(
        self, scope: StudyScope, *, kind: str | None = None, open_only: bool = False
    ) -> list[SessionRecord]:
        """Return the user's sessions, oldest first (of ``kind``, open only)."""
        self._check()
        return [
            s
            for key, (owner, s) in sorted(self._sessions.items())
            if owner == scope
            and (kind is None or s.kind == kind)
            and not (open_only and s.ended_at is not None)
        ]

    def undo_review(
        self,
        scope: StudyScope,
        review_id: int,
        *,
        card: CardRecord | None,
        session: SavedSession | None = None,
    ) -> None:
        """Delete one review, put the card as it was before it, and save ``session``."""
        self._check()
        log = self._reviews.get(scope, [])
        found = next((r for r in log if r.review_id == review_id), None)
        if found is None:
            raise StorageError(f"No review {review_id} to undo. Undo only a review just given.")
        if session is not None:
            self._check_revision(session)
        log.remove(found)
        cards = self._cards.setdefault(scope, {})
        if card is None:
            cards.pop(found.item_id, None)
        else:
            self._write_card(scope, card)
        if session is not None:
            self._save(scope, session, len(session.moves))

    def put_active_session(
        self, scope: StudyScope, session: SavedSession, *, stored_moves: int | None = None
    ) -> None:
        """Insert or update a session in progress (revision checked)."""
        self._check()
        self._check_revision(session)
        self._save(scope, session, stored_moves)

    def _check_revision(self, session: SavedSession) -> None:
        stored = self._active.get(session.session_id)
        expected = None if stored is None else stored[1].revision + 1
        if (stored is None and session.revision != 0) or (
            stored is not None
            and (session.revision != expected or session.started_at != stored[1].started_at)
        ):
            raise StorageConflict(
                f"Session {session.session_id} was moved on by another request; "
                "reload it and try again."
            )

    def _save(self, scope: StudyScope, session: SavedSession, stored_moves: int | None) -> None:
        """Store ``session``, keeping the first ``stored_moves`` moves as stored (as SQL does)."""
        stored = self._active.get(session.session_id)
        kept = 0 if stored is None or stored_moves is None else stored_moves
        moves = (*(() if stored is None else stored[1].moves[:kept]), *session.moves[kept:])
        self._active[session.session_id] = (scope, replace(session, moves=copy.deepcopy(moves)))

    def get_active_session(self, scope: StudyScope, session_id: int) -> SavedSession | None:
        """Return the user's session in progress with that id, or None."""
        self._check()
        stored = self._active.get(SessionId(session_id))
        return stored[1] if stored is not None and stored[0] == scope else None

    def active_session_stamp(
        self, scope: StudyScope, session_id: int
    ) -> tuple[int, datetime] | None:
        """Return (revision, started at) of the user's session in progress, or None."""
        found = self.get_active_session(scope, session_id)
        return None if found is None else (found.revision, found.started_at)

    def list_active_sessions(self, scope: StudyScope) -> list[SavedSession]:
        """Return the user's sessions in progress, the most recently moved first."""
        self._check()
        mine = [s for owner, s in self._active.values() if owner == scope]
        return sorted(mine, key=lambda s: (s.updated_at, s.session_id), reverse=True)

    def delete_active_session(self, scope: StudyScope, session_id: int) -> None:
        """Forget a session in progress."""
        self._check()
        stored = self._active.get(SessionId(session_id))
        if stored is not None and stored[0] == scope:
            del self._active[SessionId(session_id)]

    def replace_user_state(self, scope: StudyScope, state: UserState) -> None:
        """Replace all of the user's state at once."""
        self._check()
        for key in [k for k, (owner, _) in self._active.items() if owner == scope]:
            del self._active[key]
        for key in [k for k, (owner, _) in self._sessions.items() if owner == scope]:
            del self._sessions[key]
        new_ids = [self.start_session(scope, s) for s in state.sessions]
        self._cards[scope] = {card.item_id: replace(card, version=1) for card in state.cards}
        self._reviews[scope] = []
        for review in state.reviews:
            session = None if review.session_id is None else new_ids[review.session_id]
            self._reviews[scope].append(
                replace(review, review_id=self._next_review_id, session_id=session)
            )
            self._next_review_id += 1
        self._settings[scope.user_id] = copy.deepcopy(state.settings)

    def close(self) -> None:
        """Mark the store closed."""
        self._closed = True
