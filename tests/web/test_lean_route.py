"""The session moves' lean handler: same answers as FastAPI's, and only for their shape."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import Depends, FastAPI, Request
from fastapi.testclient import TestClient
from pydantic import BaseModel

from sysdrill.web import lean_route
from sysdrill.web.context import Context
from sysdrill.web.json_api import json_route
from sysdrill.web.lean_route import LeanMoveRoute
from sysdrill.web.routes import study_api

from .conftest import make_app, with_csrf


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return make_app(tmp_path, multi_user=True)


@pytest.fixture
def learner(app: FastAPI) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        signed = client.post("/api/signup", json={"name": "ada", "password": "a long passphrase"})
        assert signed.is_success
        yield client


def _session(client: TestClient) -> int:
    started = client.post(
        "/api/study/sessions", json={"kind": "practice", "deck": "sample-fundamentals"}
    )
    assert started.status_code == 200, started.text
    return int(started.json()["session_id"])


def test_every_move_with_a_body_takes_the_lean_handler() -> None:
    routes = [route for route in study_api.router.routes if isinstance(route, LeanMoveRoute)]
    assert len(routes) == len(study_api.router.routes)
    lean = {route.path.rsplit("/", 1)[1] for route in routes if route.lean}
    assert lean == {"answer", "rate", "part", "rubric", "chain"}


def test_a_move_request_goes_through_the_lean_handler(
    learner: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = _session(learner)
    seen: list[object] = []
    real = lean_route._SESSION_ID

    class Spy:
        def validate_python(self, value: object) -> int:
            seen.append(value)
            return real.validate_python(value)

    monkeypatch.setattr(lean_route, "_SESSION_ID", Spy())
    state = learner.get(f"/api/study/sessions/{session_id}").json()
    body = {"text": "42"} if state["phase"] == "answer" else {"rating": "good"}
    moved = learner.post(f"/api/study/sessions/{session_id}/{state['phase']}", json=body)
    assert moved.status_code == 200, moved.text
    assert moved.headers["content-type"] == "application/json"
    assert seen == [str(session_id)]


def test_anonymous_move_is_refused_with_401(app: FastAPI) -> None:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as anonymous:
        refused = anonymous.post("/api/study/sessions/1/answer", json={"text": "42"})
    assert refused.status_code == 401, refused.text


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/api/study/sessions/abc/answer", b'{"text": "42"}', ["path", "session_id"]),
        ("/api/study/sessions/1/answer", b"{}", ["body", "text"]),
        ("/api/study/sessions/1/rate", b'{"rating": 4', ["body"]),
        ("/api/study/sessions/1/rubric", b'{"covered": "all"}', ["body", "covered"]),
        ("/api/study/sessions/1/chain", b"", ["body"]),
    ],
)
def test_bad_input_is_refused_as_fastapi_refuses_it(
    learner: TestClient, path: str, body: bytes, where: list[str]
) -> None:
    refused = learner.post(path, content=body, headers={"content-type": "application/json"})
    assert refused.status_code == 422, refused.text
    error = refused.json()["error"]
    assert error["type"] == "InvalidParameter"
    assert error["details"][0]["loc"][: len(where)] == where


def test_a_bad_session_id_reads_as_on_a_route_fastapi_handles(learner: TestClient) -> None:
    lean = learner.post("/api/study/sessions/abc/answer", json={"text": "42"}).json()
    standard = learner.post("/api/study/sessions/abc/skip").json()
    assert lean["error"]["message"] == standard["error"]["message"]
    assert lean["error"]["details"][0]["loc"] == standard["error"]["details"][0]["loc"]


class _Body(BaseModel):
    text: str


@json_route()
def _move(request: Request, context: Context, session_id: int, body: _Body) -> dict[str, Any]:
    return {"session_id": session_id, "text": body.text}


def _extra() -> None:
    return None


@json_route()
def _with_query(
    request: Request, context: Context, session_id: int, body: _Body, page: int = 1
) -> dict[str, Any]:
    return {}


def _plain(request: Request, context: Context, session_id: int, body: _Body) -> dict[str, Any]:
    return {}


def test_only_the_moves_shape_takes_the_lean_handler() -> None:
    path = "/x/{session_id}"
    assert LeanMoveRoute(path, _move, methods=["POST"]).lean
    # Another dependency, another parameter, or an endpoint returning data: FastAPI's own.
    assert not LeanMoveRoute(path, _move, methods=["POST"], dependencies=[Depends(_extra)]).lean
    assert not LeanMoveRoute(path, _with_query, methods=["POST"]).lean
    assert not LeanMoveRoute(path, _plain, methods=["POST"]).lean
