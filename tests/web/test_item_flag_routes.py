"""Suspend, bury and an item's reviews from its page and through the JSON API."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from tests.web.conftest import NOW


def _quiz_total(client: TestClient) -> int:
    started = client.post(
        "/api/study/sessions", json={"kind": "quiz", "deck": "sample-napkin-drills"}
    )
    assert started.status_code == 200, started.text
    total: int = started.json()["total"]
    return total


def test_suspend_from_the_item_page_shows_it_and_leaves_the_item_out_of_a_quiz(
    fresh_client: TestClient,
) -> None:
    before = _quiz_total(fresh_client)
    page = fresh_client.get("/items/cloud-0103").text
    assert "Your reviews" in page and "You have not reviewed this item yet." in page
    assert 'action="/items/cloud-0103/suspend"' in page

    done = fresh_client.post("/items/cloud-0103/suspend", follow_redirects=False)
    assert done.status_code == 303
    assert done.headers["location"] == "/items/cloud-0103#your-reviews"
    shown = fresh_client.get(done.headers["location"]).text
    assert "Suspended: it stays out of sessions until you unsuspend it." in shown
    assert 'action="/items/cloud-0103/unsuspend"' in shown
    assert _quiz_total(fresh_client) == before - 1

    assert fresh_client.post("/items/cloud-0103/unsuspend").status_code == 200
    assert _quiz_total(fresh_client) == before


def test_the_api_buries_until_the_next_utc_midnight_and_unburies(
    fresh_client: TestClient,
) -> None:
    buried = fresh_client.post("/api/items/edge-0101/bury")
    assert buried.status_code == 200, buried.text
    tomorrow = (NOW + timedelta(days=1)).date().isoformat()
    assert buried.json()["buried_until"] == f"{tomorrow}T00:00:00+00:00"
    history = fresh_client.get("/api/items/edge-0101/history").json()
    assert history["status"]["buried_until"] == buried.json()["buried_until"]
    assert history["reviews"] == []
    assert "Unbury" in fresh_client.get("/items/edge-0101").text
    assert fresh_client.post("/api/items/edge-0101/unbury").json()["buried_until"] is None


def test_the_history_lists_a_review_made_in_a_session(fresh_client: TestClient) -> None:
    started = fresh_client.post(
        "/api/study/sessions", json={"kind": "quiz", "deck": "sample-fundamentals"}
    ).json()
    item_id = started["item"]["item_id"]
    session = started["session_id"]
    fresh_client.post(f"/api/study/sessions/{session}/reveal")
    rated = fresh_client.post(f"/api/study/sessions/{session}/rate", json={"rating": "good"})
    assert rated.status_code == 200, rated.text
    [entry] = fresh_client.get(f"/api/items/{item_id}/history").json()["reviews"]
    assert (entry["rating"], entry["graded_by"]) == ("Good", "self")
    assert entry["reviewed_at"].startswith(NOW.date().isoformat())
    page = fresh_client.get(f"/items/{item_id}").text
    assert "<td>Good</td>" in page and "<td>self</td>" in page


def test_item_actions_answer_the_error_shape_for_unknown_items_and_no_ops(
    fresh_client: TestClient,
) -> None:
    missing = fresh_client.post("/api/items/cloud-9999/suspend")
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "QuestionNotFound"
    assert fresh_client.get("/api/items/cloud-9999/history").status_code == 404
    no_op = fresh_client.post("/api/items/cloud-0101/unsuspend")
    assert no_op.status_code == 422
    assert no_op.json()["error"]["message"] == "Item 'cloud-0101' is not suspended."
    form = fresh_client.post("/items/cloud-0101/unbury", follow_redirects=False)
    assert form.status_code == 422
    assert "is not buried" in form.text


def test_item_actions_without_a_csrf_token_are_refused(fresh_client: TestClient) -> None:
    bare = TestClient(fresh_client.app, raise_server_exceptions=False)
    assert bare.post("/api/items/cloud-0101/suspend").status_code == 403
