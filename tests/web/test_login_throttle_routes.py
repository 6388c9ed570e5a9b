"""Logins, password changes and sign-ups over HTTP: slowed per address and account, never locked.

Each client has its own address (TestClient's ``client``); the app's clock is moved
by the tests, which never sleep.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from sysdrill.app.accounts import open_accounts
from sysdrill.app.login_throttle import PAIR_BACKOFF, SIGNUP_BACKOFF
from sysdrill.storage.engine import upgrade_database
from sysdrill.web.app import create_app

from .conftest import NOW, TEST_HOSTS, with_csrf

PASSWORD = "correct horse battery"
OWNER = "192.0.2.10"
ATTACKER = "198.51.100.66"


@dataclass
class Clock:
    """The app's clock, moved by the test."""

    now: datetime = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(tmp_path: Path, clock: Clock) -> FastAPI:
    from sysdrill.content.sample import sample_vault_path

    db_url = f"sqlite:///{tmp_path / 'study.sqlite3'}"
    upgrade_database(db_url)
    made = create_app(
        vault=sample_vault_path(),
        db_url=db_url,
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=clock,
        multi_user=True,
        allowed_hosts=TEST_HOSTS,
    )
    with open_accounts(db_url) as accounts:
        accounts.add("alice", PASSWORD, now=NOW)
    return made


def _from_address(app: FastAPI, address: str) -> ASGIApp:
    """The app as reached from ``address`` (TestClient's own ``client=`` needs Starlette 0.44)."""

    async def reached(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "client": (address, 50000)}
        await app(scope, receive, send)

    return reached


def _client(app: FastAPI, address: str) -> Iterator[TestClient]:
    client = TestClient(_from_address(app, address), raise_server_exceptions=False)
    with with_csrf(client) as found:
        yield found


@pytest.fixture
def owner(app: FastAPI) -> Iterator[TestClient]:
    yield from _client(app, OWNER)


@pytest.fixture
def attacker(app: FastAPI) -> Iterator[TestClient]:
    yield from _client(app, ATTACKER)


def _login(client: TestClient, password: str) -> int:
    return client.post("/api/login", json={"name": "alice", "password": password}).status_code


def test_an_attacker_hammering_the_account_does_not_keep_the_owner_out(
    owner: TestClient, attacker: TestClient
) -> None:
    statuses = [_login(attacker, "wrong guess") for _ in range(30)]
    assert statuses[: PAIR_BACKOFF.free] == [401] * PAIR_BACKOFF.free
    assert set(statuses[PAIR_BACKOFF.free :]) == {429}
    assert _login(owner, PASSWORD) == 200
    assert owner.get("/api/account").json()["name"] == "alice"


def test_an_attacker_is_told_to_wait_longer_after_each_failure(
    attacker: TestClient, clock: Clock
) -> None:
    for _ in range(PAIR_BACKOFF.free):
        _login(attacker, "wrong guess")
    waits = []
    for _ in range(4):
        slowed = attacker.post("/api/login", json={"name": "alice", "password": "wrong guess"})
        assert slowed.status_code == 429
        assert slowed.json()["error"]["type"] == "LoginThrottled"
        waits.append(int(slowed.headers["retry-after"]))
        clock.now += timedelta(seconds=waits[-1])
        assert _login(attacker, "wrong guess") == 401
    assert waits == [1, 2, 4, 8]


def test_guessing_the_current_password_is_slowed_with_retry_after(
    owner: TestClient, clock: Clock
) -> None:
    assert _login(owner, PASSWORD) == 200
    for _ in range(PAIR_BACKOFF.free):
        wrong = owner.post(
            "/api/account/password", json={"current": "wrong guess", "new": "a brand new pass"}
        )
        assert wrong.status_code == 401
    api = owner.post("/api/account/password", json={"current": PASSWORD, "new": "a brand new pass"})
    assert (api.status_code, api.headers["retry-after"]) == (429, "1")
    assert api.json()["error"]["message"] == "Too many failed logins; try again in 1 second."
    form = owner.post("/account/password", data={"current": PASSWORD, "new": "a brand new pass"})
    assert (form.status_code, form.headers["retry-after"]) == (429, "1")
    assert "Too many failed logins; try again in 1 second." in form.text
    clock.now += timedelta(seconds=1)
    changed = owner.post(
        "/api/account/password", json={"current": PASSWORD, "new": "a brand new pass"}
    )
    assert changed.json() == {"changed": True}


def test_sign_ups_from_one_address_are_slowed_with_retry_after(
    app: FastAPI, attacker: TestClient, clock: Clock
) -> None:
    from sysdrill.app.accounts import SignupPolicy

    with open_accounts(app.state.sysdrill.db_url) as accounts:
        # Wrong invite codes are cheap to try: they count without creating anything.
        accounts.set_signup_policy(SignupPolicy.INVITE, invite_code="class-of-2026")
    for n in range(SIGNUP_BACKOFF.free):
        body = {"name": f"n{n}", "password": PASSWORD, "invite_code": f"guess {n}"}
        assert attacker.post("/api/signup", json=body).status_code == 403
    body = {"name": "dana", "password": PASSWORD, "invite_code": "class-of-2026"}
    api = attacker.post("/api/signup", json=body)
    assert (api.status_code, api.headers["retry-after"]) == (429, "1")
    assert api.json()["error"] == {
        "status": 429,
        "type": "SignupThrottled",
        "message": "Too many sign-ups from this address; try again in 1 second.",
        "details": [],
    }
    form = attacker.post("/signup", data=body)
    assert (form.status_code, form.headers["retry-after"]) == (429, "1")
    clock.now += timedelta(seconds=1)
    assert attacker.post("/api/signup", json=body).status_code == 201


def test_sign_up_and_password_change_refuse_weak_passwords_in_one_line(
    owner: TestClient,
) -> None:
    common = owner.post("/api/signup", json={"name": "dana", "password": "password123"})
    assert common.status_code == 422
    assert common.json()["error"]["message"] == (
        "The password is one of the most common passwords; choose one nobody would guess first."
    )
    named = owner.post("/signup", data={"name": "dana", "password": "dana-learns-fast"})
    assert named.status_code == 422
    assert "The password contains the user name; choose one without it." in named.text
    assert _login(owner, PASSWORD) == 200
    change = owner.post("/api/account/password", json={"current": PASSWORD, "new": "qwertyuiop"})
    assert change.status_code == 422
    assert "most common passwords" in change.json()["error"]["message"]
