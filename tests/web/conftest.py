"""Web app fixtures: one app per session on a migrated SQLite file, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.storage.engine import upgrade_database
from sysdrill.web.app import create_app

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
"""The clock of every test app."""


def make_app(root: Path, *, vault: Path | None = None) -> FastAPI:
    """A web app whose database, cache and data folders live under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    db_url = f"sqlite:///{root / 'study.sqlite3'}"
    upgrade_database(db_url)
    return create_app(
        vault=vault,
        db_url=db_url,
        cache_dir=root / "cache",
        data_dir=root / "data",
        clock=lambda: NOW,
    )


@pytest.fixture(scope="session")
def web_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app over the sample vault, shared by the tests that only read."""
    return make_app(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="session")
def client(web_app: FastAPI) -> Iterator[TestClient]:
    """A client of :func:`web_app` that returns 500 responses instead of raising."""
    with TestClient(web_app, raise_server_exceptions=False) as found:
        yield found


@pytest.fixture
def fresh_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app with its own empty database, for tests that write."""
    with TestClient(make_app(tmp_path / "web"), raise_server_exceptions=False) as found:
        yield found
