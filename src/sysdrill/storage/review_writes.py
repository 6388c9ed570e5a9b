"""Writing reviews: a review's card, its log entry and its day's counts, and undoing one.

Mixed into :class:`~sysdrill.storage.sql_store.SqlStudyStore`. A review is one
statement on PostgreSQL (data-modifying CTEs, ``sql_rows``), three on SQLite, in
one transaction either way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from sysdrill.errors import StorageError
from sysdrill.storage import schema as t
from sysdrill.storage.sql_rows import (
    BUMP_DAY,
    CHECKED_CARD_WRITES,
    INSERT_REVIEW,
    RECORD_CHECKED_REVIEW_POSTGRESQL,
    RECORD_REVIEW_POSTGRESQL,
    UPSERT_CARD,
    UPSERT_DAY,
    card_row,
    of_scope,
    scope_params,
    utc,
)
from sysdrill.storage.translate import translate_errors
from sysdrill.storage.unit_of_work import ConnectionHolder
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import ReviewRecord, day_counts
from sysdrill.study.user_state import StudyScope

__all__ = ["ReviewWrites", "day_row", "review_params", "review_row"]

_UNCHECKED = object()
"""Write the card whatever is stored (``record_review``), not only over the card read."""


def _settings_digest(settings: Mapping[str, Any]) -> tuple[str, str]:
    """The SHA-256 of the settings' JSON, and the JSON."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest(), text


def review_row(scope: StudyScope, review: ReviewRecord, settings_id: int) -> dict[str, Any]:
    """The ``reviews`` row of ``review`` in ``scope`` (its id left to the database)."""
    return {
        "user_id": scope.user_id,
        "vault_id": scope.vault_id,
        "item_id": review.item_id,
        "rating": review.rating,
        "graded_by": review.graded_by,
        "answer": review.answer,
        "duration_ms": review.duration_ms,
        "reviewed_at": review.reviewed_at,
        "review_day": review.reviewed_at.astimezone(UTC).date(),
        "state_before": int(review.state_before),
        "interval_before_days": review.interval_before_days,
        "first_of_day": review.first_of_day,
        "settings_id": settings_id,
        "session_id": review.session_id,
    }


def day_row(scope: StudyScope, review: ReviewRecord) -> dict[str, Any]:
    """What ``review`` adds to its UTC day's counters row."""
    day = review.reviewed_at.astimezone(UTC).date()
    row = {"user_id": scope.user_id, "vault_id": scope.vault_id, "day": day}
    return {**row, **day_counts(review)}


def review_params(
    scope: StudyScope, card: CardRecord, review: ReviewRecord, *, read: object, settings_id: int
) -> dict[str, Any]:
    """The bound values of a review's statement on PostgreSQL, by prefix.

    ``c_`` the card's new row, ``s_version`` the version of the card read (when
    ``read`` is one), ``d_`` the day's counts, ``r_`` the review's row.
    """
    params = {f"c_{k}": v for k, v in card_row(scope, card).items()}
    if isinstance(read, CardRecord):
        params["s_version"] = read.version
    params |= {f"d_{k}": v for k, v in day_row(scope, review).items()}
    params |= {f"r_{k}": v for k, v in review_row(scope, review, settings_id).items()}
    return params


class ReviewWrites(ConnectionHolder):
    """The review-writing methods of the SQL study store."""

    _settings_ids: dict[str, int]
    """Scheduler-settings ids by digest, shared by the stores of one engine."""

    def _settings_id(self, conn: Connection, settings: Mapping[str, Any]) -> int:
        digest, text = _settings_digest(settings)
        cached = self._settings_ids.get(digest)
        if cached is not None:
            return cached
        query = sa.select(t.scheduler_settings.c.id).where(t.scheduler_settings.c.digest == digest)
        found = conn.execute(query).scalar()
        if found is None:
            try:
                with conn.begin_nested():
                    result = conn.execute(
                        t.scheduler_settings.insert().values(digest=digest, settings_json=text)
                    )
            except sa.exc.IntegrityError:
                # Another worker stored the same settings first (PostgreSQL does not
                # serialise the two inserts as SQLite's write lock does): use theirs.
                found = conn.execute(query).scalar()
                if found is None:
                    raise
                return int(found)
            assert result.inserted_primary_key is not None
            # The id is only safe to cache once this transaction commits.
            return int(result.inserted_primary_key[0])
        self._settings_ids[digest] = int(found)
        return int(found)

    def _upsert_card(self, conn: Connection, scope: StudyScope, card: CardRecord) -> None:
        conn.execute(UPSERT_CARD[conn.dialect.name], card_row(scope, card))

    def record_review(self, scope: StudyScope, card: CardRecord, review: ReviewRecord) -> int:
        """Write the card's new state and append ``review`` in one transaction."""
        review_id = self._record(scope, card, review, read=_UNCHECKED)
        assert review_id is not None
        return review_id

    def record_checked_review(
        self, scope: StudyScope, card: CardRecord, review: ReviewRecord, *, read: CardRecord | None
    ) -> int | None:
        """Like :meth:`record_review`, only while the stored card is still ``read``.

        ``read`` is the card as it was read before the review (None: no card was
        stored). Returns None, having written nothing, when the stored card is no
        longer that one.
        """
        return self._record(scope, card, review, read=read)

    def _record(
        self, scope: StudyScope, card: CardRecord, review: ReviewRecord, *, read: object
    ) -> int | None:
        with translate_errors(f"recording a review of {review.item_id}"):
            with self._write() as conn:
                settings_id = self._settings_id(conn, review.settings)
                if conn.dialect.name == "postgresql":
                    # One round trip for the three writes (sql_rows.RECORD_REVIEW_POSTGRESQL).
                    params = review_params(scope, card, review, read=read, settings_id=settings_id)
                    if read is _UNCHECKED:
                        return int(conn.execute(RECORD_REVIEW_POSTGRESQL, params).scalar_one())
                    checked = RECORD_CHECKED_REVIEW_POSTGRESQL["first" if read is None else "later"]
                    found = conn.execute(checked, params).scalar()
                    return None if found is None else int(found)
                if read is _UNCHECKED:
                    self._upsert_card(conn, scope, card)
                else:
                    card_params = {f"c_{k}": v for k, v in card_row(scope, card).items()}
                    if isinstance(read, CardRecord):
                        card_params["s_version"] = read.version
                    first, later = CHECKED_CARD_WRITES[conn.dialect.name]
                    written = conn.execute(first if read is None else later, card_params)
                    if written.first() is None:
                        return None
                result = conn.execute(INSERT_REVIEW, review_row(scope, review, settings_id))
                conn.execute(UPSERT_DAY[conn.dialect.name], day_row(scope, review))
                assert result.inserted_primary_key is not None
                return int(result.inserted_primary_key[0])

    def undo_review(self, scope: StudyScope, review_id: int, *, card: CardRecord | None) -> None:
        """Delete one review, put the card back and take it off its day's counters."""
        r = t.reviews.c
        with translate_errors("undoing a review"), self._write() as conn:
            row = conn.execute(
                sa.select(
                    r.item_id,
                    r.rating,
                    r.graded_by,
                    r.duration_ms,
                    r.reviewed_at,
                    r.state_before,
                    r.interval_before_days,
                    r.first_of_day,
                ).where(r.id == review_id, of_scope(t.reviews, scope))
            ).first()
            if row is None:
                raise StorageError(f"No review {review_id} to undo. Undo only a review just given.")
            review = ReviewRecord(
                item_id=row.item_id,
                rating=row.rating,
                graded_by=row.graded_by,
                answer=None,
                duration_ms=row.duration_ms,
                reviewed_at=utc(row.reviewed_at) or datetime.min.replace(tzinfo=UTC),
                state_before=CardState(row.state_before),
                interval_before_days=row.interval_before_days,
                first_of_day=bool(row.first_of_day),
                settings={},
            )
            conn.execute(t.reviews.delete().where(r.id == review_id))
            counts = {key: -value for key, value in day_counts(review).items()}
            params: dict[str, Any] = {f"d_{k}": v for k, v in counts.items()}
            params.update(scope_params(scope), b_day=review.reviewed_at.astimezone(UTC).date())
            conn.execute(BUMP_DAY, params)
            if card is None:
                mine = sa.and_(of_scope(t.cards, scope), t.cards.c.item_id == row.item_id)
                conn.execute(t.cards.delete().where(mine))
            else:
                self._upsert_card(conn, scope, card)
