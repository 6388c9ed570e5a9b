"""The session moves' JSON API: anonymous moves refused, bad input a 422 with its location."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

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


def test_a_bad_session_id_reads_the_same_on_a_move_with_a_body_and_without(
    learner: TestClient,
) -> None:
    with_body = learner.post("/api/study/sessions/abc/answer", json={"text": "42"}).json()
    without = learner.post("/api/study/sessions/abc/skip").json()
    assert with_body["error"]["message"] == without["error"]["message"]
    assert with_body["error"]["details"][0]["loc"] == without["error"]["details"][0]["loc"]
