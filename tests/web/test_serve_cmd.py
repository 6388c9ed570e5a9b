"""``sysdrill serve``: migrates once, prints its URL, serves the app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sysdrill.cli import serve_cmd


def test_serve_upgrades_the_database_prints_the_url_and_serves(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}

    def fake_run(app: Any, *, host: str, port: int) -> None:
        served.update(app=app, host=host, port=port)

    monkeypatch.setattr(serve_cmd, "_run_server", fake_run)
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--port", "8123", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert "http://127.0.0.1:8123/" in result.stdout
    assert (served["host"], served["port"]) == ("127.0.0.1", 8123)
    with TestClient(served["app"]) as client:
        assert client.get("/api/dashboard").json()["items_total"] > 0


def test_serve_behind_proxy_trusts_the_proxys_scheme(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}
    monkeypatch.setattr(serve_cmd, "_run_server", lambda app, **_: served.update(app=app))
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    assert run_cli("serve", "--db", db_url, "--behind-proxy").exit_code == 0
    with TestClient(served["app"], client=("127.0.0.1", 40000)) as client:
        answer = client.get("/api/csrf", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" in answer.headers["set-cookie"]


def test_serve_refuses_a_short_secret_key(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve_cmd, "_run_server", lambda app, **_: None)
    monkeypatch.setenv("SYSDRILL_SECRET_KEY", "short")
    result = run_cli("serve", "--db", f"sqlite:///{tmp_path / 'study.sqlite3'}")
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "Error: SYSDRILL_SECRET_KEY has 5 characters; set it to at least 32 random ones"
    )
    assert result.stderr.count("\n") == 1


def test_serve_refuses_a_missing_vault(run_cli: Any, tmp_path: Path) -> None:
    result = run_cli("serve", "--vault", str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert "Error: vault folder" in result.stderr


def test_reports_lists_what_the_web_app_stored(run_cli: Any, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from sysdrill.web.problem_reports import add_report

    assert run_cli("reports").stdout == "No problem report yet.\n"
    add_report(
        tmp_path / "userdata",
        item_id="cloud-0103",
        kind="wrong-math",
        message="line 2\nis off",
        now=datetime(2026, 11, 25, 12, 30, tzinfo=UTC),
    )
    result = run_cli("reports")
    assert result.exit_code == 0
    assert result.stdout == "2026-11-25 12:30  cloud-0103  wrong-math  line 2 is off\n"
    assert '"item_id": "cloud-0103"' in run_cli("reports", "--json").stdout
