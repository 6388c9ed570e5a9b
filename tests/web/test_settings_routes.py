"""Settings in the browser and the API."""

from __future__ import annotations

from fastapi.testclient import TestClient


def _shown(client: TestClient) -> dict[str, str]:
    return {s["key"]: s["shown"] for s in client.get("/api/settings").json()["settings"]}


def test_settings_page_has_a_labelled_field_per_setting(client: TestClient) -> None:
    page = client.get("/settings").text
    for key in ("desired_retention", "deadline", "new_per_day", "reviews_per_day"):
        assert f'<label for="set-{key}">' in page
    assert 'type="date"' in page


def test_form_stores_changes_and_redirects(fresh_client: TestClient) -> None:
    response = fresh_client.post(
        "/settings",
        data={"desired_retention": "0.85", "deadline": "2027-01-15", "new_per_day": "5"},
        follow_redirects=False,
    )
    assert response.status_code == 303
    shown = _shown(fresh_client)
    assert (shown["desired_retention"], shown["deadline"], shown["new_per_day"]) == (
        "0.85",
        "2027-01-15",
        "5",
    )
    assert "Saved." in fresh_client.get(response.headers["location"]).text


def test_blank_deadline_clears_it(fresh_client: TestClient) -> None:
    fresh_client.put("/api/settings", json={"deadline": "2027-01-15"})
    fresh_client.put("/api/settings", json={"deadline": ""})
    assert _shown(fresh_client)["deadline"] == ""


def test_a_value_out_of_range_is_422_and_nothing_is_stored(fresh_client: TestClient) -> None:
    response = fresh_client.put(
        "/api/settings", json={"new_per_day": "7", "desired_retention": "2"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "SettingInvalid"
    assert _shown(fresh_client)["new_per_day"] == "20"


def test_an_unknown_setting_is_422(fresh_client: TestClient) -> None:
    response = fresh_client.put("/api/settings", json={"colour": "blue"})
    assert response.status_code == 422
    assert "Unknown setting 'colour'" in response.json()["error"]["message"]
