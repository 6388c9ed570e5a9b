"""The vault browser, the item page and explore, with their JSON twins."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient


def _ids(html: str) -> list[str]:
    return re.findall(r'href="/items/([\w-]+)"', html)


def test_browser_lists_every_item_by_id(client: TestClient) -> None:
    response = client.get("/vault")
    assert response.status_code == 200
    assert "12 items" in response.text
    assert _ids(response.text)[:2] == ["cloud-0101", "cloud-0102"]


def test_browser_filters_by_track_and_level(client: TestClient) -> None:
    data = client.get("/api/items", params={"track": "cloud", "level": "L3"}).json()
    assert [hit["id"] for hit in data["hits"]] == ["cloud-0103"]
    assert data["filters"]["track"] == "cloud"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"zone": "diagnosis"}, ["cloud-0104", "tinyml-0101"]),
        ({"topic": "kv-cache"}, ["edge-0101", "mobile-0101"]),
        ({"area": "reliability", "level": "L4"}, ["global-0102"]),
        ({"deck": "sample-fundamentals", "level": "L1", "track": "cloud"}, ["cloud-0101"]),
        ({"status": "archived"}, []),
    ],
)
def test_browser_filters_by_zone_topic_deck_and_status(
    client: TestClient, params: dict[str, str], expected: list[str]
) -> None:
    hits = client.get("/api/items", params=params).json()["hits"]
    assert [hit["id"] for hit in hits] == expected


def test_blank_filters_from_the_form_mean_any(client: TestClient) -> None:
    response = client.get("/vault", params={"track": "", "level": "", "q": ""})
    assert response.status_code == 200
    assert "12 items" in response.text


def test_full_text_search_ranks_matches_and_marks_terms(client: TestClient) -> None:
    data = client.get("/api/items", params={"q": "pipeline bubble"}).json()
    assert data["hits"][0]["id"] == "cloud-0104"
    assert "**" in data["hits"][0]["snippet"]
    page = client.get("/vault", params={"q": "pipeline bubble"}).text
    assert _ids(page)[0] == "cloud-0104"
    assert "<strong>" in page


def test_search_and_filter_combine(client: TestClient) -> None:
    hits = client.get("/api/items", params={"q": "memory", "track": "edge"}).json()["hits"]
    assert hits
    assert {hit["track"] for hit in hits} == {"edge"}


@pytest.mark.parametrize("param", ["track", "level", "zone", "area", "status"])
def test_a_value_outside_a_closed_set_is_422_with_the_error_shape(
    client: TestClient, param: str
) -> None:
    response = client.get("/api/items", params={param: "bogus"})
    assert response.status_code == 422
    body = response.json()["error"]
    assert body["type"] == "UsageError"
    assert f"{param} must be one of" in body["message"]


def test_a_limit_out_of_range_is_422_with_the_error_shape(client: TestClient) -> None:
    response = client.get("/api/items", params={"limit": "0"})
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "InvalidParameter"
    assert response.json()["error"]["details"][0]["loc"] == ["query", "limit"]


def test_item_page_shows_question_options_and_checked_claims(client: TestClient) -> None:
    page = client.get("/items/cloud-0103").text
    assert "Choosing the ZeRO Stage" in page
    assert "<summary" in page and "Reveal the answer" in page
    assert page.count('data-verdict="ok"') == 5
    assert "<code>7e9 * 16 B = 112 GB</code>" in page
    assert "Common mistake" in page


def test_item_page_shows_the_chain_strip_with_next_in_chain(client: TestClient) -> None:
    page = client.get("/items/cloud-0103").text
    assert "From one all-reduce to a 2,048-GPU plan" in page
    assert re.search(r'<li aria-current="step"><a href="/items/cloud-0103">', page)
    assert 'href="/items/cloud-0104" data-key="n">Next in chain' in page


def test_item_api_returns_claims_and_chains(client: TestClient) -> None:
    data = client.get("/api/items/cloud-0103").json()
    assert data["item"]["id"] == "cloud-0103"
    assert [c["verdict"] for c in data["claims"]] == ["ok"] * 5
    assert data["chains"][0]["next_id"] == "cloud-0104"


def test_last_item_of_a_chain_has_no_next(client: TestClient) -> None:
    assert client.get("/api/items/cloud-0106").json()["chains"][0]["next_id"] is None


def test_unknown_item_is_404_json_with_a_suggestion(client: TestClient) -> None:
    response = client.get("/api/items/cloud-0113")
    assert response.status_code == 404
    assert response.json() == {
        "error": {
            "status": 404,
            "type": "QuestionNotFound",
            "message": response.json()["error"]["message"],
            "details": [],
        }
    }
    assert "did you mean cloud-0103" in response.json()["error"]["message"]


def test_unknown_item_page_is_the_404_page(client: TestClient) -> None:
    response = client.get("/items/nope")
    assert response.status_code == 404
    assert "Not found" in response.text
    assert "no item with id &#39;nope&#39;" in response.text


def test_explore_nests_track_area_topic_level(client: TestClient) -> None:
    tracks = client.get("/api/explore").json()["tracks"]
    cloud = next(t for t in tracks if t["name"] == "cloud")
    assert cloud["items"] == 6
    assert sum(area["items"] for area in cloud["children"]) == 6
    leaf = cloud["children"][0]["children"][0]["children"][0]
    assert leaf["ids"] and leaf["seen"] == 0
    page = client.get("/explore").text
    assert "<details" in page and 'href="/items/cloud-0101"' in page


def test_hostile_item_renders_inert(hostile_client: TestClient) -> None:
    response = hostile_client.get("/items/cloud-0199")
    assert response.status_code == 200
    page = response.text.lower()
    main = page[page.index("<main") : page.index("</main>")]
    assert "<script" not in main
    assert "<img" not in main
    assert "<iframe" not in main
    # Payloads survive only as escaped text: no tag carries a handler or a script link.
    assert not re.search(r"<[a-z][^>]*\son\w+\s*=", main)
    assert not re.search(r"<a[^>]*href\s*=\s*[\"']?\s*javascript", main)
    assert "&lt;img src=x onerror" in main
    # The math still renders, and the visual keeps its shapes.
    assert "<msub>" in main
    assert '<svg viewbox="0 0 10 10"><rect width="4" height="4" fill="teal">' in main


def test_hostile_item_claims_are_marked_right_and_wrong(hostile_client: TestClient) -> None:
    claims = hostile_client.get("/api/items/cloud-0199").json()["claims"]
    assert [(c["verdict"], c["computed_shown"]) for c in claims] == [
        ("wrong", "640 GB"),
        ("ok", "2 ms"),
    ]


def test_search_indexes_a_vault_whose_items_check_flags_and_escapes_them(
    hostile_client: TestClient,
) -> None:
    # The hostile item's markup is an error for `check`, yet it loads: the search
    # index holds it as the browser and the item page do (issue 30).
    data = hostile_client.get("/api/items", params={"q": "ZeRO stage"}).json()
    assert [hit["id"] for hit in data["hits"]] == ["cloud-0103"]
    assert data["note"] is None
    page = hostile_client.get("/vault", params={"q": "hostile"}).text
    assert "cloud-0199" in _ids(page)
    assert '<script>alert("title")' not in page


def test_search_in_a_vault_with_a_duplicate_id_falls_back_to_plain_words(
    tmp_path: Path,
) -> None:
    import shutil

    from sysdrill.content.sample import sample_vault_path

    from .conftest import make_app, with_csrf

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    shutil.copyfile(vault / "questions/cloud/cloud-0103.yaml", vault / "questions/cloud/copy.yaml")
    with with_csrf(TestClient(make_app(tmp_path / "web", vault=vault))) as client:
        data = client.get("/api/items", params={"q": "ZeRO stage"}).json()
        assert data["note"].startswith("searched by plain words")
        page = client.get("/vault", params={"q": "ZeRO stage"}).text
    assert 'class="warn" role="status">searched by plain words' in page


def test_explore_draws_a_treemap_of_tracks_and_areas(client: TestClient) -> None:
    import base64

    page = client.get("/explore").text
    encoded = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert encoded
    svg = base64.b64decode(encoded.group(1)).decode("utf-8")
    assert "parallelism: 0/3 seen" in svg
    assert "reliability: 0/2 seen" in svg


def test_explore_links_long_levels_to_the_vault_browser(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import html
    import re

    from sysdrill.web.routes import vault as vault_routes

    monkeypatch.setattr(vault_routes, "EXPLORE_IDS_SHOWN", 0)
    tracks = client.get("/api/explore").json()["tracks"]
    leaf = tracks[0]["children"][0]["children"][0]["children"][0]
    page = client.get("/explore").text
    links = re.findall(r'<a href="(/vault\?[^"]+)">(\d+) more</a>', page)
    assert links, "no link to the vault browser"
    href, count = links[0]
    assert int(count) == leaf["items"]
    listed = client.get("/api/items?" + html.unescape(href).split("?", 1)[1]).json()
    assert sorted(hit["id"] for hit in listed["hits"]) == leaf["ids"]


def test_search_total_counts_past_the_limit(client: TestClient) -> None:
    every = client.get("/api/items", params={"q": "memory", "limit": 1000}).json()
    one = client.get("/api/items", params={"q": "memory", "limit": 1}).json()
    assert one["total"] == every["total"] == len(every["hits"]) > 1
    assert [hit["id"] for hit in one["hits"]] == [every["hits"][0]["id"]]
    zoned = client.get("/api/items", params={"q": "memory", "zone": "recall"}).json()
    assert zoned["total"] == len(zoned["hits"]) < every["total"]


def _treemap_svg(client: TestClient) -> str:
    import base64

    encoded = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', client.get("/explore").text)
    assert encoded
    return base64.b64decode(encoded.group(1)).decode("utf-8")


def test_explore_treemap_is_redrawn_after_a_review(fresh_client: TestClient) -> None:
    before = _treemap_svg(fresh_client)
    assert _treemap_svg(fresh_client) == before  # kept while nothing changes
    started = fresh_client.post(
        "/api/study/sessions", json={"kind": "quiz", "deck": "sample-fundamentals"}
    ).json()
    item_id = started["item"]["item_id"]
    fresh_client.post(f"/api/study/sessions/{started['session_id']}/reveal")
    fresh_client.post(f"/api/study/sessions/{started['session_id']}/rate", json={"rating": "easy"})
    area = fresh_client.get(f"/api/items/{item_id}").json()["item"]["competency_area"]
    after = _treemap_svg(fresh_client)
    assert after != before
    assert re.search(rf"{area}: 1/\d+ seen", after)
    assert not re.search(rf"{area}: 1/\d+ seen", before)


def test_a_parametric_item_page_shows_drawn_numbers_not_placeholders(tmp_path) -> None:
    from tests.web.conftest import make_app

    from sysdrill.content.sample import starter_vault_path
    from sysdrill.napkin.templates import placeholders

    with TestClient(make_app(tmp_path / "web", vault=starter_vault_path())) as client:
        shown = client.get("/api/items/cloud-4000").json()
        page = client.get("/items/cloud-4000")
    assert page.status_code == 200
    texts = [str(shown.get(field) or "") for field in ("scenario", "question", "title")]
    assert all(placeholders(text) == set() for text in texts), texts
    assert "{" not in page.text.split("<main", 1)[1].split("</main>", 1)[0]
