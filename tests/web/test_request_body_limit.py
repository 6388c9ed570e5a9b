"""Oversized request bodies are refused with 413 before the login or the app reads them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.web.request_limits import (
    BODY_LIMIT_BYTES,
    UPLOAD_BODY_LIMIT_BYTES,
    RequestLimitsMiddleware,
)

from .conftest import make_app, with_csrf

OVER = BODY_LIMIT_BYTES + 1


@pytest.fixture(scope="module")
def multi_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    return make_app(tmp_path_factory.mktemp("limits"), multi_user=True)


@pytest.fixture
def anonymous(multi_app: FastAPI) -> Iterator[TestClient]:
    with TestClient(multi_app, raise_server_exceptions=False) as client:
        yield client


def _refused(response: Any) -> None:
    assert response.status_code == 413, response.text
    error = response.json()["error"]
    assert error["type"] == "RequestTooLarge"
    assert error["message"] == (
        "the request body is larger than 1 MiB, the most this route accepts"
    )


def test_an_anonymous_oversized_json_body_is_refused(anonymous: TestClient) -> None:
    body = json.dumps({"name": "ann", "password": "x" * OVER})
    _refused(
        anonymous.post("/api/login", content=body, headers={"Content-Type": "application/json"})
    )


def test_an_anonymous_chunked_oversized_body_is_refused(anonymous: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"name": "ann", "password": "'
        for _ in range(OVER // 65536 + 1):
            yield b"x" * 65536
        yield b'"}'

    response = anonymous.post(
        "/api/login", content=chunks(), headers={"Content-Type": "application/json"}
    )
    _refused(response)


def _drive(
    middleware: RequestLimitsMiddleware, path: str, headers: list[tuple[bytes, bytes]], parts: int
) -> tuple[list[dict[str, Any]], int]:
    """Send ``parts`` chunks of 64 KiB through ``middleware``; return what was sent and read."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read >= parts:
            return {"type": "http.disconnect"}
        read += 1
        return {"type": "http.request", "body": b"x" * 65536, "more_body": read < parts}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"localhost"), *headers],
        "app": FastAPI(),
    }
    asyncio.run(middleware(scope, receive, send))  # type: ignore[arg-type]
    return sent, read


def test_a_declared_oversized_body_is_refused_without_reading_it_or_calling_the_app() -> None:
    called: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append("app")

    middleware = RequestLimitsMiddleware(app)
    length = (b"content-length", str(100 * 1024 * 1024).encode())
    sent, read = _drive(middleware, "/api/login", [length], parts=1600)
    assert (sent[0]["status"], read, called) == (413, 0, [])


def test_a_chunked_oversized_body_is_refused_before_the_app_sees_any_of_it() -> None:
    seen: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(len((await receive())["body"]))

    sent, read = _drive(RequestLimitsMiddleware(app), "/api/login", [], parts=1600)
    assert sent[0]["status"] == 413
    assert seen == []
    # It stopped reading just past the limit, not at the end of the 100 MiB.
    assert read * 65536 <= BODY_LIMIT_BYTES + 65536


def test_a_chunked_oversized_upload_is_cut_off_at_its_own_limit() -> None:
    taken = 0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal taken
        while (message := await receive())["type"] == "http.request":
            taken += len(message["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"imported"})

    parts = UPLOAD_BODY_LIMIT_BYTES // 65536 + 50
    sent, read = _drive(RequestLimitsMiddleware(app), "/api/personal-decks", [], parts=parts)
    assert [m.get("status") for m in sent if m["type"] == "http.response.start"] == [413]
    assert b"imported" not in b"".join(m.get("body", b"") for m in sent)
    assert taken <= UPLOAD_BODY_LIMIT_BYTES
    assert read < parts


def test_a_body_within_the_limit_reaches_the_app_whole() -> None:
    seen: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((await receive())["body"])

    _drive(RequestLimitsMiddleware(app), "/api/login", [], parts=1)
    assert seen == [b"x" * 65536]


def test_an_upload_larger_than_a_form_still_imports(tmp_path: Path) -> None:
    app = make_app(tmp_path / "web", vault=_own_vault(tmp_path))
    source = _big_csv()
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        response = client.post(
            "/api/import/preview",
            files={"source": ("big.csv", source, "text/csv")},
            data={"format": "csv"},
        )
        assert response.status_code == 200, response.text
        token = response.json()["token"]
        confirmed = client.post("/api/import/confirm", data={"token": token, "format": "csv"})
        assert confirmed.status_code == 200, confirmed.text


def _own_vault(tmp_path: Path) -> Path:
    import shutil

    from sysdrill.content.sample import sample_vault_path

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    return vault


def _big_csv() -> bytes:
    """A flashcard CSV of about 1.5 MiB: over the limit of a form, under an upload's."""
    rows = [f"Question {n}: {'why ' * 60}?,Answer {n}" for n in range(6000)]
    data = ("Front,Back\n" + "\n".join(rows) + "\n").encode()
    assert BODY_LIMIT_BYTES < len(data) < UPLOAD_BODY_LIMIT_BYTES
    return data
