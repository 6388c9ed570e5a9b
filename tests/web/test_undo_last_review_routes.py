"""The dashboard's "Undo last review" and its JSON twin."""

from __future__ import annotations

from fastapi.testclient import TestClient


def _rate_one(client: TestClient, rating: str) -> str:
    started = client.post(
        "/api/study/sessions", json={"kind": "quiz", "deck": "sample-fundamentals"}
    ).json()
    session = started["session_id"]
    client.post(f"/api/study/sessions/{session}/reveal")
    rated = client.post(f"/api/study/sessions/{session}/rate", json={"rating": rating})
    assert rated.status_code == 200, rated.text
    client.post(f"/api/study/sessions/{session}/finish")
    item_id: str = started["item"]["item_id"]
    return item_id


def test_the_dashboard_undoes_the_last_review_and_says_which(fresh_client: TestClient) -> None:
    assert "Undo last review" not in fresh_client.get("/").text  # nothing reviewed yet
    item_id = _rate_one(fresh_client, "good")
    assert 'action="/undo-last-review"' in fresh_client.get("/").text
    page = fresh_client.post("/undo-last-review")
    assert page.status_code == 200, page.text
    assert "Undid your Good review of " in page.text and f"({item_id})" in page.text
    assert fresh_client.get(f"/api/items/{item_id}/history").json()["reviews"] == []


def test_the_api_undoes_and_then_refuses_with_the_error_shape(fresh_client: TestClient) -> None:
    item_id = _rate_one(fresh_client, "easy")
    undone = fresh_client.post("/api/reviews/undo-last")
    assert undone.status_code == 200, undone.text
    assert (undone.json()["item_id"], undone.json()["rating"]) == (item_id, "Easy")
    refused = fresh_client.post("/api/reviews/undo-last")
    assert refused.status_code == 422
    assert refused.json()["error"]["message"].startswith("Nothing to undo")


def test_undo_without_a_csrf_token_is_refused(fresh_client: TestClient) -> None:
    _rate_one(fresh_client, "good")
    bare = TestClient(fresh_client.app, raise_server_exceptions=False)
    assert bare.post("/undo-last-review").status_code == 403
    assert bare.post("/api/reviews/undo-last").status_code == 403
    assert fresh_client.post("/api/reviews/undo-last").status_code == 200  # still there
