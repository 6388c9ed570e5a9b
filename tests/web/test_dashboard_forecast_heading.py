"""The dashboard's forecast heading names as many days as its table has rows."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_forecast_heading_and_rows_agree(client: TestClient) -> None:
    page = client.get("/").text
    section = page.split('aria-labelledby="forecast-h"', 1)[1].split("</section>", 1)[0]
    heading = re.search(r"<h2 id=\"forecast-h\">Next (\d+) days</h2>", section)
    assert heading is not None
    rows = re.findall(r"<tr><td>\d{4}-\d\d-\d\d</td><td>\d+</td></tr>", section)
    assert len(rows) == int(heading.group(1)) == 7
    assert len(client.get("/api/dashboard").json()["forecast"]) == 30
