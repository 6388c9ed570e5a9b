"""Security headers on every response, the cookie policy, and trusting a TLS proxy."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from tests.web.conftest import from_address, make_app

from sysdrill.web.security import (
    CONTENT_SECURITY_POLICY,
    SVG_CONTENT_SECURITY_POLICY,
    set_cookie,
)
from sysdrill.web.templating import TEMPLATES_DIR

PAGE_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
}


def _secured(headers: Mapping[str, str]) -> dict[str, str]:
    """The security headers of a response (an empty value for a missing one)."""
    return {name: headers.get(name, "") for name in PAGE_HEADERS}


def _expected(policy: str = CONTENT_SECURITY_POLICY) -> dict[str, str]:
    return PAGE_HEADERS | {"content-security-policy": policy}


def test_the_page_policy_allows_no_inline_script_and_no_framing() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert directives["base-uri"] == "'none'"
    assert directives["img-src"] == "'self' data:"


@pytest.mark.parametrize(
    "path",
    ["/", "/settings", "/items/cloud-0103", "/api/dashboard", "/api/items", "/openapi.json"],
)
def test_pages_and_api_answers_carry_the_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert _secured(response.headers) == _expected()


@pytest.mark.parametrize("path", ["/static/style.css", "/static/keys.js", "/static/study.js"])
def test_static_files_carry_the_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert _secured(response.headers) == _expected()


@pytest.mark.parametrize("path", ["/items/no-such-item", "/api/items/no-such-item", "/nowhere"])
def test_error_answers_carry_the_headers(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert _secured(response.headers) == _expected()


def test_a_refused_write_carries_the_headers(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path / "web"), raise_server_exceptions=False) as browser:
        response = browser.post("/settings", data={"desired_retention": "0.9"})
    assert response.status_code == 403
    assert _secured(response.headers) == _expected()


@pytest.fixture
def crashing_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app with one page and one API route that fail unexpectedly."""
    app = make_app(tmp_path / "web")

    def crash() -> None:
        raise RuntimeError("boom")

    app.add_api_route("/crash", crash)
    app.add_api_route("/api/crash", crash)
    with TestClient(app, raise_server_exceptions=False) as found:
        yield found


@pytest.mark.parametrize("path", ["/crash", "/api/crash"])
def test_an_unexpected_error_carries_the_headers(crashing_client: TestClient, path: str) -> None:
    response = crashing_client.get(path)
    assert response.status_code == 500
    assert _secured(response.headers) == _expected()


def test_an_svg_chart_may_style_itself_but_run_nothing(client: TestClient) -> None:
    response = client.get("/progress/charts/coverage.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert _secured(response.headers) == _expected(SVG_CONTENT_SECURITY_POLICY)
    assert "script-src" not in SVG_CONTENT_SECURITY_POLICY
    assert SVG_CONTENT_SECURITY_POLICY.startswith("default-src 'none'")


def test_the_api_explorer_allows_exactly_its_own_inline_script(client: TestClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    inline = re.findall(r"<script>(.*?)</script>", response.text, re.S)
    assert len(inline) == 1
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    policy = dict(d.split(" ", 1) for d in response.headers["content-security-policy"].split("; "))
    assert policy["script-src"] == f"'self' https://cdn.jsdelivr.net 'sha256-{digest}'"
    assert "'unsafe-inline'" not in response.headers["content-security-policy"]
    assert response.headers["x-frame-options"] == "DENY"


def test_templates_hold_no_inline_script_style_or_handler() -> None:
    for template in TEMPLATES_DIR.rglob("*.html"):
        text = template.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template.name
        assert not re.search(r"<style|\sstyle=", text), template.name
        assert not re.search(r"\son[a-z]+=", text), template.name


# -- cookies -------------------------------------------------------------------


def _cookie_flags(set_cookie_header: str) -> set[str]:
    return {part.strip().split("=")[0].lower() for part in set_cookie_header.split(";")[1:]}


def _issued_cookie(client: TestClient, **headers: str) -> str:
    response = client.get("/api/csrf", headers=headers)
    assert response.status_code == 200
    cookie: str = response.headers["set-cookie"]
    assert cookie.startswith("sysdrill_csrf=")
    return cookie


def test_cookies_are_httponly_and_samesite_lax_without_secure_over_http(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path / "web")) as client:
        cookie = _issued_cookie(client)
    assert _cookie_flags(cookie) == {"httponly", "path", "samesite"}
    assert "SameSite=Lax" in cookie
    assert "Path=/" in cookie


def test_cookies_are_secure_over_https(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path / "web"), base_url="https://testserver") as client:
        cookie = _issued_cookie(client)
    assert _cookie_flags(cookie) == {"httponly", "path", "samesite", "secure"}


def _proxied_app(root: Path, *, behind_proxy: bool) -> FastAPI:
    app = make_app(root, behind_proxy=behind_proxy)

    def client_address(request: Request) -> str:
        assert request.client is not None
        return request.client.host

    app.add_api_route("/api/whoami", client_address)
    return app


FORWARDED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


@pytest.mark.parametrize(
    ("behind_proxy", "address", "trusted"),
    [(True, "127.0.0.1", True), (True, "198.51.100.9", False), (False, "127.0.0.1", False)],
    ids=["from-the-proxy", "from-another-address", "without-behind-proxy"],
)
def test_forwarded_scheme_and_address_are_trusted_only_from_the_proxy(
    tmp_path: Path, behind_proxy: bool, address: str, trusted: bool
) -> None:
    app = _proxied_app(tmp_path / "web", behind_proxy=behind_proxy)
    with TestClient(from_address(app, address)) as client:
        cookie = _issued_cookie(client, **FORWARDED)
        seen = client.get("/api/whoami", headers=FORWARDED).json()
    assert ("secure" in _cookie_flags(cookie)) is trusted
    assert seen == ("203.0.113.7" if trusted else address)


def _connection(scheme: str) -> HTTPConnection:
    return HTTPConnection(
        {"type": "http", "scheme": scheme, "path": "/", "headers": [], "server": ("h", 80)}
    )


def test_set_cookie_gives_a_lifetime_in_seconds_and_can_delete() -> None:
    headers = MutableHeaders()
    set_cookie(headers, _connection("https"), "session", "abc", max_age_seconds=3600)
    set_cookie(headers, _connection("http"), "old", "", max_age_seconds=0)
    first, second = headers.getlist("set-cookie")
    assert first == "session=abc; HttpOnly; Max-Age=3600; Path=/; SameSite=Lax; Secure"
    assert second == 'old=""; HttpOnly; Max-Age=0; Path=/; SameSite=Lax'
