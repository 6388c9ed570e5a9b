"""The results page's score line and its item list tell the same story (issue 29).

A self-rated exercise was counted in the score as "passed" while its line said only
"answered, rated Good"; the page now says which answers were graded and which rated
by the learner, and the counts add up.
"""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_a_self_rated_item_is_named_so_in_the_list_and_counted_so_in_the_score(
    fresh_client: TestClient,
) -> None:
    client = fresh_client
    started = client.post("/api/study/sessions", json={"kind": "quiz", "deck": "sample-exercises"})
    assert started.status_code in (200, 201), started.text
    session_id = started.json()["session_id"]
    for text in ("~48.8 hours", "76 min", "half an interval"):
        moved = client.post(f"/api/study/sessions/{session_id}/part", json={"text": text})
        assert moved.status_code == 200, moved.text
    rated = client.post(f"/api/study/sessions/{session_id}/rate", json={"rating": "good"})
    assert rated.status_code == 200, rated.text
    client.post(f"/api/study/sessions/{session_id}/finish")
    page = client.get(f"/sessions/{session_id}/results").text
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page))
    assert "self-rated Good" in text
    assert "1 answered (0 graded right, 0 graded wrong, 1 self-rated), 1 passed" in text
