"""Web imports are studied at once (issue 29 item 3).

``sysdrill serve`` without accounts, over the bundled starter vault (which is never
written): an import through the import page becomes a personal deck of the one
local learner, so "89 added" is followed by 89 cards to practise, quiz on, browse
and search, each untitled card named by the opening of its question (the one rule
of every view, ``untitled_heading``), as its source gave it no title.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.conftest import SEEDS_DIR
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import starter_vault_path

FLASHCARDS = "004_8c6267489fed25a8.txt"
DECK = "mire-dis-train-flashcards"
# The first card's question, cut between words at 60 characters.
FIRST_HEADING = "Backpropagation: During backward pass, a layer needs the…"


@pytest.fixture(scope="module")
def starter_app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    """A single-user app over the bundled starter vault, as ``sysdrill serve`` runs it."""
    return make_app(tmp_path_factory.mktemp("single-user"), vault=starter_vault_path())


@pytest.fixture(scope="module")
def imported(starter_app: FastAPI) -> Iterator[TestClient]:
    """A client that imported the flashcard seed through the import page (preview, confirm)."""
    if not SEEDS_DIR.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    seeds_dir = SEEDS_DIR
    with with_csrf(TestClient(starter_app, raise_server_exceptions=False)) as client:
        form = client.get("/import")
        assert form.status_code == 200
        assert 'href="/my-decks">your decks</a>' in form.text
        data = (seeds_dir / FLASHCARDS).read_bytes()
        preview = client.post(
            "/import/preview",
            files={"source": (FLASHCARDS, data, "text/plain")},
            data={"format": "auto", "deck": ""},
        )
        assert preview.status_code == 200, preview.text
        assert 'data-testid="added">89<' in preview.text
        # A preview stores nothing.
        assert client.get("/api/items", params={"deck": DECK}).json()["total"] == 0
        token = re.search(r'name="token" value="([0-9a-f]+)"', preview.text)
        assert token is not None
        done = client.post(
            "/import/confirm", data={"token": token.group(1), "format": "auto", "deck": ""}
        )
        assert done.status_code == 200, done.text
        assert 'data-testid="added">89<' in done.text
        assert f"into your deck <strong>{DECK}</strong>" in done.text
        yield client


def test_the_imported_deck_is_in_the_vault_at_once_with_titles(imported: TestClient) -> None:
    listed = imported.get("/api/items", params={"deck": DECK, "limit": 1000}).json()
    assert listed["total"] == 89
    titles = [hit["title"] for hit in listed["hits"]]
    assert FIRST_HEADING in titles
    assert all(title and not title.startswith("global-flashcard-") for title in titles)
    assert all(len(title) <= 60 for title in titles)
    page = imported.get("/vault", params={"deck": DECK})
    assert 'data-testid="result-count">89 items<' in page.text
    assert f'<option value="{DECK}"' in imported.get("/vault").text


def test_search_finds_the_imported_cards(imported: TestClient) -> None:
    found = imported.get("/api/items", params={"q": "weight matrix backward", "limit": 50}).json()
    decks = {hit["deck"] for hit in found["hits"]}
    assert DECK in decks
    assert FIRST_HEADING in {hit["title"] for hit in found["hits"]}


@pytest.mark.parametrize("query", ["reducescatter", "reduce scatter", "Reduce-Scatter"])
def test_search_of_the_imported_cards_folds_hyphens_and_spacing(
    imported: TestClient, query: str
) -> None:
    # The cards say "reduce-scatter"; a learner may type it any of these ways.
    found = imported.get("/api/items", params={"q": query, "deck": DECK, "limit": 50}).json()
    assert found["total"] >= 1
    assert all(hit["deck"] == DECK for hit in found["hits"])


def test_a_practice_of_the_deck_shows_its_cards(imported: TestClient) -> None:
    listed = imported.get("/api/items", params={"deck": DECK, "limit": 1000}).json()
    ids = {hit["id"] for hit in listed["hits"]}
    started = imported.post(
        "/sessions", data={"kind": "practice", "deck": DECK}, follow_redirects=False
    )
    assert started.status_code == 303, started.text
    page = imported.get(started.headers["location"])
    assert page.status_code == 200
    # A new practice with the default daily limit of new items: 20 of the 89.
    assert "Practice: 20 items (0 due, 20 new" in page.text
    session_id = int(started.headers["location"].rsplit("/", 1)[1])
    view = imported.get(f"/api/study/sessions/{session_id}").json()
    assert view["item"]["item_id"] in ids
    shown = imported.get(f"/api/items/{view['item']['item_id']}").json()
    assert shown["item"]["deck"] == DECK
    assert view["item"]["question"] and view["item"]["question"] in page.text.replace("&#39;", "'")


def test_a_quiz_on_the_deck_takes_its_cards(imported: TestClient) -> None:
    quiz = imported.post("/api/study/sessions", json={"kind": "quiz", "deck": DECK})
    assert quiz.status_code == 200, quiz.text
    view = quiz.json()
    assert view["session_id"] is not None
    assert view["item"]["item_id"].startswith("global-flashcard-")
    # The whole deck, or the part today's limit of new items allows, saying so.
    assert view["total"] == 89 or "new item(s) left for another day" in view["note"]
    assert f'<option value="{DECK}">' in imported.get("/quiz").text


def test_the_import_is_listed_in_my_decks_and_nothing_went_to_the_data_folder(
    starter_app: FastAPI, imported: TestClient
) -> None:
    decks = imported.get("/api/personal-decks").json()
    assert decks["enabled"] is True
    assert [(d["name"], d["item_count"]) for d in decks["decks"]] == [(DECK, 89)]
    assert 'data-testid="deck"' in imported.get("/my-decks").text
    data_dir: Path = starter_app.state.sysdrill.data_dir
    assert not (data_dir / "vault").exists()
    assert not any((data_dir / "uploads").glob("*/*"))


def test_the_json_api_imports_into_a_personal_deck_too(tmp_path: Path, seeds_dir: Path) -> None:
    app = make_app(tmp_path / "web")  # the bundled sample vault: never written either
    data = (seeds_dir / FLASHCARDS).read_bytes()
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        preview = client.post(
            "/api/import/preview", files={"source": (FLASHCARDS, data)}, data={"deck": "Seed"}
        ).json()
        assert (preview["report"]["counts"]["added"], preview["personal_deck"]) == (89, "seed")
        assert preview["report"]["dry_run"] is True
        done = client.post("/api/import/confirm", data={"token": preview["token"], "deck": "Seed"})
        assert done.status_code == 200, done.text
        body = done.json()
        assert (body["report"]["counts"]["added"], body["personal_deck"]) == (89, "seed")
        assert body["report"]["vault"] == ""
        assert client.get("/api/items", params={"deck": "seed"}).json()["total"] == 89
        # The same file again updates the deck: nothing changed, nothing to add or remove.
        twice = client.post(
            "/api/import/preview", files={"source": (FLASHCARDS, data)}, data={"deck": "Seed"}
        ).json()
        assert twice["report"]["counts"] | {"removed": len(twice["removed"])} == {
            "added": 0,
            "updated": 0,
            "unchanged": 89,
            "skipped": 0,
            "removed": 0,
        }
        # Another file whose deck would have the same name: a one-line 422.
        other = client.post(
            "/api/import/preview", files={"source": ("other.txt", data)}, data={"deck": "Seed"}
        )
        assert other.status_code == 422
        assert other.json()["error"]["type"] == "ImportFailed"
        assert "imported from '004_8c6267489fed25a8.txt'" in other.json()["error"]["message"]
