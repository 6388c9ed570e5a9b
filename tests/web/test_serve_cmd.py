"""``sysdrill serve``: migrates once, prints its URL, serves the app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.web.conftest import from_address

from sysdrill.cli import serve_cmd
from sysdrill.web.worker_cpus import cpus_to_keep_to


def test_serve_upgrades_the_database_prints_the_url_and_serves(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}

    def fake_run(app: Any, *, host: str, port: int, workers: int, environ: Any) -> None:
        served.update(app=app, host=host, port=port, workers=workers)

    monkeypatch.setattr(serve_cmd, "_run_server", fake_run)
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--port", "8123", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert "http://127.0.0.1:8123/" in result.stdout
    assert f"database: {db_url}; 1 worker of 2 threads; single user" in result.stdout
    assert (served["host"], served["port"], served["workers"]) == ("127.0.0.1", 8123, 1)
    with TestClient(served["app"], base_url="http://127.0.0.1:8123") as client:
        assert client.get("/api/dashboard").json()["items_total"] > 0


def test_serve_behind_proxy_trusts_the_proxys_scheme(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: dict[str, Any] = {}
    monkeypatch.setattr(serve_cmd, "_run_server", lambda app, **_: served.update(app=app))
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    assert run_cli("serve", "--db", db_url, "--behind-proxy").exit_code == 0
    with TestClient(
        from_address(served["app"], "127.0.0.1"), base_url="http://localhost"
    ) as client:
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


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What ``serve`` handed to uvicorn, instead of serving."""
    found: dict[str, Any] = {}

    def fake_run(app: Any, *, host: str, port: int, workers: int, environ: Any) -> None:
        found.update(app=app, host=host, port=port, workers=workers, environ=environ)

    monkeypatch.setattr(serve_cmd, "_run_server", fake_run)
    return found


def test_serve_with_workers_hands_uvicorn_the_factory_and_the_settings(
    run_cli: Any, tmp_path: Path, served: dict[str, Any]
) -> None:
    from sysdrill.content.sample import sample_vault_path

    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    vault = sample_vault_path()
    result = run_cli(
        "serve", "--workers", "3", "--threads", "4", "--db", db_url, "--vault", str(vault)
    )
    assert result.exit_code == 0, result.stderr
    assert f"database: {db_url}; 3 workers of 4 threads; single user" in result.stdout
    assert served["app"] == "sysdrill.web.serving:app_from_environment"
    assert served["workers"] == 3
    assert served["environ"] == {
        "SYSDRILL_DATABASE_URL": db_url,
        "SYSDRILL_MULTI_USER": "0",
        "SYSDRILL_BEHIND_PROXY": "0",
        "SYSDRILL_THREADS": "4",
        # Workers are left to the kernel unless told (--pin-cpus).
        "SYSDRILL_PIN_CPUS": "0",
        "SYSDRILL_ALLOWED_HOSTS": "127.0.0.1,localhost,::1",
        "SYSDRILL_VAULT": str(vault.resolve()),
    }


def test_serve_keeps_workers_to_a_cpu_each_only_when_told(
    run_cli: Any, tmp_path: Path, served: dict[str, Any]
) -> None:
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--workers", "2", "--pin-cpus", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    pinned = ", each on a CPU of its own" if cpus_to_keep_to() else ""
    assert f"database: {db_url}; 2 workers of 2 threads{pinned}; single user" in result.stdout
    assert served["environ"]["SYSDRILL_PIN_CPUS"] == "1"
    result = run_cli("serve", "--workers", "2", "--no-pin-cpus", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert f"database: {db_url}; 2 workers of 2 threads; single user" in result.stdout
    assert served["environ"]["SYSDRILL_PIN_CPUS"] == "0"


def test_one_worker_is_never_kept_to_a_cpu(
    run_cli: Any, tmp_path: Path, served: dict[str, Any]
) -> None:
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--pin-cpus", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert served["environ"]["SYSDRILL_PIN_CPUS"] == "0"


def test_serve_hides_the_database_password(
    run_cli: Any, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serve_cmd, "_run_server", lambda *a, **k: None)
    import sysdrill.app.study as study

    monkeypatch.setattr(study, "upgrade_study_database", lambda url: None)
    url = "postgresql+psycopg://learner:s3cret@db.example:5432/sysdrill"
    result = run_cli("serve", "--workers", "2", "--db", url)
    assert result.exit_code == 0, result.stderr
    assert "s3cret" not in result.stdout
    assert "database: postgresql+psycopg://learner:***@db.example:5432/sysdrill; 2 workers" in (
        result.stdout
    )


def test_serve_refuses_sqlite_for_several_users_on_several_workers(
    run_cli: Any, tmp_path: Path, served: dict[str, Any]
) -> None:
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--multi-user", "--workers", "2", "--db", db_url)
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: multi-user mode with 2 workers needs PostgreSQL, not SQLite; give "
        "--db postgresql+psycopg://USER@HOST/DB, or serve with --workers 1.\n"
    )
    assert served == {}
    assert not (tmp_path / "study.sqlite3").exists()


@pytest.mark.parametrize(
    ("option", "count"),
    [
        ("--workers", "0"),
        ("--workers", "-1"),
        ("--workers", "two"),
        ("--threads", "0"),
        ("--threads", "17"),
        ("--threads", "many"),
    ],
)
def test_serve_refuses_a_worker_or_thread_count_out_of_range_as_a_usage_error(
    run_cli: Any, served: dict[str, Any], option: str, count: str
) -> None:
    result = run_cli("serve", option, count)
    assert result.exit_code == 2
    assert option in result.stderr
    assert served == {}


def test_serve_multi_user_passes_the_mode_to_the_app(
    run_cli: Any, tmp_path: Path, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sysdrill.web.app as web_app

    built: dict[str, Any] = {}

    def create_app(
        *,
        vault: Any,
        db_url: str,
        multi_user: bool = False,
        behind_proxy: bool = False,
        threads: int = 2,
        allowed_hosts: Any = (),
    ) -> str:
        built.update(
            vault=vault,
            db_url=db_url,
            multi_user=multi_user,
        )
        return "the app"

    monkeypatch.setattr(web_app, "create_app", create_app)
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--multi-user", "--db", db_url)
    assert result.exit_code == 0, result.stderr
    assert f"database: {db_url}; 1 worker of 2 threads; multi-user" in result.stdout
    assert built == {"vault": None, "db_url": db_url, "multi_user": True}
    assert served["app"] == "the app"
    assert served["environ"]["SYSDRILL_MULTI_USER"] == "1"


def test_serve_reads_its_settings_from_the_environment_too(
    run_cli: Any, tmp_path: Path, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.content.sample import sample_vault_path

    db_url = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    monkeypatch.setenv("SYSDRILL_DATABASE_URL", db_url)
    monkeypatch.setenv("SYSDRILL_VAULT", str(sample_vault_path()))
    monkeypatch.setenv("SYSDRILL_MULTI_USER", "1")
    result = run_cli("serve", "--workers", "2")
    assert result.exit_code == 1
    assert "multi-user mode with 2 workers needs PostgreSQL" in result.stderr
    monkeypatch.setenv("SYSDRILL_MULTI_USER", "0")
    result = run_cli("serve", "--workers", "2")
    assert result.exit_code == 0, result.stderr
    assert served["environ"] == {
        "SYSDRILL_DATABASE_URL": db_url,
        "SYSDRILL_MULTI_USER": "0",
        "SYSDRILL_BEHIND_PROXY": "0",
        "SYSDRILL_THREADS": "2",
        "SYSDRILL_PIN_CPUS": "0",
        "SYSDRILL_ALLOWED_HOSTS": "127.0.0.1,localhost,::1",
        "SYSDRILL_VAULT": str(sample_vault_path().resolve()),
    }
    monkeypatch.setenv("SYSDRILL_PIN_CPUS", "1")
    result = run_cli("serve", "--workers", "2")
    assert result.exit_code == 0, result.stderr
    assert served["environ"]["SYSDRILL_PIN_CPUS"] == "1"


@pytest.mark.parametrize("app", ["sysdrill.web.serving:app_from_environment", "an app object"])
def test_run_server_trusts_no_forwarded_headers_and_keeps_no_access_log(
    monkeypatch: pytest.MonkeyPatch, app: str
) -> None:
    import uvicorn

    given: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda target, **options: given.update(options))
    served_app: Any = app if ":" in app else object()
    serve_cmd._run_server(served_app, host="127.0.0.1", port=8123, workers=2, environ={})
    assert given["proxy_headers"] is False
    assert given["access_log"] is False
    assert given["log_level"] == "warning"
