"""The host allow-list: a page reached under a foreign name (DNS rebinding) is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sysdrill.web.request_limits import allowed_host_names
from sysdrill.web.serving import ServerSettings, host_names

from .conftest import make_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    app = make_app(tmp_path_factory.mktemp("hosts"))
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize("path", ["/settings", "/api/settings", "/export", "/api/export"])
def test_a_rebinding_request_under_a_foreign_name_is_refused(client: TestClient, path: str) -> None:
    response = client.get(path, headers={"Host": "evil.example:8000"})
    assert response.status_code == 400
    assert "evil.example" in response.text
    assert response.headers["X-Frame-Options"] == "DENY"


def test_the_refusal_has_the_api_error_shape(client: TestClient) -> None:
    response = client.get("/api/settings", headers={"Host": "evil.example"})
    assert response.json()["error"]["type"] == "HostNotAllowed"
    assert "--allowed-host" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST", "testserver"]
)
def test_the_loopback_names_and_the_configured_name_are_served(
    client: TestClient, host: str
) -> None:
    assert client.get("/api/settings", headers={"Host": host}).status_code == 200


def test_a_request_without_a_host_is_refused(client: TestClient) -> None:
    assert client.get("/api/settings", headers={"Host": ""}).status_code == 400


def test_a_name_the_admin_allows_is_served_and_others_are_not(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", allowed_hosts=("drill.example.org",))
    with TestClient(app, base_url="https://drill.example.org") as client:
        assert client.get("/api/csrf").status_code == 200
        assert client.get("/api/csrf", headers={"Host": "localhost"}).status_code == 200
        assert client.get("/api/csrf", headers={"Host": "other.example"}).status_code == 400


def test_a_star_allows_any_name(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", allowed_hosts=("*",))
    with TestClient(app) as client:
        assert client.get("/api/csrf", headers={"Host": "anything.example"}).status_code == 200


def test_the_server_answers_to_loopback_the_bound_address_and_the_admins_names() -> None:
    assert allowed_host_names("0.0.0.0", ["Drill.Example.org", "[fe80::1]"]) == (
        "127.0.0.1",
        "localhost",
        "::1",
        "drill.example.org",
        "fe80::1",
    )
    assert allowed_host_names("192.168.1.5") == ("127.0.0.1", "localhost", "::1", "192.168.1.5")


def test_the_allowed_names_reach_the_workers_through_the_environment() -> None:
    settings = ServerSettings(db_url="sqlite:///x.db", allowed_hosts=("drill.example.org", "::1"))
    again = ServerSettings.from_environment(settings.to_environment())
    assert again.allowed_hosts == ("drill.example.org", "::1")
    assert host_names("a.example, b.example c.example") == ("a.example", "b.example", "c.example")


@pytest.mark.parametrize("bad", ["https://drill.example.org", "drill.example.org:443", "a/b"])
def test_a_host_name_with_a_scheme_port_or_path_is_refused_with_the_fix(bad: str) -> None:
    from sysdrill.errors import UsageError

    with pytest.raises(UsageError, match="without scheme, port or path"):
        host_names(bad)


def test_serve_hands_the_allowed_names_to_its_workers(
    run_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.cli import serve_cmd

    served: dict[str, Any] = {}
    monkeypatch.setattr(serve_cmd, "_run_server", lambda app, **kw: served.update(kw))
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli(
        "serve",
        *("--db", db_url, "--host", "0.0.0.0"),
        *("--allowed-host", "drill.example.org", "--allowed-host", "10.1.2.3"),
    )
    assert result.exit_code == 0, result.stderr
    assert served["environ"]["SYSDRILL_ALLOWED_HOSTS"] == (
        "127.0.0.1,localhost,::1,drill.example.org,10.1.2.3"
    )
    monkeypatch.setenv("SYSDRILL_ALLOWED_HOSTS", "proxy.example.org")
    assert run_cli("serve", "--db", db_url, "--host", "10.0.0.7").exit_code == 0
    assert served["environ"]["SYSDRILL_ALLOWED_HOSTS"] == (
        "127.0.0.1,localhost,::1,10.0.0.7,proxy.example.org"
    )


def test_serve_refuses_an_allowed_host_with_a_port(run_cli: Any, tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    result = run_cli("serve", "--db", db_url, "--allowed-host", "drill.example.org:443")
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "Error: 'drill.example.org:443' is not a host name; give a name such as "
        "drill.example.org or an address such as 192.168.1.5, without scheme, port or path."
    )
