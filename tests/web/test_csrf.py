"""CSRF tokens: forms and API writes need the token of their own cookie (issue 13)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send
from tests.web.conftest import NOW, TEST_HOSTS, make_app

from sysdrill.web.csrf import (
    COOKIE_NAME,
    FIELD_NAME,
    HEADER_NAME,
    MULTIPART_PREFIX_BYTES,
    TOKEN_MAX_AGE,
    CsrfMiddleware,
    CsrfSigner,
    renew_csrf_cookie,
)
from sysdrill.web.request_limits import RequestLimitsMiddleware
from sysdrill.web.templating import TEMPLATES_DIR

_TOKEN = re.compile(r'<input type="hidden" name="csrf_token" value="([0-9]+\.[0-9a-f]{64})">')
_RELOAD = "reload the page and submit again"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[TestClient]:
    """A client that sends only what a browser would: cookies, and the forms' fields."""
    with TestClient(make_app(tmp_path / "web"), raise_server_exceptions=False) as found:
        yield found


def _page_token(client: TestClient, path: str) -> str:
    match = _TOKEN.search(client.get(path).text)
    assert match is not None, f"no token on {path}"
    return match.group(1)


def _retention(client: TestClient) -> str:
    settings = client.get("/api/settings").json()["settings"]
    return next(s["shown"] for s in settings if s["key"] == "desired_retention")


def test_every_post_form_in_the_templates_carries_the_token_field() -> None:
    forms = 0
    for template in TEMPLATES_DIR.rglob("*.html"):
        for form in re.findall(r"<form[^>]*>.*?</form>", template.read_text(), re.S):
            if 'method="post"' in form:
                forms += 1
                assert "{{ csrf_field() }}" in form, (template.name, form[:80])
    assert forms >= 20


def test_a_page_gives_a_new_browser_its_cookie_and_a_token(browser: TestClient) -> None:
    page = browser.get("/settings")
    assert f"{COOKIE_NAME}=" in page.headers["set-cookie"]
    first = _TOKEN.findall(page.text)
    assert len(first) == 1
    # The browser now holds the cookie: the next page reuses it and sets none.
    again = browser.get("/settings")
    assert "set-cookie" not in again.headers
    assert _TOKEN.findall(again.text) == first


def test_a_page_without_a_form_sets_no_cookie(browser: TestClient) -> None:
    assert "set-cookie" not in browser.get("/api/dashboard").headers
    assert "set-cookie" not in browser.get("/static/style.css").headers


def test_a_form_with_its_pages_token_is_accepted(browser: TestClient) -> None:
    token = _page_token(browser, "/settings")
    response = browser.post(
        "/settings",
        data={FIELD_NAME: token, "desired_retention": "0.85"},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    assert _retention(browser) == "0.85"


def test_a_form_without_a_token_is_refused_with_the_error_page(browser: TestClient) -> None:
    _page_token(browser, "/settings")
    before = _retention(browser)
    response = browser.post("/settings", data={"desired_retention": "0.85"})
    assert response.status_code == 403
    assert response.headers["content-type"].startswith("text/html")
    assert f"this write carries no CSRF token; {_RELOAD}" in response.text
    assert _retention(browser) == before


def test_a_form_with_a_forged_token_is_refused(browser: TestClient) -> None:
    _page_token(browser, "/settings")
    response = browser.post("/settings", data={FIELD_NAME: "0" * 64, "desired_retention": "0.85"})
    assert response.status_code == 403
    assert f"the CSRF token of this write does not match its cookie; {_RELOAD}" in response.text


def test_a_token_that_is_not_ascii_is_refused_not_a_server_error(browser: TestClient) -> None:
    _page_token(browser, "/settings")
    response = browser.post("/settings", data={FIELD_NAME: "é" * 64, "desired_retention": "0.85"})
    assert response.status_code == 403
    assert "does not match its cookie" in response.text


def test_a_token_paired_with_another_browsers_cookie_is_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web")
    with TestClient(app) as victim, TestClient(app, raise_server_exceptions=False) as attacker:
        attacker_token = _page_token(attacker, "/settings")
        _page_token(victim, "/settings")
        response = victim.post(
            "/settings", data={FIELD_NAME: attacker_token, "desired_retention": "0.85"}
        )
    assert response.status_code == 403
    assert "does not match its cookie" in response.text


def test_a_form_sent_without_the_cookie_is_refused(browser: TestClient) -> None:
    token = _page_token(browser, "/settings")
    browser.cookies.clear()
    response = browser.post("/settings", data={FIELD_NAME: token, "desired_retention": "0.85"})
    assert response.status_code == 403
    assert f"this write came without the {COOKIE_NAME} cookie; {_RELOAD}" in response.text


def test_a_multipart_form_carries_its_token_in_a_field(browser: TestClient) -> None:
    token = _page_token(browser, "/import")
    upload = {"source": ("cards.csv", b"front,back\nWhat is ZeRO?,Sharding.\n", "text/csv")}
    accepted = browser.post("/import/preview", data={FIELD_NAME: token}, files=upload)
    assert accepted.status_code == 200, accepted.text
    assert 'data-testid="added">1<' in accepted.text
    refused = browser.post("/import/preview", files=upload)
    assert refused.status_code == 403
    assert _RELOAD in refused.text


def test_an_api_write_with_the_header_token_is_accepted(browser: TestClient) -> None:
    issued = browser.get("/api/csrf").json()
    assert issued == {
        "csrf_token": issued["csrf_token"],
        "header": HEADER_NAME,
        "field": FIELD_NAME,
        "cookie": COOKIE_NAME,
    }
    response = browser.put(
        "/api/settings",
        json={"desired_retention": "0.8"},
        headers={HEADER_NAME: issued["csrf_token"]},
    )
    assert response.status_code == 200, response.text
    assert _retention(browser) == "0.8"


@pytest.mark.parametrize(
    ("headers", "cookie", "reason"),
    [
        ({}, True, "this write carries no CSRF token"),
        ({HEADER_NAME: "f" * 64}, True, "the CSRF token of this write does not match its cookie"),
        ({HEADER_NAME: "issued"}, False, f"this write came without the {COOKIE_NAME} cookie"),
    ],
    ids=["missing", "invalid", "no-cookie"],
)
def test_an_api_write_without_its_genuine_token_is_refused_with_the_error_shape(
    browser: TestClient, headers: dict[str, str], cookie: bool, reason: str
) -> None:
    token = browser.get("/api/csrf").json()["csrf_token"]
    headers = {k: token if v == "issued" else v for k, v in headers.items()}
    if not cookie:
        browser.cookies.clear()
    response = browser.post("/api/napkin/check", json={"text": "2 * 3 = 6"}, headers=headers)
    assert response.status_code == 403
    assert response.json() == {
        "error": {
            "status": 403,
            "type": "CsrfTokenInvalid",
            "message": f"{reason}; send the {HEADER_NAME} header with the token "
            "from GET /api/csrf and its cookie",
            "details": [],
        }
    }


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_every_writing_method_needs_the_token(browser: TestClient, method: str) -> None:
    browser.get("/api/csrf")
    response = browser.request(method, "/api/settings", json={"desired_retention": "0.8"})
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "CsrfTokenInvalid"


def test_reads_need_no_token(browser: TestClient) -> None:
    assert browser.get("/api/settings").status_code == 200
    assert browser.get("/settings").status_code == 200


def test_a_foreign_origin_is_refused_even_with_a_genuine_token(browser: TestClient) -> None:
    token = browser.get("/api/csrf").json()["csrf_token"]
    response = browser.put(
        "/api/settings",
        json={"desired_retention": "0.8"},
        headers={HEADER_NAME: token, "Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "CrossSiteRequest"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A study database several apps (standing for worker processes) share."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_any_worker_on_the_database_accepts_a_token_another_issued(
    tmp_path: Path, shared_db_url: str
) -> None:
    first = make_app(tmp_path / "one", db_url=shared_db_url)
    second = make_app(tmp_path / "two", db_url=shared_db_url)  # another worker process
    with TestClient(first) as issuer, TestClient(second) as other:
        token = issuer.get("/api/csrf").json()["csrf_token"]
        other.cookies.update(issuer.cookies)
        response = other.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: token}
        )
    assert response.status_code == 200, response.text


def test_a_token_of_another_database_is_refused(tmp_path: Path) -> None:
    with (
        TestClient(make_app(tmp_path / "one")) as issuer,
        TestClient(make_app(tmp_path / "two"), raise_server_exceptions=False) as other,
    ):
        token = issuer.get("/api/csrf").json()["csrf_token"]
        other.cookies.update(issuer.cookies)
        response = other.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: token}
        )
    assert response.status_code == 403


def test_the_secret_key_variable_signs_tokens_on_any_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_SECRET_KEY", "k" * 40)
    with (
        TestClient(make_app(tmp_path / "one")) as issuer,
        TestClient(make_app(tmp_path / "two")) as other,
    ):
        token = issuer.get("/api/csrf").json()["csrf_token"]
        other.cookies.update(issuer.cookies)
        response = other.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: token}
        )
    assert response.status_code == 200, response.text


async def _echo_body(scope: Scope, receive: Receive, send: Send) -> None:
    """An ASGI app answering with the SHA-256 of the body it received."""
    digest = hashlib.sha256()
    more = True
    while more:
        message = await receive()
        digest.update(message.get("body", b""))
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": digest.hexdigest().encode()})


@pytest.fixture
def echo() -> tuple[TestClient, str]:
    """A client of the CSRF middleware over :func:`_echo_body`, and its genuine token."""
    signer = CsrfSigner(lambda: b"k" * 32)
    cookie = "c" * 43
    # Behind the request limits, as in the app: they read a plain form's body for it.
    checked = CsrfMiddleware(_echo_body, signer=signer, clock=lambda: NOW)
    client = TestClient(RequestLimitsMiddleware(checked, allowed_hosts=("testserver",)))
    client.cookies.set(COOKIE_NAME, cookie)
    return client, signer.token_for(cookie, session="", now=NOW)


def _multipart(*parts: tuple[str, bytes]) -> tuple[bytes, str]:
    boundary = "sysdrill-test-boundary"
    body = b"".join(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        + value
        + b"\r\n"
        for name, value in parts
    )
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_an_upload_after_its_token_reaches_the_route_whole(echo: tuple[TestClient, str]) -> None:
    client, token = echo
    upload = bytes(range(256)) * (4 * MULTIPART_PREFIX_BYTES // 256)
    body, content_type = _multipart((FIELD_NAME, token.encode()), ("source", upload))
    response = client.post("/import/preview", content=body, headers={"content-type": content_type})
    assert response.status_code == 200
    assert response.text == hashlib.sha256(body).hexdigest()


def test_a_token_placed_after_a_large_upload_is_not_looked_for(
    echo: tuple[TestClient, str],
) -> None:
    client, token = echo
    upload = b"x" * (2 * MULTIPART_PREFIX_BYTES)
    body, content_type = _multipart(("source", upload), (FIELD_NAME, token.encode()))
    response = client.post("/import/preview", content=body, headers={"content-type": content_type})
    assert response.status_code == 403
    assert f"this write carries no CSRF token; {_RELOAD}" in response.text


def test_a_plain_form_reaches_the_route_whole(echo: tuple[TestClient, str]) -> None:
    client, token = echo
    body = urlencode({FIELD_NAME: token, "text": "8 * 80 GB = 640 GB" * 1000}).encode()
    response = client.post(
        "/calculators/napkin",
        content=body,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 200
    assert response.text == hashlib.sha256(body).hexdigest()


def test_a_renewed_cookie_voids_the_tokens_issued_before(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web")

    def log_in(request: Request) -> dict[str, str]:
        renew_csrf_cookie(request)
        return {}

    app.add_api_route("/api/test-login", log_in, methods=["POST"])
    with TestClient(app) as client:
        old = client.get("/api/csrf").json()["csrf_token"]
        renewed = client.post("/api/test-login", headers={HEADER_NAME: old})
        assert f"{COOKIE_NAME}=" in renewed.headers["set-cookie"]
        refused = client.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: old}
        )
        new = client.get("/api/csrf").json()["csrf_token"]
        accepted = client.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: new}
        )
    assert refused.status_code == 403
    assert new != old
    assert accepted.status_code == 200


# -- tokens are bound to the login and expire (issue 28) -------------------------------

_PASSWORD = "correct horse battery"


def _csrf(client: TestClient) -> str:
    token: str = client.get("/api/csrf").json()["csrf_token"]
    return token


def _sign_up(client: TestClient, name: str) -> None:
    answer = client.post(
        "/api/signup",
        json={"name": name, "password": _PASSWORD},
        headers={HEADER_NAME: _csrf(client)},
    )
    assert answer.status_code == 201, answer.text


def _write_with(app: FastAPI, *, session: str, csrf_cookie: str, token: str) -> int:
    """A settings write from a browser holding exactly these cookies and sending ``token``."""
    with TestClient(app, raise_server_exceptions=False) as planted:
        planted.cookies.set("sysdrill_session", session)
        planted.cookies.set(COOKIE_NAME, csrf_cookie)
        answer = planted.put(
            "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: token}
        )
    return answer.status_code


def test_a_token_from_another_users_login_is_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", multi_user=True)
    with TestClient(app) as alice, TestClient(app) as bob:
        _sign_up(alice, "alice")
        _sign_up(bob, "bob")
        alice_session = alice.cookies["sysdrill_session"]
        alice_token, bob_token = _csrf(alice), _csrf(bob)
        alice_cookie, bob_cookie = alice.cookies[COOKIE_NAME], bob.cookies[COOKIE_NAME]
    # Bob plants his CSRF cookie in Alice's browser (a sibling subdomain can) and
    # forges a write with his own token: the pair matches, but not Alice's login.
    assert _write_with(app, session=alice_session, csrf_cookie=bob_cookie, token=bob_token) == 403
    assert (
        _write_with(app, session=alice_session, csrf_cookie=alice_cookie, token=alice_token) == 200
    )


def test_a_token_from_before_a_logout_or_login_is_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", multi_user=True)
    with TestClient(app) as browser:
        token = _csrf(browser)
        before_login = (browser.cookies[COOKIE_NAME], token)
        _sign_up(browser, "alice")
        first = (browser.cookies[COOKIE_NAME], _csrf(browser))
        assert browser.post("/api/logout", headers={HEADER_NAME: first[1]}).status_code == 200
        login = browser.post(
            "/api/login",
            json={"name": "alice", "password": _PASSWORD},
            headers={HEADER_NAME: _csrf(browser)},
        )
        assert login.status_code == 200
        session = browser.cookies["sysdrill_session"]
        now = (browser.cookies[COOKIE_NAME], _csrf(browser))
    for cookie, token in (before_login, first):
        assert _write_with(app, session=session, csrf_cookie=cookie, token=token) == 403
    assert _write_with(app, session=session, csrf_cookie=now[0], token=now[1]) == 200


@dataclass
class _Clock:
    """An app's clock, moved by the test."""

    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now


def test_a_token_expires_after_its_documented_max_age(tmp_path: Path) -> None:
    from sysdrill.content.sample import sample_vault_path
    from sysdrill.storage.engine import upgrade_database
    from sysdrill.web.app import create_app

    clock = _Clock()
    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(db_url)
    app = create_app(
        vault=sample_vault_path(),
        db_url=db_url,
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=clock,
        allowed_hosts=TEST_HOSTS,
    )
    assert TOKEN_MAX_AGE == timedelta(hours=24)
    with TestClient(app, raise_server_exceptions=False) as browser:
        token = _csrf(browser)

        def write() -> Any:
            return browser.put(
                "/api/settings", json={"desired_retention": "0.8"}, headers={HEADER_NAME: token}
            )

        clock.now = NOW + TOKEN_MAX_AGE
        assert write().status_code == 200
        clock.now = NOW + TOKEN_MAX_AGE + timedelta(seconds=1)
        expired = write()
        assert expired.status_code == 403
        assert expired.json()["error"]["message"] == (
            f"the CSRF token of this write has expired; send the {HEADER_NAME} header "
            "with the token from GET /api/csrf and its cookie"
        )
        token = _csrf(browser)
        assert write().status_code == 200
