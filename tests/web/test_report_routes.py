"""Report a problem with an item; the authors' list."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.web.conftest import make_app, with_csrf


def test_a_report_from_the_item_page_is_stored_and_listed(fresh_client: TestClient) -> None:
    response = fresh_client.post(
        "/items/cloud-0103/report",
        data={"kind": "wrong-math", "message": "<b>7e9 * 16 B</b> is 112 GB"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/items/cloud-0103?reported=true"
    assert "your report was saved" in fresh_client.get(response.headers["location"]).text
    reports = fresh_client.get("/api/reports").json()["reports"]
    assert reports == [
        {
            "item_id": "cloud-0103",
            "kind": "wrong-math",
            "message": "<b>7e9 * 16 B</b> is 112 GB",
            "reported_at": "2026-11-25T12:00:00+00:00",
            "user": "local",
        }
    ]
    page = fresh_client.get("/reports").text
    assert "&lt;b&gt;7e9 * 16 B&lt;/b&gt;" in page


def test_the_api_stores_a_report(fresh_client: TestClient) -> None:
    response = fresh_client.post(
        "/api/items/edge-0101/reports", json={"kind": "typo", "message": "teh"}
    )
    assert response.status_code == 201
    assert response.json()["item_id"] == "edge-0101"
    assert len(fresh_client.get("/api/reports").json()["reports"]) == 1


def test_a_report_on_an_unknown_item_is_404(fresh_client: TestClient) -> None:
    response = fresh_client.post("/api/items/nope/reports", json={"kind": "typo", "message": "x"})
    assert response.status_code == 404
    assert fresh_client.get("/api/reports").json()["reports"] == []


def test_a_report_of_an_unknown_kind_or_blank_message_is_422(fresh_client: TestClient) -> None:
    bad_kind = fresh_client.post(
        "/api/items/edge-0101/reports", json={"kind": "rant", "message": "x"}
    )
    assert bad_kind.status_code == 422
    blank = fresh_client.post("/api/items/edge-0101/reports", json={"kind": "typo", "message": " "})
    assert blank.status_code == 422
    assert blank.json()["error"]["message"] == "say what is wrong: the message is empty"


def test_a_report_too_long_or_of_an_unknown_kind_from_the_item_page_is_a_422_page(
    fresh_client: TestClient,
) -> None:
    for form in ({"kind": "typo", "message": "x" * 4001}, {"kind": "rant", "message": "x"}):
        response = fresh_client.post("/items/cloud-0103/report", data=form)
        assert response.status_code == 422
        assert response.headers["content-type"].startswith("text/html")
    assert fresh_client.get("/api/reports").json()["reports"] == []


def test_a_report_keeps_its_message_without_the_blanks_around_it(
    fresh_client: TestClient,
) -> None:
    sent = fresh_client.post(
        "/api/items/edge-0101/reports", json={"kind": "other", "message": " ünïcode ≈ 7e9 \n"}
    )
    assert sent.json()["message"] == "ünïcode ≈ 7e9"
    assert fresh_client.get("/api/reports").json()["reports"][0]["message"] == "ünïcode ≈ 7e9"


def test_reports_are_listed_newest_first(fresh_client: TestClient) -> None:
    for item_id in ("cloud-0101", "cloud-0102", "cloud-0103"):
        sent = fresh_client.post(
            f"/api/items/{item_id}/reports", json={"kind": "typo", "message": "teh"}
        )
        assert sent.status_code == 201
    reports = fresh_client.get("/api/reports").json()["reports"]
    assert [r["item_id"] for r in reports] == ["cloud-0103", "cloud-0102", "cloud-0101"]


def test_a_reports_file_an_earlier_version_left_is_not_listed(tmp_path: Path) -> None:
    old = tmp_path / "web" / "data" / "reports.jsonl"
    old.parent.mkdir(parents=True)
    old.write_text(
        '{"item_id": "cloud-0103", "kind": "typo", "message": "teh",'
        ' "reported_at": "2026-11-24T12:00:00+00:00", "user": "local"}\n',
        encoding="utf-8",
    )
    with TestClient(make_app(tmp_path / "web")) as client:
        assert client.get("/api/reports").json()["reports"] == []


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One study database for two apps: a SQLite file, and PostgreSQL when configured."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_two_workers_on_one_database_list_each_others_reports(
    tmp_path: Path, shared_db_url: str
) -> None:
    # Each worker has a data folder of its own, as on two machines behind one proxy.
    first = make_app(tmp_path / "first", db_url=shared_db_url)
    second = make_app(tmp_path / "second", db_url=shared_db_url)
    with (
        with_csrf(TestClient(first, raise_server_exceptions=False)) as one,
        with_csrf(TestClient(second, raise_server_exceptions=False)) as two,
    ):
        assert (
            one.post(
                "/api/items/cloud-0101/reports", json={"kind": "typo", "message": "from one"}
            ).status_code
            == 201
        )
        assert (
            two.post(
                "/items/cloud-0102/report",
                data={"kind": "unclear", "message": "from two"},
                follow_redirects=False,
            ).status_code
            == 303
        )
        for client in (one, two):
            reports = client.get("/api/reports").json()["reports"]
            assert [r["message"] for r in reports] == ["from two", "from one"]
            assert "from one" in client.get("/reports").text
