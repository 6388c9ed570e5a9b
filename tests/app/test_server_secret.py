"""The server's key: the operator's SYSDRILL_SECRET_KEY, else one kept in the database."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app.server_secret import configured_secret_key, server_secret
from sysdrill.app.study import upgrade_study_database
from sysdrill.errors import UsageError

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_study_database(url)
    return url


def test_without_the_variable_the_database_keeps_one_key(db_url: str) -> None:
    first = server_secret(db_url, now=NOW, environ={})
    assert len(first) >= 43
    assert server_secret(db_url, now=NOW, environ={}) == first


def test_the_variable_wins_over_the_database(db_url: str) -> None:
    key = "operator-chosen-key-of-forty-characters!"
    assert server_secret(db_url, now=NOW, environ={"SYSDRILL_SECRET_KEY": key}) == key.encode()


def test_a_short_variable_is_refused_with_the_fix() -> None:
    with pytest.raises(UsageError) as raised:
        configured_secret_key({"SYSDRILL_SECRET_KEY": "hunter2"})
    assert str(raised.value) == (
        "SYSDRILL_SECRET_KEY has 7 characters; set it to at least 32 random ones (such as "
        "the output of `python -c 'import secrets; print(secrets.token_urlsafe(32))'`), "
        "or unset it to keep a generated key in the database."
    )


def test_an_unset_or_empty_variable_configures_nothing() -> None:
    assert configured_secret_key({}) is None
    assert configured_secret_key({"SYSDRILL_SECRET_KEY": ""}) is None
