"""Typed values out of range are a 422 of the fixed shape, and nothing is stored (issue 29).

A new_per_day of 99999999999999999999999 answered 500 and, once stored, broke every
later page; the planner and the calculators answered 500 to numbers out of their range.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

HUGE = "99999999999999999999999"


def _error(response: object) -> dict[str, object]:
    assert response.status_code == 422, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"}
    assert set(body["error"]) == {"status", "type", "message", "details"}
    assert body["error"]["status"] == 422
    return dict(body["error"])


def _setting(client: TestClient, key: str) -> object:
    settings = client.get("/api/settings").json()["settings"]
    return next(s["value"] for s in settings if s["key"] == key)


def test_a_huge_setting_through_the_api_is_a_422_and_is_not_stored(
    fresh_client: TestClient,
) -> None:
    for key in ("new_per_day", "reviews_per_day", "maximum_interval_days"):
        error = _error(fresh_client.put("/api/settings", json={key: HUGE}))
        assert error["type"] == "SettingInvalid"
        assert key in str(error["message"])
    error = _error(fresh_client.put("/api/settings", json={"learning_steps_minutes": "1e23"}))
    assert "learning_steps_minutes" in str(error["message"])
    assert _setting(fresh_client, "new_per_day") == 20
    assert _setting(fresh_client, "learning_steps_minutes") == [1.0, 10.0]
    for page in ("/", "/practice", "/progress", "/settings", "/api/progress"):
        assert fresh_client.get(page).status_code == 200, page


def test_a_huge_setting_through_the_form_is_a_422_page_and_later_pages_work(
    fresh_client: TestClient,
) -> None:
    page = fresh_client.post("/settings", data={"learning_steps_minutes": "1e23"})
    assert page.status_code == 422
    assert "learning_steps_minutes" in page.text
    assert fresh_client.get("/progress").status_code == 200


def test_planner_inputs_out_of_range_are_a_422(fresh_client: TestClient) -> None:
    error = _error(fresh_client.post("/api/planner", json={"layers": 10**30}))
    assert "layers must be between 1 and 10000" in str(error["message"])
    error = _error(fresh_client.post("/api/planner", json={"kernel_efficiency": "NaN"}))
    assert "kernel_efficiency" in str(error["message"])
    assert fresh_client.get("/planner", params={"layers": HUGE, "run": "1"}).status_code == 422


def test_a_calculator_whose_math_refuses_the_inputs_is_a_422(fresh_client: TestClient) -> None:
    response = fresh_client.post(
        "/api/calculators/chinchilla-model",
        json={"inputs": {"compute": "1e40", "tokens_per_param": "-118"}},
    )
    error = _error(response)
    assert "chinchilla-model cannot compute with these inputs" in str(error["message"])
    page = fresh_client.get(
        "/calculators/chinchilla-model",
        params={"compute": "1e40", "tokens_per_param": "-118", "run": "1"},
    )
    assert page.status_code == 422
