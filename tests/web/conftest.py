"""Web app fixtures: one app per session on a migrated SQLite file, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.storage.engine import upgrade_database
from sysdrill.web.app import create_app
from sysdrill.web.csrf import COOKIE_NAME as CSRF_COOKIE

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
"""The clock of every test app."""
TEST_HOSTS = ("testserver",)
"""The host name Starlette's test client sends, allowed besides the loopback names."""


def make_app(
    root: Path,
    *,
    vault: Path | None = None,
    multi_user: bool = False,
    behind_proxy: bool = False,
    db_url: str | None = None,
    allowed_hosts: tuple[str, ...] = TEST_HOSTS,
) -> FastAPI:
    """A web app whose database, cache and data folders live under ``root``.

    It serves ``vault``, else the small bundled sample vault these tests count
    (the app's own default, the starter vault, has its own test), on ``db_url``,
    else a SQLite file under ``root``.
    """
    from sysdrill.content.sample import sample_vault_path

    root.mkdir(parents=True, exist_ok=True)
    db_url = db_url or f"sqlite:///{root / 'study.sqlite3'}"
    upgrade_database(db_url)
    return create_app(
        vault=vault if vault is not None else sample_vault_path(),
        db_url=db_url,
        cache_dir=root / "cache",
        data_dir=root / "data",
        clock=lambda: NOW,
        multi_user=multi_user,
        behind_proxy=behind_proxy,
        allowed_hosts=allowed_hosts,
    )


_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def with_csrf(client: TestClient) -> TestClient:
    """``client``, holding a CSRF cookie and sending its token with every write.

    The way an API client works (GET /api/csrf, then the ``X-CSRF-Token``
    header). A login or logout gives the browser a new CSRF cookie, so before a
    write whose cookie changed the client asks for a token again. Tests of the
    token itself use clients without it.
    """
    issued_for: dict[str, str | None] = {}

    def fetch_token() -> str:
        token: str = client.get("/api/csrf").json()["csrf_token"]
        issued_for["cookie"] = client.cookies.get(CSRF_COOKIE)
        client.headers["X-CSRF-Token"] = token
        return token

    def fresh_token(request: httpx.Request) -> None:
        if request.method not in _WRITES or request.url.path == "/api/csrf":
            return
        if client.cookies.get(CSRF_COOKIE) == issued_for.get("cookie"):
            return
        request.headers["X-CSRF-Token"] = fetch_token()
        # The request was built before the new cookie: send the jar as it is now.
        request.headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in client.cookies.items())

    fetch_token()
    client.event_hooks["request"].append(fresh_token)
    return client


@pytest.fixture(scope="session")
def web_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """The app over the sample vault, shared by the tests that only read."""
    return make_app(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="session")
def client(web_app: FastAPI) -> Iterator[TestClient]:
    """A client of :func:`web_app` that returns 500 responses instead of raising."""
    with with_csrf(TestClient(web_app, raise_server_exceptions=False)) as found:
        yield found


@pytest.fixture
def fresh_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app with its own empty database, for tests that write."""
    app = make_app(tmp_path / "web")
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


HOSTILE_ITEM = """\
schema_version: '1.0'
id: cloud-0199
format: flashcard
track: cloud
level: L1
zone: recall
topic: data-parallelism
competency_area: parallelism
title: 'Hostile <script>alert("title")</script> item'
scenario: 'Look <img src=x onerror="alert(1)"> here and [click](javascript:alert(2)).'
question: 'What does <svg onload="alert(3)"></svg> do, and is $x_1 + x_2$ fine?'
visual:
  kind: svg
  path: hostile.svg
  alt: A hostile diagram
details:
  realistic_solution: '<iframe src="https://example.com"></iframe> Nothing.'
  napkin_math: |
    8 * 80 GB = 600 GB
    100 MB / (50 GB/s) = 2 ms
status: published
provenance: human
"""

HOSTILE_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(4)">'
    '<script>alert(5)</script><rect width="4" height="4" fill="teal"/>'
    '<a href="javascript:alert(6)"><text x="1" y="8">go</text></a></svg>'
)


@pytest.fixture(scope="session")
def hostile_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample vault plus one item (and visual) full of script payloads."""
    import shutil

    from sysdrill.content.sample import sample_vault_path

    root = tmp_path_factory.mktemp("hostile") / "vault"
    shutil.copytree(sample_vault_path(), root)
    (root / "questions" / "cloud" / "cloud-0199.yaml").write_text(HOSTILE_ITEM, encoding="utf-8")
    (root / "visuals" / "cloud").mkdir(parents=True)
    (root / "visuals" / "cloud" / "hostile.svg").write_text(HOSTILE_SVG, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def hostile_client(
    tmp_path_factory: pytest.TempPathFactory, hostile_vault: Path
) -> Iterator[TestClient]:
    """A client of an app serving :func:`hostile_vault`."""
    app = make_app(tmp_path_factory.mktemp("hostile-web"), vault=hostile_vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


def from_address(app: Any, host: str) -> Any:
    """``app`` as if every request came from ``host`` (a proxy, or another machine).

    TestClient's own ``client=`` argument is newer than our Starlette floor.
    """

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "client": (host, 40000)}
        await app(scope, receive, send)

    return wrapped
