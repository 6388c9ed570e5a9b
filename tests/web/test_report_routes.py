"""Report a problem with an item; the authors' list."""

from __future__ import annotations

from fastapi.testclient import TestClient


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
