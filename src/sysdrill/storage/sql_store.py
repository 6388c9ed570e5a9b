"""The study store on SQLAlchemy: a SQLite file by default, PostgreSQL by URL.

Opening a store neither migrates nor writes: it checks that the schema is at
this version's revision (once per engine) and raises :class:`MigrationError`
naming ``sysdrill db upgrade`` when it is behind. Every write method is one
transaction, committed before it returns. SQLite runs in WAL mode with
``synchronous=NORMAL``: a committed review survives the process being killed.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from datetime import UTC, date, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sysdrill.errors import StorageConflict, StorageError
from sysdrill.storage import schema as t
from sysdrill.storage.card_flag_store import CardFlagStore
from sysdrill.storage.engine import (
    HEAD_REVISION,
    MIGRATIONS_DIR,
    acquire_engine,
    check_schema,
    create_study_engine,
    migrate,
    safe_url,
    schema_revision,
)
from sysdrill.storage.progress_queries import ProgressQueries, unindexed
from sysdrill.storage.review_writes import ReviewWrites, review_row, settings_ids
from sysdrill.storage.sql_rows import (
    ACTIVE_SESSION_STAMP,
    CARD_COLUMNS,
    CARDS_OF_ITEMS,
    DAY_REVIEW_COUNTS,
    DUE_CARDS,
    GET_ACTIVE_SESSION,
    GET_CARD,
    GET_SETTINGS,
    INSERT_DAY,
    MOVES_OF_SESSION,
    STUDIED_IDS,
    USER_ID,
    card_record,
    card_row,
    of_scope,
    scope_params,
    session_record,
    utc,
)
from sysdrill.study.card_state import CardRecord, CardState
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

__all__ = ["MIGRATIONS_DIR", "SqlStudyStore", "create_study_engine", "migrate"]

_ITEMS_PER_QUERY = 500
"""Item ids bound in one ``IN`` list at most (SQLite allows some thousands of variables)."""


_REVIEWS_PER_READ = 20_000
"""Reviews read at a time by the review log's readers (a few megabytes of rows)."""


class SqlStudyStore(ReviewWrites, CardFlagStore, ProgressQueries):
    """A :class:`~sysdrill.study.store.StudyStore` over SQLAlchemy.

    Reviews' writes (:mod:`~sysdrill.storage.review_writes`), card flags
    (:mod:`~sysdrill.storage.card_flag_store`) and progress queries are mixed in.
    """

    def __init__(self, url: str, *, migrate_schema: bool = False) -> None:
        """Open the database at ``url`` on the process's engine for it.

        Args:
            url: SQLAlchemy URL (``sqlite:///file``, ``sqlite://`` in memory,
                ``postgresql+psycopg://...``).
            migrate_schema: Apply pending migrations first (``sysdrill db upgrade``
                does this; tests of a fresh database too).

        Raises:
            StorageUnavailable: If the database cannot be opened.
            MigrationError: If the schema is behind (and not migrated) or newer
                than this sysdrill, or a migration fails.
        """
        # EngineStore's opening, with the migration first on the same engine (an
        # in-memory SQLite engine is its own database).
        self.url = safe_url(url)
        self._url = url
        self._engine = acquire_engine(url)
        self._closed = False
        try:
            if migrate_schema and schema_revision(self._engine) != HEAD_REVISION:
                migrate(self._engine)
            check_schema(self._engine, url)
        except BaseException:
            self.close()
            raise
        self._settings_ids = settings_ids(self._engine)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (for tests and the benchmark)."""
        return self._engine

    # -- users and cards -------------------------------------------------------

    def ensure_user(self, name: str, *, now: datetime) -> UserId:
        """Return the id of user ``name``, creating the user on first use."""
        query = sa.select(t.users.c.id).where(t.users.c.name == name)
        with self._read(f"opening user {name!r}") as conn:
            known = conn.execute(USER_ID, {"b_name": name}).scalar()
        if known is not None:
            # Opening a known learner reads only: no write lock, no row written.
            return UserId(int(known))
        try:
            with self._write(f"opening user {name!r}") as conn:
                found = conn.execute(query).scalar()
                if found is None:
                    result = conn.execute(t.users.insert().values(name=name, created_at=now))
                    assert result.inserted_primary_key is not None
                    found = result.inserted_primary_key[0]
                return UserId(int(found))
        except StorageConflict:
            # Another connection created the user first (PostgreSQL does not
            # serialise the two inserts as SQLite's write lock does): use theirs.
            with self._read(f"opening user {name!r}") as conn:
                created = conn.execute(query).scalar()
            if created is None:
                raise
            return UserId(int(created))

    def move_vault_state(self, user_id: UserId, *, source: VaultId, target: VaultId) -> bool:
        """Give the state of vault ``source`` to vault ``target`` unless it has some."""
        old, new = StudyScope(user_id, source), StudyScope(user_id, target)
        # Asked on every open of a vault: answer "nothing to move" without a write lock.
        held = [
            sa.select(sa.literal(1)).where(of_scope(table, old)).limit(1)
            for table in (t.cards, t.reviews, t.sessions, t.card_flags)
        ]
        with self._read("opening the vault's study state") as conn:
            if all(conn.execute(query).first() is None for query in held):
                return False
        with self._write("opening the vault's study state") as conn:
            for table in (t.cards, t.reviews):
                taken = sa.select(sa.literal(1)).where(of_scope(table, new)).limit(1)
                if conn.execute(taken).first() is not None:
                    return False
            moved = 0
            moved_tables = (t.cards, t.reviews, t.review_days, t.sessions, t.active_sessions)
            for table in (*moved_tables, t.card_flags):
                moved += conn.execute(
                    table.update().where(of_scope(table, old)).values(vault_id=target)
                ).rowcount
            return moved > 0

    def get_card(self, scope: StudyScope, item_id: str) -> CardRecord | None:
        """Return the card of ``item_id``, or None."""
        params = {"b_user_id": scope.user_id, "b_vault_id": scope.vault_id, "b_item_id": item_id}
        with self._read("reading a card") as conn:
            row = conn.execute(GET_CARD, params).first()
        return None if row is None else card_record(row)

    def cards_of(self, scope: StudyScope, item_ids: Collection[str]) -> dict[str, CardRecord]:
        """Return the stored cards of ``item_ids`` by item id (items without one are left out)."""
        wanted = sorted(set(item_ids))
        found: dict[str, CardRecord] = {}
        with self._read("reading cards") as conn:
            for start in range(0, len(wanted), _ITEMS_PER_QUERY):
                params = {
                    **scope_params(scope),
                    "b_item_ids": wanted[start : start + _ITEMS_PER_QUERY],
                }
                for row in conn.execute(CARDS_OF_ITEMS, params):
                    record = card_record(row)
                    found[record.item_id] = record
        return found

    def iter_cards(self, scope: StudyScope) -> Iterator[CardRecord]:
        """Yield every card of the user in the vault, in item-id order."""
        query = sa.select(*CARD_COLUMNS).where(of_scope(t.cards, scope)).order_by(t.cards.c.item_id)
        with self._read("reading cards") as conn:
            rows = conn.execute(query).all()
        return iter([card_record(row) for row in rows])

    def studied_item_ids(self, scope: StudyScope) -> set[str]:
        """Return the ids of items whose card has left the NEW state."""
        with self._read("reading cards") as conn:
            found = conn.execute(STUDIED_IDS[conn.dialect.name], scope_params(scope)).scalar()
        if found is None:
            return set()
        return set(orjson.loads(found) if isinstance(found, str | bytes) else found)

    def due_cards(
        self, scope: StudyScope, *, due_by: datetime, offset: int, limit: int
    ) -> list[CardRecord]:
        """Return cards due at or before ``due_by``, earliest first (ties by item id)."""
        params = {"b_due_by": due_by, "b_offset": offset, "b_limit": limit, **scope_params(scope)}
        with self._read("finding due cards") as conn:
            return [card_record(row) for row in conn.execute(DUE_CARDS, params)]

    def count_reviews_on(self, scope: StudyScope, day: date) -> tuple[int, int]:
        """Return (new items reviewed, first-of-day reviews of learned items) on a UTC day.

        Read from the day's counters (one row), not by summing the day's reviews.
        """
        params = {"b_day": day, **scope_params(scope)}
        with self._read("counting the day's reviews") as conn:
            row = conn.execute(DAY_REVIEW_COUNTS, params).first()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def iter_reviews(self, scope: StudyScope) -> Iterator[ReviewRecord]:
        """Yield the user's review log in the order it was written."""
        # Read along the primary key: a learner is most of a study database's log.
        scanned = sa.and_(
            unindexed(t.reviews.c.user_id) == scope.user_id,
            unindexed(t.reviews.c.vault_id) == scope.vault_id,
        )
        return self._reviews_where(scanned)

    def item_reviews(self, scope: StudyScope, item_id: str) -> list[ReviewRecord]:
        """Return the reviews of one item in the order they were written."""
        mine = sa.and_(of_scope(t.reviews, scope), t.reviews.c.item_id == item_id)
        return list(self._reviews_where(mine))

    def last_review(self, scope: StudyScope) -> ReviewRecord | None:
        """Return the review written last (the highest id), or None when the log is empty."""
        newest = sa.select(sa.func.max(t.reviews.c.id)).where(of_scope(t.reviews, scope))
        return next(self._reviews_where(t.reviews.c.id == newest.scalar_subquery()), None)

    def items_reviewed_in_sessions(
        self, scope: StudyScope, *, kind: str, started_from: datetime, started_before: datetime
    ) -> set[str]:
        """Ids of items with a review from a session of ``kind`` started in the span."""
        r, s = t.reviews.c, t.sessions.c
        query = (
            sa.select(r.item_id)
            .distinct()
            .select_from(t.reviews.join(t.sessions, r.session_id == s.id))
            .where(
                of_scope(t.reviews, scope),
                # A session's reviews come after its start: this bound lets the
                # (user, reviewed_at) index skip the older log.
                r.reviewed_at >= started_from,
                s.kind == kind,
                s.started_at >= started_from,
                s.started_at < started_before,
            )
        )
        with self._read("reading the items reviewed in sessions") as conn:
            return {str(row[0]) for row in conn.execute(query)}

    def _reviews_where(self, condition: sa.ColumnElement[bool]) -> Iterator[ReviewRecord]:
        """The reviews ``condition`` selects, in id order, read a block at a time.

        A log of a million reviews read whole held every row at once (over a
        gigabyte in ``state export``). Each block is its own read after the last
        id of the one before, so no connection is held while the caller works.
        Each review's settings come from their own table, once per settings row.
        """
        r = t.reviews.c
        s = t.scheduler_settings.c
        query = (
            sa.select(
                r.id,
                r.item_id,
                r.rating,
                r.graded_by,
                r.answer,
                r.duration_ms,
                r.reviewed_at,
                r.state_before,
                r.interval_before_days,
                r.first_of_day,
                r.session_id,
                r.settings_id,
            )
            .where(condition)
            .order_by(r.id)
            .limit(_REVIEWS_PER_READ)
        )
        settings_of: dict[int, dict[str, Any]] = {}
        after = 0  # ids start at 1
        while True:
            with self._read("reading the review log") as conn:
                rows = conn.execute(query.where(r.id > after)).all()
                unread = {row.settings_id for row in rows} - settings_of.keys()
                if unread:
                    found = sa.select(s.id, s.settings_json).where(s.id.in_(unread))
                    settings_of.update((i, json.loads(text)) for i, text in conn.execute(found))
            for row in rows:
                yield ReviewRecord(
                    item_id=row.item_id,
                    rating=row.rating,
                    graded_by=row.graded_by,
                    answer=row.answer,
                    duration_ms=row.duration_ms,
                    reviewed_at=utc(row.reviewed_at) or datetime.min.replace(tzinfo=UTC),
                    state_before=CardState(row.state_before),
                    interval_before_days=row.interval_before_days,
                    first_of_day=bool(row.first_of_day),
                    settings=dict(settings_of[row.settings_id]),
                    session_id=row.session_id,
                    review_id=row.id,
                )
            if len(rows) < _REVIEWS_PER_READ:
                return
            after = rows[-1].id

    def daily_stats(self, scope: StudyScope) -> list[DailyReviewStats]:
        """Return one aggregate row per UTC day that has reviews, oldest first."""
        query = (
            sa.select(t.review_days.c.day, *(t.review_days.c[name] for name in DAY_COUNTERS))
            .where(of_scope(t.review_days, scope))
            .order_by(t.review_days.c.day)
        )
        with self._read("summarising the review log") as conn:
            rows = conn.execute(query).all()
        return [DailyReviewStats(row[0], *(int(value) for value in row[1:])) for row in rows]

    # -- settings and sessions -------------------------------------------------

    def get_settings(self, user_id: UserId) -> dict[str, Any]:
        """Return the stored settings by key."""
        with self._read("reading settings") as conn:
            rows = conn.execute(GET_SETTINGS, {"b_user_id": user_id})
            return {row.key: json.loads(row.value_json) for row in rows}

    def put_settings(self, user_id: UserId, values: Mapping[str, Any]) -> None:
        """Store ``values`` by key in one transaction."""
        with self._write("saving settings") as conn:
            self._put_settings(conn, user_id, values)

    @staticmethod
    def _put_settings(conn: Connection, user_id: int, values: Mapping[str, Any]) -> None:
        version = t.users.c.settings_version
        conn.execute(t.users.update().where(t.users.c.id == user_id).values({version: version + 1}))
        for key, value in values.items():
            conn.execute(
                t.settings.delete().where(t.settings.c.user_id == user_id, t.settings.c.key == key)
            )
            conn.execute(
                t.settings.insert().values(user_id=user_id, key=key, value_json=json.dumps(value))
            )

    def start_session(self, scope: StudyScope, session: SessionRecord) -> SessionId:
        """Store a new session and return its id."""
        with self._write("starting a session") as conn:
            return SessionId(self._insert_session(conn, scope, session))

    @staticmethod
    def _insert_session(conn: Connection, scope: StudyScope, session: SessionRecord) -> int:
        result = conn.execute(
            t.sessions.insert().values(
                user_id=scope.user_id,
                vault_id=scope.vault_id,
                kind=session.kind,
                started_at=session.started_at,
                ended_at=session.ended_at,
                meta_json=json.dumps(session.meta, sort_keys=True),
            )
        )
        assert result.inserted_primary_key is not None
        return int(result.inserted_primary_key[0])

    def finish_session(
        self, session_id: SessionId, *, ended_at: datetime, meta: Mapping[str, Any]
    ) -> None:
        """Mark a session ended and merge ``meta`` into its metadata."""
        with self._write("finishing a session") as conn:
            current = conn.execute(
                sa.select(t.sessions.c.meta_json).where(t.sessions.c.id == session_id)
            ).scalar()
            if current is None:
                raise StorageError(f"No session {session_id}. Start one with start_session().")
            merged = {**json.loads(current), **meta}
            conn.execute(
                t.sessions.update()
                .where(t.sessions.c.id == session_id)
                .values(ended_at=ended_at, meta_json=json.dumps(merged, sort_keys=True))
            )

    def list_sessions(
        self, scope: StudyScope, *, kind: str | None = None, open_only: bool = False
    ) -> list[SessionRecord]:
        """Return the user's sessions of the vault, oldest first (of ``kind``, open only)."""
        s = t.sessions.c
        query = sa.select(t.sessions).where(of_scope(t.sessions, scope)).order_by(s.id)
        if kind is not None:
            query = query.where(s.kind == kind)
        if open_only:
            query = query.where(s.ended_at.is_(None))
        with self._read("reading sessions") as conn:
            return [session_record(row) for row in conn.execute(query)]

    # -- sessions in progress --------------------------------------------------

    @staticmethod
    def _saved(row: Any, moves: list[Any]) -> SavedSession:
        return SavedSession(
            session_id=SessionId(row.session_id),
            kind=row.kind,
            options=orjson.loads(row.options_json),
            item_ids=tuple(orjson.loads(row.item_ids_json)),
            started_at=utc(row.started_at) or datetime.min.replace(tzinfo=UTC),
            updated_at=utc(row.updated_at) or datetime.min.replace(tzinfo=UTC),
            position=row.position,
            moves=tuple(orjson.loads(text) for text in moves),
            revision=row.revision,
        )

    def get_active_session(self, scope: StudyScope, session_id: int) -> SavedSession | None:
        """Return the user's session in progress with that id, or None."""
        params = {"b_session_id": session_id, **scope_params(scope)}
        with self._read("reading a session in progress") as conn:
            row = conn.execute(GET_ACTIVE_SESSION, params).first()
            if row is None:
                return None
            moves = conn.execute(MOVES_OF_SESSION, params).scalars().all()
        return self._saved(row, list(moves))

    def active_session_stamp(
        self, scope: StudyScope, session_id: int
    ) -> tuple[int, datetime] | None:
        """Return (revision, started at) of the user's session in progress, or None."""
        params = {"b_session_id": session_id, **scope_params(scope)}
        with self._read("reading a session in progress") as conn:
            row = conn.execute(ACTIVE_SESSION_STAMP, params).first()
        if row is None:
            return None
        started_at = utc(row.started_at)
        assert started_at is not None
        return int(row.revision), started_at

    def list_active_sessions(self, scope: StudyScope) -> list[SavedSession]:
        """Return the user's sessions in progress, the most recently moved first."""
        a = t.active_sessions.c
        query = (
            sa.select(t.active_sessions)
            .where(of_scope(t.active_sessions, scope))
            .order_by(a.updated_at.desc(), a.session_id.desc())
        )
        m = t.session_moves.c
        with self._read("reading sessions in progress") as conn:
            rows = conn.execute(query).all()
            ids = [row.session_id for row in rows]
            moves: dict[int, list[Any]] = {session_id: [] for session_id in ids}
            if ids:
                listed = sa.select(m.session_id, m.move_json).where(m.session_id.in_(ids))
                for session_id, text in conn.execute(listed.order_by(m.session_id, m.seq)):
                    moves[session_id].append(text)
        return [self._saved(row, moves[row.session_id]) for row in rows]

    def delete_active_session(self, scope: StudyScope, session_id: int) -> None:
        """Forget a session in progress."""
        a = t.active_sessions.c
        with self._write("closing a session in progress") as conn:
            mine = sa.select(a.session_id).where(
                a.session_id == session_id, of_scope(t.active_sessions, scope)
            )
            conn.execute(t.session_moves.delete().where(t.session_moves.c.session_id.in_(mine)))
            conn.execute(
                t.active_sessions.delete().where(
                    a.session_id == session_id, of_scope(t.active_sessions, scope)
                )
            )

    # -- import ----------------------------------------------------------------

    def replace_user_state(self, scope: StudyScope, state: UserState) -> None:
        """Replace the scope's state and the user's settings in one transaction."""
        with self._write("importing study state") as conn:
            theirs = sa.select(t.active_sessions.c.session_id).where(
                of_scope(t.active_sessions, scope)
            )
            conn.execute(t.session_moves.delete().where(t.session_moves.c.session_id.in_(theirs)))
            for table in (t.reviews, t.review_days, t.cards, t.active_sessions, t.sessions):
                conn.execute(table.delete().where(of_scope(table, scope)))
            conn.execute(t.settings.delete().where(t.settings.c.user_id == scope.user_id))
            session_ids = [self._insert_session(conn, scope, s) for s in state.sessions]
            if state.cards:
                conn.execute(t.cards.insert(), [card_row(scope, c) for c in state.cards])
            rows = []
            by_identity: dict[int, int] = {}
            for review in state.reviews:
                # Imported logs share a few settings dicts; hash each only once.
                settings_id = by_identity.get(id(review.settings))
                if settings_id is None:
                    settings_id = self._settings_id(conn, review.settings)
                    by_identity[id(review.settings)] = settings_id
                if review.session_id is not None:
                    review = _with_session(review, session_ids[review.session_id])
                rows.append(review_row(scope, review, settings_id))
            if rows:
                conn.execute(t.reviews.insert(), rows)
            days: dict[date, dict[str, int]] = {}
            for review in state.reviews:
                totals = days.setdefault(
                    review.reviewed_at.astimezone(UTC).date(), dict.fromkeys(DAY_COUNTERS, 0)
                )
                for key, value in day_counts(review).items():
                    totals[key] += value
            if days:
                conn.execute(
                    INSERT_DAY,
                    [
                        {"user_id": scope.user_id, "vault_id": scope.vault_id, "day": day, **totals}
                        for day, totals in days.items()
                    ],
                )
            self._put_settings(conn, scope.user_id, state.settings)
        self._settings_ids.clear()


def _with_session(review: ReviewRecord, session_id: int) -> ReviewRecord:
    from dataclasses import replace

    return replace(review, session_id=session_id)
