"""A unit of work: one transaction on one connection, begun lazily on PostgreSQL.

A session's save is the last write of a move. In a unit that wrote nothing before
it (an answer), PostgreSQL runs it on its own when the unit ends; anything the unit
does after it puts both in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from sysdrill.errors import StorageConflict
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.user_state import SessionId, SessionRecord, StudyScope, VaultId

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(sql_url: str) -> Iterator[SqlStudyStore]:
    opened = SqlStudyStore(sql_url)
    yield opened
    opened.close()


def _scope(store: SqlStudyStore) -> StudyScope:
    return StudyScope(store.ensure_user("learner", now=T0), VaultId("v"))


def _saved(session_id: SessionId, revision: int) -> SavedSession:
    moves = tuple(
        {"move": "skip", "value": None, "at": (T0 + timedelta(seconds=n)).isoformat()}
        for n in range(revision)
    )
    return SavedSession(
        session_id=session_id,
        kind="practice",
        options={},
        item_ids=("q1", "q2", "q3"),
        started_at=T0,
        updated_at=T0 + timedelta(seconds=revision),
        position=revision,
        moves=moves,
        revision=revision,
    )


def _started(store: SqlStudyStore, scope: StudyScope) -> SessionId:
    session_id = store.start_session(scope, SessionRecord("practice", T0))
    store.put_active_session(scope, _saved(session_id, 0))
    return session_id


def _review(item_id: str) -> tuple[CardRecord, ReviewRecord]:
    card = CardRecord(item_id, CardState.LEARNING, 0, 2.0, 5.0, T0, T0, 1, 0, False)
    review = ReviewRecord(
        item_id=item_id,
        rating=3,
        graded_by="self",
        answer=None,
        duration_ms=1000,
        reviewed_at=T0,
        state_before=CardState.NEW,
        interval_before_days=None,
        first_of_day=True,
        settings={"desired_retention": 0.9},
    )
    return card, review


def _in_transaction_at_save(store: SqlStudyStore) -> list[bool]:
    """Whether each UPDATE of the session ran inside a transaction (psycopg's view)."""
    seen: list[bool] = []

    def check(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.startswith("UPDATE active_sessions"):
            driver = conn.connection.driver_connection
            if conn.dialect.name == "sqlite":
                seen.append(driver.in_transaction)
            else:
                seen.append(not driver.autocommit)

    sa.event.listen(store.engine, "before_cursor_execute", check)
    return seen


def test_a_save_alone_in_a_unit_is_written_when_the_unit_ends(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    with store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))
    assert store.active_session_stamp(scope, session_id) == (1, T0)


def test_a_stale_save_alone_in_a_unit_fails_when_the_unit_ends(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    store.put_active_session(scope, _saved(session_id, 1))
    with pytest.raises(StorageConflict, match="moved on by another request"):
        with store.unit_of_work():
            store.put_active_session(scope, _saved(session_id, 1))
    assert store.active_session_stamp(scope, session_id) == (1, T0)


def test_a_unit_that_raises_after_its_save_writes_nothing(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    with pytest.raises(RuntimeError), store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))
        raise RuntimeError("the move failed after its save")
    assert store.active_session_stamp(scope, session_id) == (0, T0)


def test_a_read_after_the_save_sees_it_and_both_commit_together(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    with pytest.raises(RuntimeError), store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))
        assert store.active_session_stamp(scope, session_id) == (1, T0)
        raise RuntimeError("then the move failed")
    assert store.active_session_stamp(scope, session_id) == (0, T0)


def test_a_write_after_the_save_shares_its_transaction(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    store.put_active_session(scope, _saved(session_id, 1))
    with pytest.raises(StorageConflict), store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))  # stale
        store.record_review(scope, *_review("q1"))
    # The review went with the failed save.
    assert list(store.iter_reviews(scope)) == []


def test_a_review_then_a_failed_save_write_nothing(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    store.put_active_session(scope, _saved(session_id, 1))
    with pytest.raises(StorageConflict), store.unit_of_work():
        store.record_review(scope, *_review("q1"))
        store.put_active_session(scope, _saved(session_id, 1))  # stale
    assert list(store.iter_reviews(scope)) == []
    assert store.get_card(scope, "q1") is None


def test_only_a_save_alone_in_its_unit_runs_outside_a_transaction(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    in_transaction = _in_transaction_at_save(store)
    with store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))
    with store.unit_of_work():
        store.record_review(scope, *_review("q1"))
        store.put_active_session(scope, _saved(session_id, 2))
    store.put_active_session(scope, _saved(session_id, 3))
    if store.engine.dialect.name == "postgresql":
        assert in_transaction == [False, True, True]
    else:
        assert in_transaction == [True, True, True]  # SQLite keeps its write transactions


def test_connections_go_back_to_the_pool_making_transactions(store):
    scope = _scope(store)
    session_id = _started(store, scope)
    with store.unit_of_work():
        store.put_active_session(scope, _saved(session_id, 1))
    with pytest.raises(RuntimeError), store.unit_of_work():
        raise RuntimeError("a move that failed before writing")
    # Every pooled connection: a two-statement write still rolls back as one.
    with store.engine.connect() as conn:
        # psycopg's flag is a bool; sqlite3's (Python 3.12+) is -1 for its legacy control.
        assert getattr(conn.connection.driver_connection, "autocommit", False) is not True


def _rated(saved: SavedSession) -> SavedSession:
    move = {"move": "rate", "value": 3, "at": T0.isoformat(), "due": T0.isoformat()}
    later = T0 + timedelta(minutes=1)
    return replace(saved, updated_at=later, position=1, moves=(*saved.moves, move), revision=1)


def _sent_statements(store: SqlStudyStore) -> list[tuple[str, bool]]:
    """Each statement's first word, and whether it ran inside a transaction."""
    seen: list[tuple[str, bool]] = []

    def note(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        driver = conn.connection.driver_connection
        inside = driver.in_transaction if conn.dialect.name == "sqlite" else not driver.autocommit
        seen.append((statement.split(None, 1)[0].upper(), inside))

    sa.event.listen(store.engine, "before_cursor_execute", note)
    return seen


def test_a_review_and_its_save_are_written_in_one_transaction(store):
    scope = _scope(store)
    for item_id in ("q1", "q2"):  # the scheduler's settings stored, then known
        store.record_review(scope, *_review(item_id))
    session_id = _started(store, scope)
    card, review = _review("q3")
    sent = _sent_statements(store)
    with store.unit_of_work():
        rated = _rated(_saved(session_id, 0))
        review_id = store.record_review_with_save(
            scope, card, review, read=None, session=rated, stored_moves=0
        )
    assert review_id is not None
    if store.engine.dialect.name == "postgresql":
        # The review's one statement (card, log entry, day's counts), then the save.
        assert sent == [("WITH", True), ("UPDATE", True)]
    else:
        assert [word for word, _ in sent] == ["BEGIN", "INSERT", "INSERT", "INSERT", "UPDATE"]
    saved = store.get_active_session(scope, session_id)
    assert saved is not None and saved.moves[-1]["review_id"] == review_id
