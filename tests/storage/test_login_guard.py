"""A store opened with a login guard confirms the login before any write commits.

Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from sysdrill.app.accounts import LoginSession, open_accounts, token_digest
from sysdrill.errors import LoginChanged
from sysdrill.storage import schema
from sysdrill.storage.login_guard import LoginGuard
from sysdrill.storage.precompiled import DRIVER_CACHED_LENGTH, DRIVER_CACHED_VALUES
from sysdrill.storage.sql_store import SqlStudyStore
from sysdrill.study.card_state import CardRecord, CardState
from sysdrill.study.review_log import ReviewRecord
from sysdrill.study.sessions.saved import SavedSession
from sysdrill.study.user_state import SessionRecord, StudyScope, VaultId

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def login(migrated_db_url: str) -> LoginSession:
    with open_accounts(migrated_db_url) as accounts:
        account = accounts.add("lee", "correct horse battery", now=NOW)
        return accounts.start_session(account, now=NOW)


def _guard(login: LoginSession, *, settings_version: int = 0, now: datetime = NOW) -> LoginGuard:
    return LoginGuard(
        token_sha256=token_digest(login.token),
        user_id=login.account.user_id,
        settings_version=settings_version,
        deck_version=0,
        now=now,
    )


@pytest.fixture
def store_of(migrated_db_url: str) -> Iterator[type[SqlStudyStore]]:
    opened: list[SqlStudyStore] = []

    class Opened(SqlStudyStore):
        def __init__(self, url: str, *, login_guard: LoginGuard | None = None) -> None:
            super().__init__(url, login_guard=login_guard)
            opened.append(self)

    yield Opened
    for store in opened:
        store.close()


def _has_user(db_url: str, name: str) -> bool:
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(sa.select(schema.users.c.id).where(schema.users.c.name == name))
            return found.first() is not None
    finally:
        engine.dispose()


def test_write_on_standing_login_confirms_it(
    migrated_db_url: str, login: LoginSession, store_of: type[SqlStudyStore]
) -> None:
    guard = _guard(login)
    store = store_of(migrated_db_url, login_guard=guard)
    with store.unit_of_work():
        store.ensure_user("newcomer", now=NOW)
    assert guard.confirmed
    assert _has_user(migrated_db_url, "newcomer")


def test_write_on_ended_login_raises_and_rolls_back(
    migrated_db_url: str, login: LoginSession, store_of: type[SqlStudyStore]
) -> None:
    with open_accounts(migrated_db_url) as accounts:
        accounts.logout(login.token)
    guard = _guard(login)
    store = store_of(migrated_db_url, login_guard=guard)
    with pytest.raises(LoginChanged), store.unit_of_work():
        store.ensure_user("newcomer", now=NOW)
    with pytest.raises(LoginChanged):
        store.ensure_user("outside-a-unit", now=NOW)
    assert not guard.confirmed
    assert not _has_user(migrated_db_url, "newcomer")
    assert not _has_user(migrated_db_url, "outside-a-unit")


@pytest.mark.parametrize(
    "changed",
    [
        {"settings_version": 7},
        {"now": NOW + timedelta(days=400)},
    ],
    ids=["settings-moved-on", "expired"],
)
def test_write_on_login_not_as_kept_raises(
    migrated_db_url: str,
    login: LoginSession,
    store_of: type[SqlStudyStore],
    changed: dict[str, object],
) -> None:
    guard = _guard(login, **changed)  # type: ignore[arg-type]
    store = store_of(migrated_db_url, login_guard=guard)
    with pytest.raises(LoginChanged), store.unit_of_work():
        store.ensure_user("newcomer", now=NOW)
    assert not _has_user(migrated_db_url, "newcomer")


def test_disabled_account_fails_the_guard(
    migrated_db_url: str, login: LoginSession, store_of: type[SqlStudyStore]
) -> None:
    with open_accounts(migrated_db_url) as accounts:
        accounts.set_disabled("lee")
    store = store_of(migrated_db_url, login_guard=_guard(login))
    with pytest.raises(LoginChanged):
        store.ensure_user("newcomer", now=NOW)


def _session_started(store: SqlStudyStore, login: LoginSession) -> tuple[StudyScope, int]:
    """The login's scope and a session it started over the one item q1."""
    scope = StudyScope(login.account.user_id, VaultId("v"))
    session_id = store.start_session(scope, SessionRecord("practice", NOW))
    store.put_active_session(scope, SavedSession(session_id, "practice", {}, ("q1",), NOW, NOW))
    return scope, session_id


def test_review_with_save_on_ended_login_raises_and_writes_nothing(
    migrated_db_url: str, login: LoginSession, store_of: type[SqlStudyStore]
) -> None:
    plain = store_of(migrated_db_url)
    scope, session_id = _session_started(plain, login)
    card = CardRecord("q1", CardState.LEARNING, 0, 2.5, 5.0, NOW, NOW, 1, 0, False)
    review = ReviewRecord("q1", 3, "self", None, 900, NOW, CardState.NEW, None, True, {})
    for _ in range(2):  # the scheduler's settings stored, then known
        plain.record_review(scope, card, review)
    with open_accounts(migrated_db_url) as accounts:
        accounts.logout(login.token)
    store = store_of(migrated_db_url, login_guard=_guard(login))
    move = {"move": "rate", "value": 3, "at": NOW.isoformat(), "due": NOW.isoformat()}
    moved = SavedSession(session_id, "practice", {}, ("q1",), NOW, NOW, 1, (move,), 1)
    with pytest.raises(LoginChanged), store.unit_of_work():
        store.record_review_with_save(scope, card, review, read=card, session=moved, stored_moves=0)
    assert len(list(plain.iter_reviews(scope))) == 2
    assert plain.active_session_stamp(scope, session_id) == (0, NOW)


def test_ratings_with_their_saves_are_sent_short_enough_for_the_driver_to_keep(
    migrated_db_url: str, login: LoginSession, store_of: type[SqlStudyStore]
) -> None:
    plain = store_of(migrated_db_url)
    scope, session_id = _session_started(plain, login)
    store = store_of(migrated_db_url, login_guard=_guard(login))
    sizes: list[tuple[int, int]] = []

    def note(_conn: object, _cursor: object, statement: str, params: object, *_: object) -> None:
        if statement.startswith("WITH"):
            sizes.append((len(statement.encode()), len(params)))  # type: ignore[arg-type]

    sa.event.listen(store.engine, "before_cursor_execute", note)
    read = None
    moves: tuple[dict[str, object], ...] = ()
    for step in range(1, 4):  # a new card, then the card read each time after
        at = NOW + timedelta(minutes=step)
        card = CardRecord("q1", CardState.LEARNING, 0, 2.5, 5.0, at, at, step, 0, False)
        before = CardState.NEW if read is None else CardState.LEARNING
        review = ReviewRecord(
            "q1", 3, "self", None, 900, at, before, None, True, session_id=session_id
        )
        moves = (*moves, {"move": "rate", "value": 3, "at": at.isoformat(), "review_id": None})
        moved = SavedSession(session_id, "practice", {}, ("q1",), NOW, at, step, moves, step)
        with store.unit_of_work():
            review_id = store.record_review_with_save(
                scope, card, review, read=read, session=moved, stored_moves=step - 1
            )
        assert review_id is not None
        moves = moved.with_last_review(review_id).moves
        read = card
    assert plain.get_active_session(scope, session_id) == moved.with_last_review(review_id)
    assert len(list(plain.iter_reviews(scope))) == 3
    if store.engine.dialect.name == "postgresql":
        # Each rating is one statement, whose placeholders psycopg converts once and keeps.
        assert len(sizes) == 3
        assert all(
            length <= DRIVER_CACHED_LENGTH and values <= DRIVER_CACHED_VALUES
            for length, values in sizes
        ), sizes
