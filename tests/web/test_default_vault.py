"""The web app without --vault serves the bundled starter vault (issue 15, "Done when")."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fastapi.testclient import TestClient
from tests.web.conftest import TEST_HOSTS, with_csrf

from sysdrill.content.sample import starter_vault_path
from sysdrill.storage.engine import upgrade_database
from sysdrill.web.app import create_app

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def test_practice_in_the_browser_draws_from_the_starter_vault(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(db_url)
    app = create_app(
        db_url=db_url,
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=lambda: NOW,
        allowed_hosts=TEST_HOSTS,
    )
    assert app.state.sysdrill.vault == starter_vault_path()
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        response = client.post("/api/study/sessions", json={"kind": "practice", "limit": "25"})
        assert response.status_code == 200, response.text
        view = response.json()
    # The daily limit of 20 new items: the sample vault holds only 12.
    assert view["title"] == "Practice: 20 items (0 due, 20 new; 0 more new today)"
    assert view["total"] == 20
