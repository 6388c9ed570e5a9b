"""The dashboard and progress pages, their charts and JSON twins."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from tests.web.conftest import NOW

from sysdrill.app.study import open_study
from sysdrill.study.ratings import GradedBy, Rating


def _review(
    client: TestClient,
    item_id: str,
    *,
    days_ago: int,
    rating: Rating = Rating.GOOD,
    minute: int = 0,
) -> None:
    db_url = client.app.state.sysdrill.db_url  # type: ignore[attr-defined]
    with open_study(db_url, vault=client.app.state.sysdrill.load_vault()) as study:  # type: ignore[attr-defined]
        study.record_review(
            item_id,
            rating=rating,
            graded_by=GradedBy.SELF,
            now=NOW - timedelta(days=days_ago) + timedelta(minutes=minute),
        )


def test_dashboard_of_a_new_learner(client: TestClient) -> None:
    data = client.get("/api/dashboard").json()
    assert (data["due_today"], data["streak_days"], data["items_total"]) == (0, 0, 12)
    assert (data["in_progress"], data["last_finished"]) == ([], None)
    assert len(data["forecast"]) == 30
    assert data["forecast"][0]["day"] == "2026-11-25"
    page = client.get("/").text
    assert 'data-testid="due-today">0<' in page
    assert "No session yet" in page


def test_reviews_show_in_streak_seen_counts_and_charts(fresh_client: TestClient) -> None:
    _review(fresh_client, "cloud-0101", days_ago=1)
    _review(fresh_client, "cloud-0102", days_ago=0)
    data = fresh_client.get("/api/dashboard").json()
    assert (data["streak_days"], data["items_seen"], data["reviews_total"]) == (2, 2, 2)
    progress = fresh_client.get("/api/progress").json()
    assert [d["count"] for d in progress["reviews_per_day"]][-2:] == [1, 1]
    page = fresh_client.get("/progress").text
    assert "<td>parallelism</td><td>cloud</td><td>3</td><td>1</td>" in page


def test_weakest_topics_wait_for_evidence_then_rank_the_topic_rated_again(
    fresh_client: TestClient,
) -> None:
    _review(fresh_client, "edge-0101", days_ago=0, rating=Rating.AGAIN)
    _review(fresh_client, "cloud-0101", days_ago=0)
    page = fresh_client.get("/progress").text
    assert "Not enough reviews yet: a topic is ranked once its items have 5 reviews" in page
    weak_section = page.split('id="weak-h"', 1)[1].split("</section>", 1)[0]
    assert "100 %" not in weak_section and "<table>" not in weak_section
    # kv-cache: five reviews on the first day, three rated Again while still in learning.
    for minute, rating in enumerate([Rating.AGAIN, Rating.GOOD, Rating.AGAIN], start=1):
        _review(fresh_client, "edge-0101", days_ago=0, rating=rating, minute=minute)
    _review(fresh_client, "mobile-0101", days_ago=0, minute=5)
    [kv] = fresh_client.get("/api/progress").json()["weakest_topics"]
    assert (kv["topic"], kv["reviews"], kv["rated_again"], kv["again_share"]) == (
        "kv-cache",
        5,
        3,
        0.6,
    )
    page = fresh_client.get("/progress").text
    assert (
        '<a href="/vault?topic=kv-cache">kv-cache</a></td><td>2</td><td>5</td><td>3 (60 %)' in page
    )


def test_progress_page_links_its_svg_charts(client: TestClient) -> None:
    # Retention is charted once there are reviews (tests/web/test_progress_calendar.py).
    page = client.get("/progress").text
    for name in ("coverage", "reviews", "forecast"):
        assert f'src="/progress/charts/{name}.svg"' in page


def test_each_chart_is_an_svg_without_external_scripts(client: TestClient) -> None:
    for name in ("coverage", "reviews", "retention", "forecast"):
        response = client.get(f"/progress/charts/{name}.svg")
        assert response.status_code == 200
        assert response.headers["content-type"] == "image/svg+xml"
        assert response.text.startswith("<svg")
        assert "kozea.github.io" not in response.text
        assert (
            "http://"
            not in response.text.split("<svg", 1)[1]
            .replace('xmlns="http://www.w3.org/2000/svg"', "")
            .replace('xmlns:xlink="http://www.w3.org/1999/xlink"', "")
            .split("-->")[-1]
        )


def test_an_unknown_chart_is_a_422(client: TestClient) -> None:
    assert client.get("/progress/charts/pie.svg").status_code == 422


def test_a_session_in_progress_is_offered_on_the_dashboard(fresh_client: TestClient) -> None:
    from sysdrill.app.sessions import SessionKind, StartOptions, start_session
    from sysdrill.app.study_vault import open_study_vault

    context = fresh_client.app.state.sysdrill  # type: ignore[attr-defined]
    with open_study(context.db_url, vault=context.load_vault()) as study:
        view = start_session(
            study,
            open_study_vault(context.vault),
            StartOptions(kind=SessionKind.PRACTICE, limit=2),
            now=NOW,
        )
    assert view.session_id is not None
    data = fresh_client.get("/api/dashboard").json()
    assert [s["session_id"] for s in data["in_progress"]] == [view.session_id]
    page = fresh_client.get("/").text
    assert f'<a href="/sessions/{view.session_id}" data-key="c">Go on with' in page
