"""The progress page's review calendar, phone-sized charts and retention (issue 29 item 7)."""

from __future__ import annotations

import re
from datetime import timedelta

from fastapi.testclient import TestClient
from tests.web.conftest import NOW

from sysdrill.app.study import open_study
from sysdrill.study.ratings import GradedBy, Rating


def _review(
    client: TestClient, item_id: str, *, days_ago: int, rating: Rating = Rating.GOOD
) -> None:
    context = client.app.state.sysdrill  # type: ignore[attr-defined]
    with open_study(context.db_url, vault=context.load_vault()) as study:
        study.record_review(
            item_id, rating=rating, graded_by=GradedBy.SELF, now=NOW - timedelta(days=days_ago)
        )


def _year_cells(page: str) -> dict[str, tuple[int, str]]:
    """The desktop calendar's cells: ISO day to (reviews, shade class)."""
    year = page.split('data-testid="heatmap"', 1)[1].split("</svg>", 1)[0]
    return {
        day: (int(count), shade)
        for shade, day, count in re.findall(
            r'<rect class="(shade-\d)"[^>]* data-day="([\d-]+)" data-count="(\d+)"', year
        )
    }


def test_the_calendar_shades_the_days_with_seeded_reviews(fresh_client: TestClient) -> None:
    _review(fresh_client, "cloud-0101", days_ago=0)
    _review(fresh_client, "cloud-0102", days_ago=0)
    _review(fresh_client, "cloud-0103", days_ago=0)
    _review(fresh_client, "cloud-0104", days_ago=3)
    _review(fresh_client, "cloud-0105", days_ago=200)
    _review(fresh_client, "cloud-0106", days_ago=400)  # more than a year ago: not drawn

    page = fresh_client.get("/progress")
    assert page.status_code == 200
    cells = _year_cells(page.text)
    # 2026-11-25 is a Wednesday: 52 whole weeks before this one, and Monday to today.
    assert len(cells) == 52 * 7 + 3
    assert min(cells) == "2025-11-24" and max(cells) == "2026-11-25"
    busy = {day: cell for day, cell in cells.items() if cell[0]}
    assert busy == {
        "2026-11-25": (3, "shade-4"),
        "2026-11-22": (1, "shade-2"),
        "2026-05-09": (1, "shade-2"),
    }
    assert all(shade == "shade-0" for count, shade in cells.values() if not count)
    assert "3 reviews on Wed 25 Nov 2026" in page.text
    summary = page.text.split('data-testid="calendar-summary">', 1)[1].split("</p>", 1)[0]
    assert summary == (
        "5 reviews on 3 days since Mon 24 Nov 2025; the busiest day was Wed 25 Nov 2026 with 3."
    )
    # The phone draws the same days in two bands.
    assert page.text.count('data-testid="heatmap-band"') == 2
    assert page.text.count('data-day="2026-11-25"') == 2


def test_the_calendar_is_in_the_json_twin(fresh_client: TestClient) -> None:
    _review(fresh_client, "cloud-0101", days_ago=1)
    data = fresh_client.get("/api/progress").json()
    assert data["review_days"] == [{"day": "2026-11-24", "count": 1}]
    calendar = data["calendar"]
    assert (calendar["first_day"], calendar["last_day"]) == ("2025-11-24", "2026-11-25")
    assert calendar["busiest"] == {"day": "2026-11-24", "count": 1}
    last_week = calendar["weeks"][-1]
    assert [cell and cell["count"] for cell in last_week] == [0, 1, 0, None, None, None, None]


def test_a_new_learner_sees_an_empty_calendar_and_words_instead_of_retention(
    fresh_client: TestClient,
) -> None:
    page = fresh_client.get("/progress").text
    assert "No reviews in the last year yet" in page
    assert {shade for _, shade in _year_cells(page).values()} == {"shade-0"}
    assert 'data-testid="retention-pending"' in page
    assert 'src="/progress/charts/retention.svg"' not in page
    assert "sysdrill practice" not in page
    assert '<a href="/practice">Start a practice session</a>' in page


def test_retention_is_charted_once_a_learnt_item_is_reviewed(fresh_client: TestClient) -> None:
    # Easy graduates a new item at once; Again days later is a review of a learnt item.
    _review(fresh_client, "cloud-0101", days_ago=20, rating=Rating.EASY)
    _review(fresh_client, "cloud-0101", days_ago=1, rating=Rating.AGAIN)
    page = fresh_client.get("/progress").text
    assert 'data-testid="retention-pending"' not in page
    assert 'src="/progress/charts/retention.svg"' in page
    assert '<th scope="row">Young</th><td>0 % (0/1)</td>' in page


def test_each_chart_has_a_narrow_drawing_for_a_phone(client: TestClient) -> None:
    page = client.get("/progress").text
    for name in ("coverage", "reviews", "forecast"):
        assert f'srcset="/progress/charts/{name}.svg?size=narrow"' in page
        narrow = client.get(f"/progress/charts/{name}.svg", params={"size": "narrow"})
        assert narrow.status_code == 200
        assert 'viewBox="0 0 380 ' in narrow.text.split(">", 1)[0]


def test_an_unknown_chart_size_is_a_422(client: TestClient) -> None:
    response = client.get("/progress/charts/reviews.svg", params={"size": "huge"})
    assert response.status_code == 422


def test_daily_charts_label_mondays_with_day_and_month(client: TestClient) -> None:
    svg = client.get("/progress/charts/forecast.svg").text
    # The forecast starts Wed 25 Nov 2026; its Mondays are 30 Nov, 7, 14 and 21 Dec.
    axis_labels = re.findall(r"<text[^>]*>(\d+ [A-Z][a-z]{2})</text>", svg)
    assert axis_labels == ["30 Nov", "7 Dec", "14 Dec", "21 Dec"]
