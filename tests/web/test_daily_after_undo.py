"""The web daily challenge after "Undo last review": the item taken back is asked again."""

from __future__ import annotations

from fastapi.testclient import TestClient

DAILY = {"kind": "daily", "deck": "sample-fundamentals"}
"""A daily set of the sample vault's one fundamentals item."""


def test_the_daily_page_asks_again_an_item_whose_review_was_undone(
    fresh_client: TestClient,
) -> None:
    started = fresh_client.post("/api/study/sessions", json=DAILY).json()
    session = started["session_id"]
    fresh_client.post(f"/api/study/sessions/{session}/reveal")
    fresh_client.post(f"/api/study/sessions/{session}/rate", json={"rating": "good"})
    fresh_client.post(f"/api/study/sessions/{session}/finish")
    done = fresh_client.post("/sessions", data=DAILY, follow_redirects=False)
    assert done.status_code == 200 and "daily items are done" in done.text

    assert fresh_client.post("/undo-last-review").status_code == 200
    again = fresh_client.post("/sessions", data=DAILY, follow_redirects=False)
    assert again.status_code == 303, again.text
    page = fresh_client.get(again.headers["location"])
    assert page.status_code == 200 and started["item"]["item_id"] in page.text
