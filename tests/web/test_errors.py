"""The one exception handler: status codes and the fixed JSON error shape."""

from __future__ import annotations

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

from sysdrill import errors
from sysdrill.web.errors import STATUS_BY_ERROR, install_error_handler, status_for


def _raising_app(exc: Exception) -> TestClient:
    app = FastAPI()
    install_error_handler(app)
    router = APIRouter()

    @router.get("/api/boom")
    def api_boom() -> None:
        raise exc

    @router.get("/boom")
    def page_boom() -> None:
        raise exc

    app.include_router(router)
    return TestClient(app, raise_server_exceptions=False)


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (errors.QuestionNotFound("no item with id 'x'"), 404),
        (
            errors.SessionNotFound("no session 7")
            if hasattr(errors, "SessionNotFound")
            else errors.DeckNotFound("no deck"),
            404,
        ),
        (errors.UsageError("bad"), 422),
        (errors.HostileInput("too big"), 413),
        (errors.StorageConflict("clash"), 409),
        (errors.StorageUnavailable("down"), 503),
        (errors.SysdrillError("plain"), 400),
    ],
)
def test_sysdrill_errors_map_to_status_and_one_json_shape(exc: Exception, status: int) -> None:
    response = _raising_app(exc).get("/api/boom")
    assert response.status_code == status
    assert response.json() == {
        "error": {
            "status": status,
            "type": type(exc).__name__,
            "message": str(exc),
            "details": [],
        }
    }


def test_pages_get_the_error_page_with_the_same_status() -> None:
    response = _raising_app(errors.QuestionNotFound("no item with id 'zz-1'")).get("/boom")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "no item with id &#39;zz-1&#39;" in response.text


def test_unexpected_errors_are_500_without_the_exception_text() -> None:
    response = _raising_app(RuntimeError("secret detail")).get("/api/boom")
    assert response.status_code == 500
    assert response.json()["error"]["type"] == "InternalError"
    assert "secret" not in response.text


def test_every_error_class_has_a_status() -> None:
    classes = [getattr(errors, name) for name in errors.__all__]
    for cls in classes:
        assert 400 <= status_for(cls("x")) < 600
    assert set(STATUS_BY_ERROR) <= set(classes)


def test_a_write_from_another_site_is_refused(fresh_client) -> None:
    response = fresh_client.put(
        "/api/settings",
        json={"new_per_day": "5"},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "CrossSiteRequest"
    page = fresh_client.post("/settings", data={"new_per_day": "5"}, headers={"Origin": "null"})
    assert page.status_code == 403
    shown = {s["key"]: s["shown"] for s in fresh_client.get("/api/settings").json()["settings"]}
    assert shown["new_per_day"] == "20"


def test_a_write_from_the_app_itself_goes_through(fresh_client) -> None:
    response = fresh_client.put(
        "/api/settings", json={"new_per_day": "5"}, headers={"Origin": "http://testserver"}
    )
    assert response.status_code == 200
