"""Moves of sessions look their login up in the database on every request.

Here the login is changed behind the server's back (as another worker or the
operator would: straight through the account service) and the next move must be
refused, or made on the changed login, with nothing written for a login that
ended. Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.app.accounts import open_accounts
from sysdrill.storage import schema
from sysdrill.web.auth import SESSION_COOKIE

from .conftest import make_app, with_csrf

PASSWORD = "correct horse battery"
_BODIES: dict[str, dict[str, Any]] = {
    "answer": {"text": "42"},
    "rate": {"rating": "good"},
    "chain": {"accept": False},
    "rubric": {"covered": [0]},
}


@pytest.fixture
def app(migrated_db_url: str, tmp_path: Path) -> FastAPI:
    return make_app(tmp_path, multi_user=True, db_url=migrated_db_url)


@pytest.fixture
def learner(app: FastAPI) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        assert client.post("/api/signup", json={"name": "kim", "password": PASSWORD}).is_success
        yield client


def _start(client: TestClient) -> dict[str, Any]:
    started = client.post(
        "/api/study/sessions", json={"kind": "practice", "deck": "sample-fundamentals"}
    )
    assert started.status_code == 200, started.text
    state: dict[str, Any] = started.json()
    assert state["session_id"] is not None
    return state


def _move(client: TestClient, state: dict[str, Any]) -> Any:
    """The move the session waits for (an answer, a flashcard's back, a rating, a chain's offer)."""
    if state["phase"] == "rate" and not state["revealed"]:
        return client.post(f"/api/study/sessions/{state['session_id']}/reveal")
    url = f"/api/study/sessions/{state['session_id']}/{state['phase']}"
    return client.post(url, json=_BODIES[state["phase"]])


def _reviewed_once(client: TestClient, state: dict[str, Any]) -> dict[str, Any]:
    """Answer and rate until one more review is written; the state after it."""
    done = state["done"]
    while state["done"] == done:
        moved = _move(client, state)
        assert moved.status_code == 200, moved.text
        state = moved.json()
    return state


def _stored(db_url: str) -> tuple[int, int]:
    """(reviews, the session's revision) as stored."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            reviews = conn.execute(sa.select(sa.func.count()).select_from(schema.reviews))
            revision = conn.execute(sa.select(schema.active_sessions.c.revision))
            return int(reviews.scalar_one()), int(revision.scalar_one())
    finally:
        engine.dispose()


def _token(client: TestClient) -> str:
    token = client.cookies.get(SESSION_COOKIE)
    assert token
    return token


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """The SQL of every statement any engine sends while the test runs."""
    sent: list[str] = []

    def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        sent.append(statement)

    sa.event.listen(sa.Engine, "before_cursor_execute", note)
    yield sent
    sa.event.remove(sa.Engine, "before_cursor_execute", note)


def test_a_move_looks_its_login_up_once(learner: TestClient, statements: list[str]) -> None:
    state = _start(learner)
    statements.clear()
    moved = _move(learner, state)
    assert moved.status_code == 200, moved.text
    on_logins = [sql for sql in statements if "login_sessions" in sql]
    assert len(on_logins) == 1
    assert on_logins[0].lstrip().upper().startswith("SELECT")


@pytest.mark.parametrize("how", ["logged-out", "disabled"])
def test_move_after_login_ended_elsewhere_is_refused_and_writes_nothing(
    learner: TestClient, migrated_db_url: str, how: str
) -> None:
    state = _reviewed_once(learner, _start(learner))
    before = _stored(migrated_db_url)
    with open_accounts(migrated_db_url) as accounts:
        if how == "disabled":
            accounts.set_disabled("kim")
        else:
            accounts.logout(_token(learner))
    for _ in range(2):
        refused = _move(learner, state)
        assert refused.status_code == 401, refused.text
        assert _stored(migrated_db_url) == before


def test_refusal_on_ended_login_is_401_not_the_moves_own_error(
    learner: TestClient, migrated_db_url: str
) -> None:
    _reviewed_once(learner, _start(learner))
    with open_accounts(migrated_db_url) as accounts:
        accounts.logout(_token(learner))
    missing = learner.post("/api/study/sessions/987654/answer", json={"text": "42"})
    assert missing.status_code == 401, missing.text


def test_missing_session_on_standing_login_is_still_404(learner: TestClient) -> None:
    _reviewed_once(learner, _start(learner))
    missing = learner.post("/api/study/sessions/987654/answer", json={"text": "42"})
    assert missing.status_code == 404, missing.text


def test_move_after_settings_changed_is_made(learner: TestClient, migrated_db_url: str) -> None:
    state = _reviewed_once(learner, _start(learner))
    changed = learner.put("/api/settings", json={"deadline": "2027-01-15"})
    assert changed.status_code == 200, changed.text
    reviews, revision = _stored(migrated_db_url)
    moved = _move(learner, state)
    assert moved.status_code == 200, moved.text
    assert _stored(migrated_db_url) == (reviews, revision + 1)


def test_move_after_logout_is_refused(learner: TestClient) -> None:
    state = _reviewed_once(learner, _start(learner))
    assert learner.post("/api/logout").is_success
    refused = _move(learner, state)
    assert refused.status_code == 401, refused.text


def test_stale_kept_session_on_standing_login_is_moved_again_from_the_database(
    learner: TestClient, migrated_db_url: str
) -> None:
    state = _reviewed_once(learner, _start(learner))
    engine = sa.create_engine(migrated_db_url)
    try:
        # Another worker moved the session on: the machine this one kept fell behind.
        with engine.begin() as conn:
            conn.execute(
                schema.active_sessions.update().values(
                    revision=schema.active_sessions.c.revision + 1
                )
            )
    finally:
        engine.dispose()
    reviews, revision = _stored(migrated_db_url)
    moved = _move(learner, state)
    assert moved.status_code == 200, moved.text
    assert _stored(migrated_db_url) == (reviews, revision + 1)


def test_page_move_is_made_and_refused_once_the_login_ended(
    learner: TestClient, migrated_db_url: str
) -> None:
    state = _start(learner)
    session_id = state["session_id"]
    phase = "reveal" if state["phase"] == "rate" and not state["revealed"] else state["phase"]
    form = {"answer": {"text": "42"}, "rate": {"rating": "good"}, "reveal": {}}[phase]
    moved = learner.post(f"/sessions/{session_id}/{phase}", data=form)
    assert moved.status_code == 200, moved.text
    before = _stored(migrated_db_url)
    with open_accounts(migrated_db_url) as accounts:
        accounts.logout(_token(learner))
    refused = learner.post(f"/sessions/{session_id}/skip", follow_redirects=False)
    assert refused.status_code in (302, 303), refused.text
    assert refused.headers["location"].startswith("/login")
    assert _stored(migrated_db_url) == before
