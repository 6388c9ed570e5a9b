"""The ``new`` field of the practice, quiz and daily start forms and of the JSON API."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient


def _error_line(page: str) -> str:
    match = re.search(r'<p class="error-message" role="alert">(.*?)</p>', page)
    assert match is not None, page
    return match.group(1)


@pytest.mark.parametrize("form", ["practice", "quiz", "daily"])
def test_the_start_forms_offer_a_labelled_new_item_field(client: TestClient, form: str) -> None:
    page = client.get("/practice").text
    assert f'<label for="{form}-new">New items this session</label>' in page
    assert f'<input id="{form}-new" name="new" type="number" min="0"' in page


def test_practice_form_with_new_caps_the_new_items(fresh_client: TestClient) -> None:
    started = fresh_client.post(
        "/sessions", data={"kind": "practice", "new": "2"}, follow_redirects=True
    )
    assert started.status_code == 200
    assert "Practice: 2 items (0 due, 2 new; 18 more new today)" in started.text


def test_api_start_with_new_caps_the_new_items(fresh_client: TestClient) -> None:
    body = fresh_client.post("/api/study/sessions", json={"kind": "practice", "new": 1}).json()
    assert body["title"] == "Practice: 1 items (0 due, 1 new; 19 more new today)"
    assert body["options"]["new_limit"] == 1


def test_new_zero_leaves_nothing_new_to_practise(fresh_client: TestClient) -> None:
    body = fresh_client.post("/api/study/sessions", json={"kind": "practice", "new": 0}).json()
    assert body["session_id"] is None
    assert body["empty_message"].startswith(
        "Nothing to practise now: no item is due and no new item is allowed "
        "(20 new items a day, 0 new today; this session takes no new item)."
    )


@pytest.mark.parametrize("value", ["-1", "two", "1.5", "²"])
def test_a_bad_new_value_in_the_form_is_a_one_line_422(fresh_client: TestClient, value) -> None:
    page = fresh_client.post("/sessions", data={"kind": "quiz", "deck": "x", "new": value})
    assert page.status_code == 422
    escaped = value.replace("'", "&#39;")
    assert _error_line(page.text) == (
        f"new must be a whole number from 0 to 100,000, got &#39;{escaped}&#39;."
    )


def test_a_negative_new_in_the_api_is_a_422_naming_the_field(fresh_client: TestClient) -> None:
    response = fresh_client.post("/api/study/sessions", json={"kind": "daily", "new": -1})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["message"] == "invalid parameter: new"
    assert error["details"][0]["loc"] == ["body", "new"]
