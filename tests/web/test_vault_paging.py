"""The vault browser pages through every match: next and previous links keep the filters."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from fastapi.testclient import TestClient


def _ids(page: str) -> list[str]:
    return re.findall(r'href="/items/([\w-]+)"', page)


def _link(page: str, rel: str) -> str:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', page)
    assert found is not None, f"no {rel} link"
    return html.unescape(found.group(1))


def test_page_two_lists_the_next_items_and_says_which(client: TestClient) -> None:
    every_id = [hit["id"] for hit in client.get("/api/items").json()["hits"]]
    assert len(every_id) == 12
    first = client.get("/vault", params={"limit": "5"}).text
    assert _ids(first) == every_id[:5]
    assert "showing items 1-5 of 12" in first
    second = client.get(_link(first, "next"))
    assert second.status_code == 200
    assert _ids(second.text) == every_id[5:10]
    assert "showing items 6-10 of 12" in second.text
    third = client.get(_link(second.text, "next")).text
    assert _ids(third) == every_id[10:]
    assert 'rel="next"' not in third
    back = client.get(_link(third, "prev")).text
    assert _ids(back) == every_id[5:10]


def test_page_links_keep_the_query_and_filters(client: TestClient) -> None:
    params = {"q": "memory", "status": "published", "limit": "1"}
    first = client.get("/vault", params=params)
    matches = client.get("/api/items", params=params).json()["total"]
    assert matches >= 2, "the sample vault needs two published items about memory"
    kept = parse_qs(urlsplit(_link(first.text, "next")).query)
    assert kept == {"q": ["memory"], "status": ["published"], "limit": ["1"], "page": ["2"]}
    second = client.get(_link(first.text, "next")).text
    assert _ids(second) and _ids(second) != _ids(first.text)
    assert "showing items 2-2 of" in second


def test_the_json_twin_pages_the_same_way(client: TestClient) -> None:
    every_id = [hit["id"] for hit in client.get("/api/items").json()["hits"]]
    body = client.get("/api/items", params={"limit": "4", "page": "3"}).json()
    assert (body["page"], body["limit"], body["offset"], body["total"]) == (3, 4, 8, 12)
    assert [hit["id"] for hit in body["hits"]] == every_id[8:12]


def test_a_page_past_the_end_is_empty_with_a_link_back(client: TestClient) -> None:
    response = client.get("/vault", params={"track": "cloud", "limit": "2", "page": "40"})
    assert response.status_code == 200
    assert _ids(response.text) == []
    assert "Page 40 is past the last item" in response.text
    assert 'href="/vault?track=cloud&amp;limit=2">Go to the first page' in response.text
    cloud_total = client.get("/api/items", params={"track": "cloud"}).json()["total"]
    last_page = -(-cloud_total // 2)
    previous = parse_qs(urlsplit(_link(response.text, "prev")).query)
    assert previous["page"] == [str(last_page)]  # the last page that holds items
    assert client.get("/api/items", params={"page": "40"}).json()["hits"] == []


def test_a_page_number_below_one_is_422_with_the_error_shape(client: TestClient) -> None:
    response = client.get("/api/items", params={"page": "0"})
    assert response.status_code == 422
    assert "error" in response.json()
    assert client.get("/vault", params={"page": "zero"}).status_code == 422
