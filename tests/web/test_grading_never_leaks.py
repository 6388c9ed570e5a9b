"""A typo in a numeric answer is asked again with the form expected, never the answer (issue 29).

In the browser (the session page and its JSON twin) the re-prompt used to say
"type a value such as '128 KiB'", the expected answer; typing it back scored Correct.
"""

from __future__ import annotations

from fastapi.testclient import TestClient


def _numeric_session(client: TestClient) -> int:
    """A practice session whose first item is the sample vault's numeric one (128 KiB)."""
    started = client.post(
        "/api/study/sessions",
        json={"kind": "practice", "track": "edge", "topic": "kv-cache", "limit": 1},
    )
    assert started.status_code in (200, 201), started.text
    view = started.json()
    assert view["item"]["item_id"] == "edge-0101", view["item"]
    return int(view["session_id"])


def test_a_typo_is_refused_with_the_form_and_typing_it_back_scores_wrong(
    fresh_client: TestClient,
) -> None:
    session_id = _numeric_session(fresh_client)
    refused = fresh_client.post(f"/api/study/sessions/{session_id}/answer", json={"text": "lots"})
    assert refused.status_code == 422, refused.text
    message = refused.json()["error"]["message"]
    assert message == "Could not read 'lots' as a number; type a number with a unit, like 3 KiB."
    assert "128" not in message
    example = message.rsplit("like ", 1)[1].rstrip(".")
    graded = fresh_client.post(f"/api/study/sessions/{session_id}/answer", json={"text": example})
    assert graded.status_code == 200, graded.text
    assert graded.json()["feedback"]["correct"] is False


def test_the_session_page_shows_the_form_not_the_answer_after_a_typo(
    fresh_client: TestClient,
) -> None:
    session_id = _numeric_session(fresh_client)
    page = fresh_client.post(f"/sessions/{session_id}/answer", data={"text": "lots"})
    # The session page again, the item still waiting (issue 29: no error page for a typo).
    assert page.status_code == 200
    assert "type a number with a unit, like 3 KiB." in page.text
    assert "128 KiB" not in page.text
