"""My decks: a learner imports, studies and deletes personal decks, in the browser and the API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from markupsafe import escape

from sysdrill.storage.personal_store import PersonalDeckStore

from .conftest import make_app, with_csrf

PASSWORD = "correct horse battery"
CARDS = b"Front,Back\nWhat is HBM-PERSONAL?,Stacked DRAM\nWhat is NVLink?,A GPU link\n"
FIRST = "global-flashcard-0001"


@pytest.fixture
def multi_app(tmp_path: Path) -> FastAPI:
    return make_app(tmp_path / "web", multi_user=True)


def _learner(app: FastAPI, name: str) -> Iterator[TestClient]:
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        response = client.post("/api/signup", json={"name": name, "password": PASSWORD})
        assert response.status_code == 201, response.text
        yield client


@pytest.fixture
def ann(multi_app: FastAPI) -> Iterator[TestClient]:
    yield from _learner(multi_app, "ann")


@pytest.fixture
def bob(multi_app: FastAPI) -> Iterator[TestClient]:
    yield from _learner(multi_app, "bob")


def _upload(client: TestClient, url: str = "/api/personal-decks", **form: str) -> httpx.Response:
    return client.post(url, files={"source": ("gpu.csv", CARDS, "text/csv")}, data=form)


def _versions(app: FastAPI, *users: str) -> list[int]:
    with PersonalDeckStore(app.state.sysdrill.db_url) as store:
        return [store.deck_version(user) for user in users]


def test_the_page_imports_a_deck_lists_it_and_deletes_it(ann: TestClient) -> None:
    page = ann.get("/my-decks")
    assert page.status_code == 200
    assert 'action="/my-decks" enctype="multipart/form-data"' in page.text
    assert 'name="csrf_token"' in page.text
    assert "You have no personal decks yet." in page.text
    done = _upload(ann, "/my-decks", title="GPU basics")
    assert done.status_code == 200
    assert "Imported <strong>2</strong> item(s)" in done.text
    assert 'action="/my-decks/gpu-basics/delete"' in done.text
    assert '<a href="/my-decks">My decks</a>' in done.text
    gone = ann.post("/my-decks/gpu-basics/delete", follow_redirects=False)
    assert (gone.status_code, gone.headers["location"]) == (303, "/my-decks")
    assert "You have no personal decks yet." in ann.get("/my-decks").text


def test_the_api_imports_lists_and_deletes(ann: TestClient) -> None:
    created = _upload(ann, title="GPU")
    assert created.status_code == 201
    body = created.json()
    assert (body["deck"]["name"], body["deck"]["item_count"], body["renamed"]) == ("gpu", 2, {})
    listed = ann.get("/api/personal-decks").json()["decks"]
    assert [(d["name"], d["source_name"], d["format"]) for d in listed] == [
        ("gpu", "gpu.csv", "csv")
    ]
    assert ann.delete("/api/personal-decks/gpu").json() == {"deleted": "gpu"}
    missing = ann.delete("/api/personal-decks/gpu")
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "DeckNotFound"
    assert ann.get("/api/personal-decks").json() == {"enabled": True, "decks": []}


def test_the_owner_practises_a_personal_deck_and_nobody_else_sees_it(
    ann: TestClient, bob: TestClient
) -> None:
    assert _upload(ann, title="GPU").status_code == 201
    assert '<option value="gpu">gpu</option>' in ann.get("/practice").text
    assert '<option value="gpu">' not in bob.get("/practice").text
    started = ann.post("/api/study/sessions", json={"kind": "practice", "deck": "gpu"}).json()
    assert started["session_id"] is not None
    assert started["item"]["item_id"] == FIRST
    # Ann rates it: the card is hers, in the shared vault's identity.
    ann.post(f"/api/study/sessions/{started['session_id']}/reveal")
    rated = ann.post(f"/api/study/sessions/{started['session_id']}/rate", json={"rating": "good"})
    assert rated.status_code == 200, rated.text
    assert "HBM-PERSONAL" in ann.get(f"/items/{FIRST}").text
    assert ann.get("/api/items", params={"deck": "gpu"}).json()["total"] == 2
    ann_total = ann.get("/api/dashboard").json()["items_total"]
    assert ann_total == bob.get("/api/dashboard").json()["items_total"] + 2
    assert ann.get("/api/progress").json()["items_total"] == ann_total
    # Bob sees none of it: not the item, not the deck, not a session over it.
    assert bob.get(f"/items/{FIRST}").status_code == 404
    assert bob.get(f"/api/items/{FIRST}").status_code == 404
    assert bob.get("/api/items", params={"deck": "gpu"}).json()["total"] == 0
    assert bob.get("/api/personal-decks").json() == {"enabled": True, "decks": []}
    empty = bob.post("/api/study/sessions", json={"kind": "practice", "deck": "gpu"})
    assert empty.status_code in (200, 404)
    assert "HBM-PERSONAL" not in empty.text
    assert bob.delete("/api/personal-decks/gpu").status_code == 404
    assert [d["name"] for d in ann.get("/api/personal-decks").json()["decks"]] == ["gpu"]


def test_writes_without_a_csrf_token_are_refused_and_change_nothing(
    multi_app: FastAPI, ann: TestClient
) -> None:
    assert _upload(ann, title="GPU").status_code == 201
    token = ann.headers.pop("X-CSRF-Token")
    forged_upload = _upload(ann, title="Forged")
    forged_form = _upload(ann, "/my-decks", title="Forged")
    forged_delete = ann.delete("/api/personal-decks/gpu")
    forged_page_delete = ann.post("/my-decks/gpu/delete")
    statuses = [
        r.status_code for r in (forged_upload, forged_form, forged_delete, forged_page_delete)
    ]
    assert statuses == [403, 403, 403, 403]
    ann.headers["X-CSRF-Token"] = token
    assert [d["name"] for d in ann.get("/api/personal-decks").json()["decks"]] == ["gpu"]
    assert _versions(multi_app, "ann") == [1]


@pytest.mark.parametrize(
    ("name", "data", "status", "kind"),
    [
        ("deck.csv", b"Front,Back\n", 422, "ImportFailed"),
        ("deck.apkg", b"PK\x03\x04 not a zip at all", 413, "HostileInput"),
    ],
    ids=["nothing to import", "a broken archive"],
)
def test_a_file_that_is_not_a_deck_gets_a_one_line_error_and_stores_nothing(
    multi_app: FastAPI,
    ann: TestClient,
    tmp_path: Path,
    name: str,
    data: bytes,
    status: int,
    kind: str,
) -> None:
    response = ann.post("/api/personal-decks", files={"source": (name, data, "text/plain")})
    assert response.status_code == status
    error = response.json()["error"]
    assert error["type"] == kind
    assert "\n" not in error["message"] and error["message"]
    page = ann.post("/my-decks", files={"source": (name, data, "text/plain")})
    assert page.status_code == status
    assert str(escape(error["message"])) in page.text
    assert _versions(multi_app, "ann") == [0]
    assert ann.get("/api/personal-decks").json() == {"enabled": True, "decks": []}
    assert not any((tmp_path / "web" / "data" / "uploads").glob("*/*"))


def test_an_upload_over_the_limit_is_refused_with_413_and_stores_nothing(
    multi_app: FastAPI, ann: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sysdrill.web.uploads.UPLOAD_LIMIT_BYTES", 16)
    response = _upload(ann, title="GPU")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["type"] == "HostileInput"
    assert error["message"].startswith("the upload is larger than")
    assert _versions(multi_app, "ann") == [0]
    assert not any((tmp_path / "web" / "data" / "uploads").glob("*/*"))


def test_single_user_mode_gives_the_local_learner_personal_decks(tmp_path: Path) -> None:
    # Issue 29 item 3: the one learner's imports over a bundled vault become
    # personal decks, so My decks works without accounts too.
    app = make_app(tmp_path / "web")
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        assert "You have no personal decks yet." in client.get("/my-decks").text
        created = _upload(client, title="GPU")
        assert created.status_code == 201, created.text
        listed = client.get("/api/personal-decks").json()
        started = client.post("/api/study/sessions", json={"kind": "practice", "deck": "gpu"})
        page = _upload(client, "/my-decks", title="More GPU")
        gone = client.delete("/api/personal-decks/more-gpu")
    assert [d["name"] for d in listed["decks"]] == ["gpu"]
    assert listed["enabled"] is True
    assert started.json()["item"]["item_id"] == FIRST
    assert page.status_code == 200
    assert "Imported <strong>2</strong> item(s)" in page.text
    assert gone.json() == {"deleted": "more-gpu"}
    with PersonalDeckStore(app.state.sysdrill.db_url) as store:
        assert [d.name for d in store.list_decks("local")] == ["gpu"]


# Importing a corrected file again updates the deck in place.
REDECK_CARDS = b"Front,Back\nWhat is HBM-REDECK?,Stacked DRAM\nWhat is NVLink?,A GPU link\n"
# The first card's back corrected, the second card dropped, a third card added.
REDECK_CORRECTED = (
    b"Front,Back\nWhat is HBM-REDECK?,Stacked DRAM on an interposer\n"
    b"What is a TPU-REDECK?,A systolic-array accelerator\n"
)
SECOND = "global-flashcard-0002"


def _upload_named(
    client: TestClient, data: bytes, *, name: str = "gpu.csv", url: str = "/my-decks"
) -> httpx.Response:
    return client.post(url, files={"source": (name, data, "text/csv")}, data={"title": "GPU"})


def _review_first_card(client: TestClient) -> None:
    started = client.post("/api/study/sessions", json={"kind": "practice", "deck": "gpu"}).json()
    assert started["item"]["item_id"] == FIRST
    client.post(f"/api/study/sessions/{started['session_id']}/reveal")
    rated = client.post(
        f"/api/study/sessions/{started['session_id']}/rate", json={"rating": "good"}
    )
    assert rated.status_code == 200, rated.text


def test_a_corrected_file_updates_the_deck_and_keeps_the_reviews_of_items_that_stay(
    ann: TestClient, bob: TestClient
) -> None:
    assert _upload_named(ann, REDECK_CARDS).status_code == 200
    assert _upload_named(bob, REDECK_CARDS).status_code == 200
    _review_first_card(ann)
    again = _upload_named(ann, REDECK_CORRECTED)
    assert again.status_code == 200, again.text
    assert (
        'data-testid="import-counts">1 added, 1 updated, 0 unchanged, 1 removed as no longer '
        "in the file (your reviews of them are kept).<"
    ) in again.text
    decks = ann.get("/api/personal-decks").json()["decks"]
    assert [(d["name"], d["item_count"]) for d in decks] == [("gpu", 2)]
    # The corrected card kept its id, so its review is still there.
    shown = ann.get(f"/api/items/{FIRST}").json()["item"]
    assert shown["details"]["realistic_solution"] == "Stacked DRAM on an interposer"
    [review] = ann.get(f"/api/items/{FIRST}/history").json()["reviews"]
    assert review["rating"] == "Good"
    # The dropped card left the deck; the new one never takes its id (nor its history).
    assert ann.get(f"/api/items/{SECOND}").status_code == 404
    listed = ann.get("/api/items", params={"deck": "gpu"}).json()["hits"]
    assert {hit["id"] for hit in listed} == {FIRST, f"{SECOND}-p1"}
    # Bob's deck of the same name is his own and untouched.
    assert [d["item_count"] for d in bob.get("/api/personal-decks").json()["decks"]] == [2]
    assert "A GPU link" in bob.get(f"/api/items/{SECOND}").text


def test_the_same_file_again_leaves_every_item_unchanged(ann: TestClient) -> None:
    assert _upload_named(ann, REDECK_CARDS, url="/api/personal-decks").status_code == 201
    again = _upload_named(ann, REDECK_CARDS, url="/api/personal-decks")
    assert again.status_code == 201, again.text
    body = again.json()
    assert (body["deck"]["item_count"], body["renamed"], body["removed"]) == (2, {}, [])
    assert ann.get("/api/items", params={"deck": "gpu"}).json()["total"] == 2


def test_another_file_with_the_same_deck_title_is_refused_and_changes_nothing(
    ann: TestClient,
) -> None:
    assert _upload_named(ann, REDECK_CARDS).status_code == 200
    clash = _upload_named(ann, REDECK_CORRECTED, name="other.csv", url="/api/personal-decks")
    assert clash.status_code == 422
    assert clash.json()["error"]["message"] == (
        "you already have a personal deck named 'gpu', imported from 'gpu.csv'; choose "
        "another deck title (such as 'GPU 2') or delete that deck first"
    )
    assert "A GPU link" in ann.get(f"/api/items/{SECOND}").text
