"""Log in, sign up, log out, passwords and the admins' pages, driven like a browser would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.app.accounts import Role, open_accounts

from .conftest import NOW, make_app, with_csrf

PASSWORD = "correct horse battery"


@pytest.fixture
def multi_app(tmp_path: Path) -> FastAPI:
    app = make_app(tmp_path / "web", multi_user=True)
    with open_accounts(app.state.sysdrill.db_url) as accounts:
        accounts.add("root-admin", PASSWORD, role=Role.ADMIN, now=NOW)
    return app


def _client(app: FastAPI) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        yield client


@pytest.fixture
def browser(multi_app: FastAPI) -> Iterator[TestClient]:
    yield from _client(multi_app)


@pytest.fixture
def admin(multi_app: FastAPI) -> Iterator[TestClient]:
    for client in _client(multi_app):
        response = client.post("/api/login", json={"name": "root-admin", "password": PASSWORD})
        assert response.status_code == 200
        yield client


def _signup(client: TestClient, name: str) -> None:
    response = client.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text


def test_a_page_without_login_goes_to_the_login_page_and_back(browser: TestClient) -> None:
    response = browser.get("/progress?x=1", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Fprogress%3Fx%3D1"
    page = browser.get(response.headers["location"]).text
    assert '<input type="hidden" name="next" value="/progress?x=1">' in page
    _signup(browser, "dana")
    browser.post("/api/logout")
    logged_in = browser.post(
        "/login",
        data={"name": "dana", "password": PASSWORD, "next": "/progress?x=1"},
        follow_redirects=False,
    )
    assert logged_in.status_code == 303
    assert logged_in.headers["location"] == "/progress?x=1"


def test_the_session_cookie_is_httponly_and_samesite_lax(browser: TestClient) -> None:
    response = browser.post("/api/signup", json={"name": "dana", "password": PASSWORD})
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("sysdrill_session=")
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Max-Age=1209600" in cookie
    assert "Path=/" in cookie


def test_signing_up_from_the_form_logs_in_and_shows_the_name(browser: TestClient) -> None:
    response = browser.post(
        "/signup", data={"name": "Dana", "password": PASSWORD}, follow_redirects=False
    )
    assert response.status_code == 303
    page = browser.get("/").text
    assert '<a href="/account">dana</a>' in page
    assert 'action="/logout"' in page
    assert '<a href="/import">' not in page
    assert browser.get("/api/account").json() == {
        "name": "dana",
        "role": "learner",
        "disabled": False,
        "created_at": "2026-11-25T12:00:00+00:00",
        "multi_user": True,
    }


def test_a_wrong_login_shows_the_form_again_with_one_message(browser: TestClient) -> None:
    _signup(browser, "dana")
    browser.post("/api/logout")
    for name in ("dana", "nobody"):
        page = browser.post("/login", data={"name": name, "password": "wrong password"})
        assert page.status_code == 401
        assert "Wrong user name or password." in page.text
        api = browser.post("/api/login", json={"name": name, "password": "wrong password"})
        assert api.status_code == 401
        assert api.json()["error"] == {
            "status": 401,
            "type": "LoginFailed",
            "message": "Wrong user name or password.",
            "details": [],
        }


def test_a_sixth_failed_login_from_one_address_is_told_to_wait_with_retry_after(
    browser: TestClient,
) -> None:
    _signup(browser, "dana")
    browser.post("/api/logout")
    for _ in range(5):
        assert browser.post("/api/login", json={"name": "dana", "password": "x"}).status_code == 401
    slowed = browser.post("/api/login", json={"name": "dana", "password": PASSWORD})
    assert slowed.status_code == 429
    assert slowed.json()["error"]["message"] == "Too many failed logins; try again in 1 second."
    assert slowed.headers["retry-after"] == "1"
    form = browser.post("/login", data={"name": "dana", "password": PASSWORD})
    assert (form.status_code, form.headers["retry-after"]) == (429, "1")
    assert "Too many failed logins; try again in 1 second." in form.text


def test_login_never_redirects_to_another_site(browser: TestClient) -> None:
    _signup(browser, "dana")
    for target in ("//evil.example/x", "https://evil.example/", "/\\evil.example"):
        response = browser.post(
            "/login",
            data={"name": "dana", "password": PASSWORD, "next": target},
            follow_redirects=False,
        )
        assert response.headers["location"] == "/", target


def test_logout_deletes_the_login_session(multi_app: FastAPI, browser: TestClient) -> None:
    _signup(browser, "dana")
    token = browser.cookies["sysdrill_session"]
    response = browser.post("/logout", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/login")
    assert 'sysdrill_session=""' in response.headers["set-cookie"]
    for stolen in _client(multi_app):
        stolen.cookies.set("sysdrill_session", token)
        assert stolen.get("/api/dashboard").status_code == 401


def test_learners_cannot_open_the_admin_pages(browser: TestClient) -> None:
    _signup(browser, "dana")
    for path in ("/import", "/reports", "/admin/users", "/api/reports", "/api/admin/users"):
        response = browser.get(path)
        assert response.status_code == 403, path
    assert browser.get("/api/reports").json()["error"]["type"] == "NotPermitted"


def test_an_admin_reads_reports_that_name_their_sender(
    multi_app: FastAPI, admin: TestClient
) -> None:
    for learner in _client(multi_app):
        _signup(learner, "dana")
        sent = learner.post(
            "/api/items/cloud-0103/reports", json={"kind": "typo", "message": "teh"}
        )
        assert sent.json()["user"] == "dana"
    reports = admin.get("/api/reports").json()["reports"]
    assert [(r["user"], r["message"]) for r in reports] == [("dana", "teh")]
    assert "<td>dana</td>" in admin.get("/reports").text
    assert admin.get("/import").status_code == 200


def test_an_admin_disables_a_learner_who_is_logged_out_at_once(
    multi_app: FastAPI, admin: TestClient
) -> None:
    for learner in _client(multi_app):
        _signup(learner, "dana")
        page = admin.get("/admin/users").text
        assert "dana" in page and 'action="/admin/users/dana/disabled"' in page
        response = admin.post(
            "/admin/users/dana/disabled", data={"disabled": "true"}, follow_redirects=False
        )
        assert response.headers["location"] == "/admin/users?saved=true"
        assert learner.get("/api/dashboard").status_code == 401
        made = admin.post("/api/admin/users/dana/role", json={"role": "admin"})
        assert made.json()["role"] == "admin"
        enabled = admin.post("/api/admin/users/dana/disabled", json={"disabled": False})
        assert enabled.json()["disabled"] is False


def test_an_admin_cannot_disable_or_demote_themself(admin: TestClient) -> None:
    response = admin.post("/api/admin/users/root-admin/disabled", json={"disabled": True})
    assert response.status_code == 403
    assert response.json()["error"]["message"].startswith("You cannot disable or demote")
    assert (
        admin.post("/api/admin/users/root-admin/role", json={"role": "learner"}).status_code == 403
    )
    assert admin.post("/api/admin/users/nobody/role", json={"role": "admin"}).status_code == 404


def test_an_admin_closes_sign_up_or_requires_an_invite_code(
    multi_app: FastAPI, admin: TestClient
) -> None:
    closed = admin.put("/api/admin/signup", json={"policy": "closed"})
    assert closed.json() == {"policy": "closed", "has_invite_code": False}
    for visitor in _client(multi_app):
        refused = visitor.post("/api/signup", json={"name": "dana", "password": PASSWORD})
        assert refused.status_code == 403
        assert refused.json()["error"]["type"] == "SignupRefused"
        assert "Sign-up is closed on this server" in visitor.get("/signup").text
        form = admin.post(
            "/admin/signup",
            data={"policy": "invite", "invite_code": "class-2026"},
            follow_redirects=False,
        )
        assert form.status_code == 303
        assert 'name="invite_code"' in visitor.get("/signup").text
        wrong = visitor.post("/signup", data={"name": "dana", "password": PASSWORD})
        assert wrong.status_code == 403
        assert "The invite code is wrong" in wrong.text
        right = visitor.post(
            "/signup",
            data={"name": "dana", "password": PASSWORD, "invite_code": "class-2026"},
            follow_redirects=False,
        )
        assert right.status_code == 303


def test_changing_the_password_keeps_this_login(browser: TestClient) -> None:
    _signup(browser, "dana")
    wrong = browser.post("/account/password", data={"current": "nope nope", "new": "x" * 12})
    assert wrong.status_code == 401
    assert "The current password is wrong." in wrong.text
    response = browser.post(
        "/account/password",
        data={"current": PASSWORD, "new": "a brand new pass"},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/account?changed=true"
    assert "Password changed" in browser.get("/account?changed=true").text
    api = browser.post(
        "/api/account/password", json={"current": "a brand new pass", "new": PASSWORD}
    )
    assert api.json() == {"changed": True}
    assert browser.get("/api/dashboard").status_code == 200


def test_a_taken_name_and_a_short_password_show_the_form_again(browser: TestClient) -> None:
    taken = browser.post("/signup", data={"name": "root-admin", "password": PASSWORD})
    assert taken.status_code == 409
    assert "The user name &#39;root-admin&#39; is taken" in taken.text
    short = browser.post("/signup", data={"name": "dana", "password": "short"})
    assert short.status_code == 422
    assert "at least 10 characters" in short.text


def test_single_user_mode_has_no_login(client: TestClient) -> None:
    assert client.get("/login", follow_redirects=False).headers["location"] == "/"
    assert client.get("/signup", follow_redirects=False).headers["location"] == "/"
    assert client.get("/account", follow_redirects=False).headers["location"] == "/"
    assert client.get("/api/account").json() == {
        "name": "local",
        "role": "admin",
        "multi_user": False,
    }
    refused = client.post("/api/login", json={"name": "x", "password": "y"})
    assert refused.status_code == 422
    assert "single-user mode" in refused.json()["error"]["message"]
    assert "single-user mode" in client.get("/admin/users").text


def test_logging_in_as_someone_else_ends_the_previous_login(
    multi_app: FastAPI, browser: TestClient
) -> None:
    _signup(browser, "dana")
    first = browser.cookies["sysdrill_session"]
    assert (
        browser.post("/api/login", json={"name": "root-admin", "password": PASSWORD}).json()[
            "account"
        ]["name"]
        == "root-admin"
    )
    for stolen in _client(multi_app):
        stolen.cookies.set("sysdrill_session", first)
        assert stolen.get("/api/account").status_code == 401
    assert browser.get("/api/account").json()["name"] == "root-admin"
