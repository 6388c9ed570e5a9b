"""NUL bytes and oversized ids are a 422 with one line, never a 503 "database failure".

PostgreSQL refuses NUL in text and a name longer than its column, which turned such
input into a 503 that blamed the database. Each route is asked on SQLite and, with
SYSDRILL_TEST_POSTGRES_URL set, on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sysdrill.web.request_limits import MAX_PATH_SEGMENT_CHARS, MAX_QUERY_VALUE_CHARS

from .conftest import make_app, with_csrf

PASSWORD = "correct horse battery"
CARDS = b"Front,Back\nWhat is HBM?,Stacked DRAM\n"
LONG_ID = "x" * (MAX_PATH_SEGMENT_CHARS + 1)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def learner(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TestClient]:
    db_url = None if request.param == "sqlite" else str(request.getfixturevalue("postgres_url"))
    app = make_app(tmp_path / "web", multi_user=True, db_url=db_url)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        signed_up = client.post("/api/signup", json={"name": "ann", "password": PASSWORD})
        assert signed_up.status_code == 201, signed_up.text
        yield client


def _one_line_422(response: Any) -> str:
    assert response.status_code == 422, response.text
    message: str = response.json()["error"]["message"]
    assert "\n" not in message and "atabase" not in message
    return message


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/api/personal-decks/a%00b"),
        ("get", "/api/items/cloud-0101%00"),
        ("get", "/api/study/sessions/1%00"),
        ("post", "/api/items/a%00b/reports"),
        ("get", "/api/items?deck=a%00b"),
        ("get", "/api/items?q=%00"),
    ],
)
def test_a_nul_byte_in_a_path_or_query_is_a_422(
    learner: TestClient, method: str, path: str
) -> None:
    assert "NUL" in _one_line_422(learner.request(method, path))


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/login", {"name": "ann\x00", "password": PASSWORD}),
        ("post", "/api/study/sessions", {"kind": "practice", "deck": "a\x00b"}),
        ("post", "/api/items/cloud-0101/reports", {"kind": "typo", "message": "a\x00b"}),
        ("put", "/api/settings", {"deadline": "2027-01-01\x00"}),
    ],
)
def test_a_nul_byte_in_a_json_body_is_a_422(
    learner: TestClient, method: str, path: str, body: dict[str, str]
) -> None:
    assert "NUL" in _one_line_422(learner.request(method, path, json=body))


def test_a_nul_byte_in_a_form_is_a_422_on_the_error_page(learner: TestClient) -> None:
    for response in (
        learner.post("/my-decks/a%00b/delete"),
        learner.post("/sessions", data={"kind": "practice", "deck": "a\x00b"}),
    ):
        assert response.status_code == 422
        assert "NUL byte" in response.text


def test_a_deck_title_with_a_nul_byte_or_too_long_is_a_422(learner: TestClient) -> None:
    for title, words in (("a\x00b", "NUL"), ("t" * 5000, "at most 200")):
        response = learner.post(
            "/api/personal-decks",
            files={"source": ("gpu.csv", CARDS, "text/csv")},
            data={"title": title},
        )
        assert words in _one_line_422(response)
    assert learner.get("/api/personal-decks").json()["decks"] == []


@pytest.mark.parametrize(
    "path",
    [
        f"/api/personal-decks/{LONG_ID}",
        f"/api/items/{LONG_ID}",
        f"/api/study/sessions/{LONG_ID}",
    ],
)
def test_an_oversized_id_in_the_path_is_a_422(learner: TestClient, path: str) -> None:
    method = "delete" if "personal" in path else "get"
    assert "at most" in _one_line_422(learner.request(method, path))


def test_an_oversized_query_value_is_a_422(learner: TestClient) -> None:
    query = "q=" + "x" * (MAX_QUERY_VALUE_CHARS + 1)
    assert "at most" in _one_line_422(learner.get(f"/api/items?{query}"))


def test_a_page_asked_with_a_nul_byte_or_an_oversized_id_shows_the_error_page(
    learner: TestClient,
) -> None:
    for path in ("/items/a%00b", f"/items/{LONG_ID}"):
        page = learner.get(path)
        assert page.status_code == 422
        assert page.headers["content-type"].startswith("text/html")


def test_ids_and_values_of_ordinary_size_still_work(learner: TestClient) -> None:
    assert learner.get("/api/items/cloud-0101").status_code == 200
    assert learner.get("/api/items", params={"q": "ring all-reduce " * 20}).status_code == 200
    reported = learner.post(
        "/api/items/cloud-0101/reports", json={"kind": "typo", "message": "a \\u0000 b"}
    )
    assert reported.status_code == 201
