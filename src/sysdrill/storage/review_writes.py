"""Writing reviews and session moves: each a plain transaction of plain statements.

Mixed into :class:`~sysdrill.storage.sql_store.SqlStudyStore`. A review writes its
card (only while the stored card is the one it was scheduled from, when the caller
says which: the card's ``version``), its log entry, its day's counts and, when it was
made in a session, the session's move, all in one ``engine.begin()`` transaction.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sysdrill.errors import CardChanged, StorageConflict, StorageError
from sysdrill.storage import schema as t
from sysdrill.storage.engine_store import EngineStore
from sysdrill.storage.sql_rows import (
    BUMP_DAY,
    CHECKED_CARD_WRITES,
    INSERT_ACTIVE_SESSION,
    INSERT_MOVES,
    INSERT_REVIEW,
    SAVE_ACTIVE_SESSION,
    UPSERT_CARD,
    UPSERT_DAY,
    card_row,
    json_text,
    of_scope,
    scope_params,
    utc,
)
from sysdrill.study.card_state import CardRecord, CardState, ReadCard
from sysdrill.study.review_log import ReviewRecord, day_counts
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.user_state import StudyScope

__all__ = ["ReviewWrites", "day_row", "review_row", "settings_ids"]

_ids_by_engine: weakref.WeakKeyDictionary[Engine, dict[str, int]] = weakref.WeakKeyDictionary()
_ids_lock = threading.Lock()


def settings_ids(engine: Engine) -> dict[str, int]:
    """Scheduler-settings ids by digest, kept as long as ``engine``.

    A digest's id, once committed, never changes: every store on the engine shares
    them (a dict's single get and set are atomic under threads).
    """
    with _ids_lock:
        found = _ids_by_engine.get(engine)
        if found is None:
            found = _ids_by_engine[engine] = {}
        return found


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


def _conflict(session: SavedSession) -> StorageConflict:
    return StorageConflict(
        f"Session {session.session_id} was moved on by another request; reload it and try again."
    )


class ReviewWrites(EngineStore):
    """The review- and move-writing methods of the SQL study store."""

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
            # The id is only safe to keep once this transaction commits.
            return int(result.inserted_primary_key[0])
        self._settings_ids[digest] = int(found)
        return int(found)

    def _write_card(self, conn: Connection, scope: StudyScope, card: CardRecord) -> None:
        conn.execute(UPSERT_CARD[conn.dialect.name], card_row(scope, card))

    def record_review(
        self,
        scope: StudyScope,
        card: CardRecord,
        review: ReviewRecord,
        *,
        read: ReadCard | None = None,
        session: SavedSession | None = None,
    ) -> int:
        """Write a review: its card, log entry and day's counts, and its session's move.

        One transaction. With ``read`` (the card the review was scheduled from) the
        card is written only while the stored card is still that one: its version.
        With ``session`` (the session after the move that made the review) the move
        is stored with the review's id, and the session's revision checked.

        Raises:
            CardChanged: If the stored card is no longer ``read.card``.
            StorageConflict: If the session was moved on meanwhile.
        """
        with self._write(f"recording a review of {review.item_id}") as conn:
            if read is None:
                self._write_card(conn, scope, card)
            else:
                first, later = CHECKED_CARD_WRITES[conn.dialect.name]
                params = {f"c_{k}": v for k, v in card_row(scope, card).items()}
                if read.card is not None:
                    params["s_version"] = read.card.version
                written = conn.execute(first if read.card is None else later, params)
                if written.first() is None:
                    raise CardChanged(
                        f"The card of {review.item_id} was changed by another review "
                        "meanwhile; nothing was written. Reload the session and rate it again."
                    )
            settings_id = self._settings_id(conn, review.settings)
            result = conn.execute(INSERT_REVIEW, review_row(scope, review, settings_id))
            conn.execute(UPSERT_DAY[conn.dialect.name], day_row(scope, review))
            assert result.inserted_primary_key is not None
            review_id = int(result.inserted_primary_key[0])
            if session is not None:
                stored = len(session.moves) - 1
                self._save_session(conn, scope, session.with_last_review(review_id), stored)
            return review_id

    def put_active_session(
        self, scope: StudyScope, session: SavedSession, *, stored_moves: int | None = None
    ) -> None:
        """Insert or update a session in progress, refusing a stale revision (one transaction).

        See :meth:`_save_session` for ``stored_moves``.
        """
        with self._write("saving a session in progress") as conn:
            self._save_session(conn, scope, session, stored_moves)

    def _save_session(
        self, conn: Connection, scope: StudyScope, session: SavedSession, stored_moves: int | None
    ) -> None:
        """Insert or update the session and its moves on ``conn``.

        ``stored_moves``: the stored revision holds the first ``stored_moves`` of
        ``session.moves`` and no others, so only the rest are inserted (None: every
        stored move is replaced).

        Raises:
            StorageConflict: If the stored revision is not ``session.revision - 1``.
        """
        if session.revision == 0:
            row = {
                "session_id": session.session_id,
                "user_id": scope.user_id,
                "vault_id": scope.vault_id,
                "kind": session.kind,
                "options_json": json_text(session.options),
                "item_ids_json": json_text(session.item_ids),
                "started_at": session.started_at,
                "position": session.position,
                "revision": session.revision,
                "updated_at": session.updated_at,
            }
            if conn.execute(INSERT_ACTIVE_SESSION[conn.dialect.name], row).first() is None:
                raise _conflict(session)
        else:
            params = {
                "m_position": session.position,
                "m_revision": session.revision,
                "m_updated_at": session.updated_at,
                **scope_params(scope),
                "b_session_id": session.session_id,
                "b_revision": session.revision - 1,
                "b_started_at": session.started_at,
            }
            if conn.execute(SAVE_ACTIVE_SESSION, params).rowcount != 1:
                raise _conflict(session)
            if stored_moves is None:
                self._take_back_moves(conn, session, 0)
        kept = stored_moves or 0
        rows = [
            {"session_id": session.session_id, "seq": seq, "move_json": json_text(move)}
            for seq, move in enumerate(session.moves[kept:], start=kept)
        ]
        if rows:
            conn.execute(INSERT_MOVES, rows)

    @staticmethod
    def _take_back_moves(conn: Connection, session: SavedSession, first: int) -> None:
        """Delete the session's stored moves from the ``first``-th on."""
        m = t.session_moves.c
        conn.execute(
            t.session_moves.delete().where(m.session_id == session.session_id, m.seq >= first)
        )

    def undo_review(
        self,
        scope: StudyScope,
        review_id: int,
        *,
        card: CardRecord | None,
        session: SavedSession | None = None,
    ) -> None:
        """Delete one review, put the card back, take it off its day's counters.

        With ``session`` (the session without the undone move and those after it)
        the session is saved in the same transaction.
        """
        r = t.reviews.c
        with self._write("undoing a review") as conn:
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
                self._write_card(conn, scope, card)
            if session is not None:
                self._save_session(conn, scope, session, len(session.moves))
                self._take_back_moves(conn, session, len(session.moves))
