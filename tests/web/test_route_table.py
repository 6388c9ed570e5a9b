"""Every GET route of the app, read from its route table, answers without a server error."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from sysdrill.web.app import create_app

GOOD_VALUES: dict[str, str] = {
    "item_id": "cloud-0103",
    "name": "roofline",
}
"""A valid value for each path parameter (the chart route takes its own, below)."""

GOOD_BY_PATH: dict[str, dict[str, str]] = {
    "/progress/charts/{name}.svg": {"name": "coverage"},
}

_PARAM = re.compile(r"{(\w+)(?::\w+)?}")

REFUSED_ON_THE_BUNDLED_VAULT = frozenset({"/items/{item_id}/edit", "/api/items/{item_id}/text"})
"""Routes that edit the served vault: the bundled sample vault these tests serve is never
edited, so they answer 403 (tests/web/test_item_edit_routes.py edits a vault of its own)."""


def _get_routes(app: FastAPI) -> list[str]:
    routes = [route for router in app.state.routers for route in router.routes]
    return sorted(
        route.path for route in routes if isinstance(route, APIRoute) and "GET" in route.methods
    )


def _fill(path: str, value_for: dict[str, str]) -> str:
    return _PARAM.sub(lambda m: value_for.get(m.group(1), "1"), path)


ROUTES = _get_routes(create_app(db_url="sqlite://"))
"""GET routes of the app (building it opens nothing)."""


def test_the_route_table_holds_every_page_and_its_api_twin() -> None:
    for path in ("/", "/vault", "/items/{item_id}", "/explore", "/progress", "/calculators"):
        assert path in ROUTES
    for path in ("/import", "/export", "/settings", "/reports"):
        assert path in ROUTES
    for path in ("/api/dashboard", "/api/items", "/api/items/{item_id}", "/api/explore"):
        assert path in ROUTES
    for path in ("/api/progress", "/api/calculators", "/api/settings", "/api/reports"):
        assert path in ROUTES


@pytest.mark.parametrize("path", ROUTES)
def test_every_get_route_answers_with_good_parameters(client: TestClient, path: str) -> None:
    url = _fill(path, {**GOOD_VALUES, **GOOD_BY_PATH.get(path, {})})
    response = client.get(url)
    assert response.status_code < 500, (url, response.text[:300])
    if (
        not _PARAM.search(path)
        or path in GOOD_BY_PATH
        or set(_PARAM.findall(path)) <= set(GOOD_VALUES)
    ):
        expected = (403,) if path in REFUSED_ON_THE_BUNDLED_VAULT else (200, 303, 307)
        assert response.status_code in expected, (url, response.status_code)


@pytest.mark.parametrize("path", [p for p in ROUTES if _PARAM.search(p)])
def test_every_get_route_with_a_bad_id_is_a_client_error(client: TestClient, path: str) -> None:
    url = _fill(path, dict.fromkeys(_PARAM.findall(path), "no-such-thing"))
    response = client.get(url)
    assert 400 <= response.status_code < 500, (url, response.status_code)
    if url.startswith("/api/"):
        assert set(response.json()["error"]) == {"status", "type", "message", "details"}


def test_openapi_lists_the_api_routes(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/items/{item_id}" in schema["paths"]
    assert "/api/calculators/{name}" in schema["paths"]
    assert all(path.startswith("/api/") for path in schema["paths"])
    assert client.get("/docs").status_code == 200
