"""Error messages shown to web users name no database host, port, URL or server folder."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from sysdrill import errors
from sysdrill.storage.translate import translate_errors
from sysdrill.web.app import create_app
from sysdrill.web.errors import public_message

from .conftest import NOW, TEST_HOSTS

UNREACHABLE = "postgresql+psycopg://sysdrill:s3cret@db-internal.example:6543/drill"


def _assert_hides(text: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in text, f"{secret!r} shown in {text!r}"


def test_an_unreachable_database_is_a_503_naming_no_host_or_port(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    app = create_app(
        db_url=UNREACHABLE.replace("db-internal.example", "127.0.0.1").replace("6543", "1"),
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=lambda: NOW,
        allowed_hosts=TEST_HOSTS,
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        for path in ("/api/dashboard", "/api/settings", "/"):
            response = client.get(path)
            assert response.status_code == 503, response.text
            _assert_hides(response.text, "127.0.0.1", "port 1", "postgresql", "s3cret", "sysdrill@")
            assert "the study database cannot be reached" in response.text


def test_a_sqlite_file_that_cannot_be_opened_is_a_503_naming_no_path(tmp_path: Path) -> None:
    folder = tmp_path / "private-server-folder"
    (folder / "study.sqlite3").mkdir(parents=True)  # a folder where the file should be
    app = create_app(
        db_url=f"sqlite:///{folder / 'study.sqlite3'}",
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=lambda: NOW,
        allowed_hosts=TEST_HOSTS,
    )
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/dashboard")
    assert response.status_code == 503, response.text
    _assert_hides(response.text, str(folder), "private-server-folder", "sqlite:")


def test_a_driver_failure_is_told_in_fixed_words_by_class() -> None:
    with pytest.raises(errors.StorageUnavailable) as caught:
        with translate_errors("reading the dashboard"):
            raise sa.exc.OperationalError(
                "SELECT 1",
                {},
                sqlite3.OperationalError(
                    'connection to server at "db-internal.example" (10.2.3.4), port 6543 failed'
                ),
            )
    shown = public_message(caught.value)
    _assert_hides(shown, "db-internal", "10.2.3.4", "6543")
    assert shown.startswith("the study database cannot be reached just now")


def test_a_storage_message_of_our_own_loses_the_database_address() -> None:
    error = errors.StorageUnavailable(
        "Cannot use the database URL postgresql+psycopg://sysdrill:***@db-internal.example:99999/"
        "drill: port 99999 is out of range."
    )
    _assert_hides(public_message(error), "db-internal", "99999", "sysdrill:***")


def test_other_messages_lose_the_servers_folders(tmp_path: Path) -> None:
    app = SimpleNamespace(
        state=SimpleNamespace(
            sysdrill=SimpleNamespace(
                vault=tmp_path / "vault", data_dir=tmp_path / "data", cache_dir=tmp_path / "c"
            )
        )
    )
    upload = tmp_path / "data" / "uploads" / "0123" / "deck.apkg"
    shown = public_message(errors.ImportFailed(f"cannot read '{upload}': truncated"), app)
    assert shown == "cannot read '…/uploads/0123/deck.apkg': truncated"
    elsewhere = public_message(errors.ContentInvalid("bad file /srv/sysdrill/vault/q/x.yaml"))
    assert elsewhere == "bad file …/x.yaml"
    # API paths and item ids in messages are kept.
    kept = "You have no personal deck named 'gpu'; GET /api/personal-decks lists yours."
    assert public_message(errors.DeckNotFound(kept), app) == kept
