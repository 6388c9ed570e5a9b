"""Isolation in multi-user mode, over every route of the app's route table.

User A walks every route (read from the app, so a route added later is walked too)
with user B's ids in the path: B's sessions, B's items, B's account name. A sees
nothing of B's (B's answer, report, settings and name never appear in A's pages),
and B's rows in the database are the same before and after. Anonymous requests to
every private route are redirected to the login page (pages) or refused with 401
(``/api/``). Runs on SQLite, and on PostgreSQL when SYSDRILL_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from sysdrill.storage import schema
from sysdrill.web.app import create_app
from sysdrill.web.auth import PUBLIC_PATHS

from .conftest import NOW, TEST_HOSTS, with_csrf

A_NAME, B_NAME = "alpha", "bravo7q"
PASSWORD = "correct horse battery"
B_ANSWER = "B-SECRET-ANSWER-31337"
B_REPORT = "B-SECRET-REPORT-4242"
B_DEADLINE = "2031-07-19"
B_CARD = "B-SECRET-CARD-9731"
B_DECK = "bravo-private"
B_MARKERS = (B_ANSWER, B_REPORT, B_DEADLINE, B_NAME, B_CARD)
"""Strings only B's data holds: none may appear in a response to A."""

FORM: dict[str, str] = {
    "rating": "4",
    "text": "42",
    "accept": "yes",
    "covered": "0",
    "kind": "typo",
    "message": "A was here",
    "deadline": "2030-01-02",
    "current": "not my password",
    "new": "a new password 123",
    "disabled": "true",
    "role": "learner",
    "policy": "closed",
    "name": A_NAME,
    "password": "not the password",
    "deck": "sample-fundamentals",
    "limit": "1",
}
"""A form that would make each move if the ids in the path were A's."""
JSON: dict[str, Any] = {
    **FORM,
    "accept": True,
    "covered": [0],
    "disabled": True,
    "limit": 1,
    "adaptive": False,
    "rating": "good",
}
"""The same as a JSON body."""

STUDY_TABLES = (
    schema.cards,
    schema.reviews,
    schema.sessions,
    schema.settings,
    schema.active_sessions,
    schema.review_days,
    schema.accounts,
    schema.personal_decks,
    schema.personal_items,
    schema.personal_deck_versions,
)
_PARAM = re.compile(r"{(\w+)(?::\w+)?}")


@pytest.fixture
def db_url(migrated_db_url: str) -> str:
    return migrated_db_url


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> FastAPI:
    from sysdrill.content.sample import sample_vault_path

    return create_app(
        vault=sample_vault_path(),
        db_url=db_url,
        cache_dir=tmp_path / "cache",
        data_dir=tmp_path / "data",
        clock=lambda: NOW,
        multi_user=True,
        allowed_hosts=TEST_HOSTS,
    )


def _client(app: FastAPI) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        yield client


@pytest.fixture
def alice(app: FastAPI) -> Iterator[TestClient]:
    yield from _client(app)


@pytest.fixture
def bob(app: FastAPI) -> Iterator[TestClient]:
    yield from _client(app)


@pytest.fixture
def anonymous(app: FastAPI) -> Iterator[TestClient]:
    yield from _client(app)


def _routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path) of the app's routers."""
    found = set()
    for router in app.state.routers:
        for route in router.routes:
            if isinstance(route, APIRoute):
                found.update((method, route.path) for method in route.methods)
    return sorted(found, key=lambda mp: (mp[1], mp[0]))


def _start(client: TestClient, **form: str) -> int:
    response = client.post("/sessions", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


def _b_studies(bob: TestClient) -> dict[str, Any]:
    """B signs up, reviews, leaves a quiz in progress, reports a problem, sets a deadline."""
    assert bob.post("/api/signup", json={"name": B_NAME, "password": PASSWORD}).status_code == 201
    done = _start(bob, kind="practice", deck="sample-fundamentals", limit="1")
    assert bob.post(f"/sessions/{done}/reveal").status_code == 200
    assert bob.post(f"/sessions/{done}/rate", data={"rating": "3"}).status_code == 200
    assert bob.post(f"/sessions/{done}/chain", data={"accept": "no"}).status_code == 200
    finished = bob.post(f"/sessions/{done}/finish", follow_redirects=False)
    assert finished.status_code in (303, 404), finished.text
    open_quiz = _start(bob, kind="quiz", deck="sample-napkin-drills")
    assert bob.post(f"/sessions/{open_quiz}/answer", data={"text": B_ANSWER}).status_code == 200
    assert B_ANSWER in bob.get(f"/sessions/{open_quiz}").text
    report = {"kind": "typo", "message": B_REPORT}
    assert bob.post("/api/items/cloud-0103/reports", json=report).status_code == 201
    assert bob.put("/api/settings", json={"deadline": B_DEADLINE}).status_code == 200
    cards = f"Front,Back\n{B_CARD} what?,an answer\n".encode()
    deck = bob.post(
        "/api/personal-decks",
        files={"source": ("cards.csv", cards, "text/csv")},
        data={"title": B_DECK},
    )
    assert deck.status_code == 201, deck.text
    assert deck.json()["renamed"] == {}
    personal_item = "global-flashcard-0001"
    assert B_CARD in bob.get(f"/api/items/{personal_item}").text
    return {
        "session_id": (done, open_quiz),
        "name": B_NAME,
        "deck": B_DECK,
        "personal_item": personal_item,
    }


def _snapshot(db_url: str, name: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of ``name``'s study data and account, table by table."""
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        user_id = conn.execute(
            sa.select(schema.users.c.id).where(schema.users.c.name == name)
        ).scalar_one()
        found = {
            table.name: sorted(
                (
                    tuple(map(str, row))
                    for row in conn.execute(sa.select(table).where(table.c.user_id == user_id))
                ),
            )
            for table in STUDY_TABLES
        }
        found["login_sessions"] = [
            (str(n),)
            for n in conn.execute(
                sa.select(sa.func.count()).where(schema.login_sessions.c.user_id == user_id)
            ).scalars()
        ]
    engine.dispose()
    return found


def _urls(path: str, b_ids: dict[str, Any]) -> list[str]:
    """The path with B's ids in it (one URL per B session), or plain values elsewhere."""
    if "session_id" in path:
        return [path.replace("{session_id}", str(s)) for s in b_ids["session_id"]]
    if "{item_id}" in path and "personal_item" in b_ids:
        # B's reviewed item of the shared vault, and B's personal item.
        shared_only = {k: v for k, v in b_ids.items() if k != "personal_item"}
        items = (b_ids["item_id"], b_ids["personal_item"])
        return [url for i in items for url in _urls(path, {**shared_only, "item_id": i})]
    values = {"item_id": b_ids["item_id"], "file_name": "x.svg"}
    if path.startswith("/admin/") or path.startswith("/api/admin/"):
        values["name"] = b_ids["name"]
    elif "decks" in path:
        values["name"] = b_ids.get("deck", B_DECK)
    elif "charts" in path:
        values["name"] = "coverage"
    else:
        values["name"] = "roofline"
    return [_PARAM.sub(lambda m: str(values.get(m.group(1), "1")), path)]


def _send(client: TestClient, method: str, url: str) -> Any:
    if method in ("GET", "HEAD", "DELETE"):
        return client.request(method, url, follow_redirects=False)
    if url.startswith("/api/"):
        return client.request(method, url, json=JSON, follow_redirects=False)
    return client.request(method, url, data=FORM, follow_redirects=False)


def _keep_logged_in(client: TestClient, name: str) -> None:
    # The walk logs A out (/logout) or changes nothing else of A's: log in again.
    if client.get("/api/account").status_code != 200:
        login = client.post("/api/login", json={"name": name, "password": PASSWORD})
        assert login.status_code == 200, login.text


def test_a_learner_cannot_read_or_change_another_learners_data(
    app: FastAPI, db_url: str, alice: TestClient, bob: TestClient
) -> None:
    b_ids = _b_studies(bob)
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        b_ids["item_id"] = conn.execute(sa.select(schema.reviews.c.item_id)).scalar_one()
    engine.dispose()
    assert alice.post("/api/signup", json={"name": A_NAME, "password": PASSWORD}).status_code == 201
    before = _snapshot(db_url, B_NAME)
    assert before["reviews"] and before["active_sessions"] and before["settings"]
    assert before["personal_decks"] and before["personal_items"]
    walked = 0
    for method, path in _routes(app):
        for url in _urls(path, b_ids):
            response = _send(alice, method, url)
            walked += 1
            where = f"{method} {url} -> {response.status_code}"
            assert response.status_code < 500, where
            for marker in B_MARKERS:
                assert marker not in response.text, f"{where} shows B's {marker!r}"
                assert marker not in response.headers.get("location", ""), where
            if "{session_id}" in path or path.startswith(("/admin/", "/api/admin/")):
                assert 400 <= response.status_code < 500, where
            if "decks/{name}" in path:
                assert response.status_code == 404, where
            _keep_logged_in(alice, A_NAME)
    assert walked >= len(_routes(app))
    # A cannot practise B's personal deck either.
    practice = alice.post("/api/study/sessions", json={"kind": "practice", "deck": B_DECK})
    assert B_CARD not in practice.text
    assert _snapshot(db_url, B_NAME) == before
    # B still sees all of it.
    assert B_ANSWER in bob.get(f"/sessions/{b_ids['session_id'][1]}").text
    settings = {s["key"]: s["shown"] for s in bob.get("/api/settings").json()["settings"]}
    assert settings["deadline"] == B_DEADLINE
    assert [d["name"] for d in bob.get("/api/personal-decks").json()["decks"]] == [B_DECK]
    assert B_CARD in bob.get(f"/items/{b_ids['personal_item']}").text


def test_anonymous_requests_to_private_routes_go_to_the_login_page_or_get_401(
    app: FastAPI, anonymous: TestClient
) -> None:
    private = [(m, p) for m, p in _routes(app) if p not in PUBLIC_PATHS]
    assert len(private) > 80
    for method, path in private:
        url = _urls(path, {"session_id": (1,), "item_id": "cloud-0103", "name": B_NAME})[0]
        response = _send(anonymous, method, url)
        where = f"{method} {url} -> {response.status_code}"
        if url.startswith("/api/"):
            assert response.status_code == 401, where
            assert response.json()["error"]["type"] == "NotLoggedIn", where
        else:
            assert response.status_code == 303, where
            wanted = url if method == "GET" else "/"
            assert response.headers["location"] == f"/login?{urlencode({'next': wanted})}", where


def test_the_public_routes_answer_anonymous_requests(app: FastAPI, anonymous: TestClient) -> None:
    assert {p for _, p in _routes(app)} >= PUBLIC_PATHS
    assert anonymous.get("/login").status_code == 200
    assert anonymous.get("/signup").status_code == 200
    assert anonymous.get("/openapi.json").status_code == 200
    assert anonymous.get("/static/style.css").status_code == 200
