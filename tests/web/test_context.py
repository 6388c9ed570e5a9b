"""The app's shared state: one study database engine kept for the life of the app."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from tests.web.conftest import make_app

from sysdrill.storage.engine import acquire_engine, release_engine


def _engine_now(url: str) -> object:
    engine = acquire_engine(url)
    release_engine(url, engine)
    return engine


def test_a_running_app_keeps_one_engine_between_requests(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    url = app.state.sysdrill.db_url
    with TestClient(app) as client:
        assert client.get("/api/dashboard").status_code == 200
        first = _engine_now(url)
        assert client.get("/api/dashboard").status_code == 200
        assert _engine_now(url) is first
    # Stopped, the app lets go: the next opener gets a new engine.
    assert _engine_now(url) is not first
