"""A worker keeps each learner's settings under the version their login lookup reads."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from sysdrill.app.accounts import open_accounts
from sysdrill.app.study import open_study
from sysdrill.study.user_state import UserState

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse battery staple"


@pytest.fixture
def db_url(migrated_db_url: str) -> str:
    return migrated_db_url


@contextmanager
def _settings_reads(engine: sa.Engine) -> Iterator[list[str]]:
    reads: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM settings" in statement:
            reads.append(statement)

    sa.event.listen(engine, "before_cursor_execute", seen)
    try:
        yield reads
    finally:
        sa.event.remove(engine, "before_cursor_execute", seen)


def _login(db_url: str) -> tuple[int, str]:
    """Alice's user id and a login token of hers."""
    with open_accounts(db_url) as accounts:
        account = accounts.add("alice", PASSWORD, now=NOW)
        login = accounts.login("alice", PASSWORD, address="10.0.0.1", now=NOW)
    return account.user_id, login.token


def _version(db_url: str, token: str) -> int:
    with open_accounts(db_url) as accounts:
        account = accounts.account_for_token(token, now=NOW)
    assert account is not None and account.settings_version is not None
    return account.settings_version


def _open(db_url: str, user_id: int, version: int) -> Any:
    return open_study(db_url, vault=None, user="alice", user_id=user_id, settings_version=version)


def test_settings_kept_at_the_login_s_version_are_not_read_again(db_url):
    user_id, token = _login(db_url)
    version = _version(db_url, token)
    with _open(db_url, user_id, version) as study:
        assert study.settings.desired_retention == pytest.approx(0.90)
    with _open(db_url, user_id, version) as study, _settings_reads(study.store.engine) as reads:
        assert study.settings.desired_retention == pytest.approx(0.90)
    assert reads == []


def test_a_change_of_settings_elsewhere_raises_the_version_and_is_read_afresh(db_url):
    user_id, token = _login(db_url)
    before = _version(db_url, token)
    with _open(db_url, user_id, before) as study:
        assert study.settings.desired_retention == pytest.approx(0.90)
    # Another worker (or the CLI) changes the settings.
    with open_study(db_url, vault=None, user="alice") as elsewhere:
        elsewhere.update_settings(desired_retention=0.85)
    after = _version(db_url, token)
    assert after > before
    with _open(db_url, user_id, after) as study:
        assert study.settings.desired_retention == pytest.approx(0.85)


def test_importing_study_state_raises_the_settings_version(db_url):
    user_id, token = _login(db_url)
    before = _version(db_url, token)
    with open_study(db_url, vault=None, user="alice") as study:
        study.store.replace_user_state(study.scope, UserState(settings={"desired_retention": 0.8}))
    after = _version(db_url, token)
    assert after > before
    with _open(db_url, user_id, after) as study:
        assert study.settings.desired_retention == pytest.approx(0.8)
