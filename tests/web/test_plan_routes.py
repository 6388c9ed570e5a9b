"""The plans page and its JSON twin: list, start (deadline), progress, stop, errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.conftest import starter_plan_size
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import starter_vault_path


@pytest.fixture
def starter_client(tmp_path: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path / "web", vault=starter_vault_path())
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as found:
        yield found


def test_plans_page_offers_each_starter_plan(starter_client: TestClient) -> None:
    page = starter_client.get("/plans")
    assert page.status_code == 200
    for name in ("refresher-1w", "interview-2w", "interview-4w"):
        assert f"Start {name}</button>" in page.text
    assert starter_client.get("/api/plans").json()["active"] is None


def test_starting_from_the_form_shows_progress_and_sets_the_deadline(
    starter_client: TestClient,
) -> None:
    response = starter_client.post(
        "/plans/start", data={"name": "interview-2w", "adaptive": "on"}, follow_redirects=False
    )
    assert (response.status_code, response.headers["location"]) == (303, "/plans")
    page = starter_client.get("/plans").text
    assert "Day 1 of 14 (2026-11-25 to 2026-12-08), weakest topics first." in page
    assert f"Items introduced: 0 of {starter_plan_size('interview-2w')}" in page
    active = starter_client.get("/api/plans").json()["active"]
    assert (active["plan"], active["adaptive"], active["next_item_ids"][0]) == (
        "interview-2w",
        True,
        "cloud-2000",
    )
    settings = starter_client.get("/api/settings").json()["settings"]
    assert {s["key"]: s["value"] for s in settings}["deadline"] == "2026-12-08"


def test_api_start_stop_and_errors(starter_client: TestClient) -> None:
    started = starter_client.post("/api/plans/start", json={"name": "refresher-1w"})
    assert started.status_code == 200
    assert (started.json()["ends_on"], started.json()["deadline_set"]) == ("2026-12-01", True)
    again = starter_client.post("/api/plans/start", json={"name": "interview-4w"})
    assert again.status_code >= 400
    assert again.json()["error"]["message"].startswith("Plan 'refresher-1w' is already active.")
    stopped = starter_client.post("/api/plans/stop")
    assert stopped.json() == {"stopped": "refresher-1w"}
    missing = starter_client.post("/api/plans/start", json={"name": "nope"})
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "PlanNotFound"


def test_plan_banner_and_practice_agree_on_the_new_items_left_today(
    starter_client: TestClient,
) -> None:
    assert starter_client.put("/api/settings", json={"new_per_day": "6"}).status_code == 200
    assert starter_client.post("/api/plans/start", json={"name": "refresher-1w"}).status_code == 200
    page = starter_client.get("/plans").text
    # The plan asks for 19 a day; the setting caps today at 6, and the banner says so.
    assert (
        'New items left today: <strong data-testid="new-left-today">6</strong> '
        "(the plan asks for 19 more, but the new items per day setting allows 6 more today)."
    ) in page
    assert "behind:" not in page
    started = starter_client.post("/api/study/sessions", json={"kind": "practice", "limit": "2"})
    assert started.status_code == 200, started.text
    assert started.json()["title"] == "Practice: 2 items (0 due, 2 new; 4 more new today)"
    # With the setting raised past the plan's pace, the plan's 19 is the figure.
    assert starter_client.put("/api/settings", json={"new_per_day": "40"}).status_code == 200
    active = starter_client.get("/api/plans").json()["active"]
    assert (active["new_left_today"], active["new_left_note"]) == (19, None)
    wider = starter_client.post("/api/study/sessions", json={"kind": "practice", "limit": "3"})
    assert wider.json()["title"] == "Practice: 3 items (0 due, 3 new; 16 more new today)"
