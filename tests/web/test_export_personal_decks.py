"""A deck the learner imported in the browser can be exported from it, like the vault's.

The import page makes a personal deck (kept in the study database, not the vault
folder); the export page lists it and every format carries its cards.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

from fastapi.testclient import TestClient

DECK_TITLE = "Napkin habits"
CARDS = {
    "How many bytes does one bf16 number take?": "Two bytes.",
    "What bounds a kernel whose arithmetic intensity sits left of the ridge point?": (
        "Memory bandwidth."
    ),
    "Why does ring all-reduce send about twice the message per rank?": (
        "A reduce-scatter and an all-gather each move almost the whole message."
    ),
}


def _markdown_deck() -> bytes:
    pairs = "\n\n".join(f"Q: {front}\nA: {back}" for front, back in CARDS.items())
    return f"# {DECK_TITLE}\n\n{pairs}\n".encode()


def _import(client: TestClient) -> str:
    """Import the deck through the import page (preview, then confirm); return its name."""
    preview = client.post(
        "/import/preview",
        files={"source": ("napkin-habits.md", _markdown_deck(), "text/markdown")},
        data={"format": "auto", "deck": ""},
    )
    assert preview.status_code == 200, preview.text
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview.text)
    assert token is not None
    done = client.post(
        "/import/confirm", data={"token": token.group(1), "format": "auto", "deck": ""}
    )
    assert done.status_code == 200, done.text
    decks = client.get("/api/personal-decks").json()["decks"]
    assert [d["item_count"] for d in decks] == [len(CARDS)]
    name: str = decks[0]["name"]
    return name


def test_the_export_page_lists_the_learners_own_deck(fresh_client: TestClient) -> None:
    deck = _import(fresh_client)
    assert f"<option>{deck}</option>" in fresh_client.get("/export").text


def test_an_imported_deck_exports_as_csv_with_its_cards(fresh_client: TestClient) -> None:
    deck = _import(fresh_client)
    response = fresh_client.get("/export/download", params={"format": "csv", "deck": deck})
    assert response.status_code == 200, response.text
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert len(rows) == len(CARDS)
    text = response.text
    for front, back in CARDS.items():
        assert front in text and back in text


def test_an_imported_deck_exports_as_an_anki_package_with_its_notes(
    fresh_client: TestClient, tmp_path: Path
) -> None:
    deck = _import(fresh_client)
    response = fresh_client.get("/export/download", params={"format": "apkg", "deck": deck})
    assert response.status_code == 200, response.text
    with zipfile.ZipFile(io.BytesIO(response.content)) as package:
        (tmp_path / "collection.anki2").write_bytes(package.read("collection.anki2"))
    with closing(sqlite3.connect(tmp_path / "collection.anki2")) as collection:
        fields = [row[0] for row in collection.execute("SELECT flds FROM notes")]
    assert len(fields) == len(CARDS)
    joined = "\n".join(fields)
    for front in CARDS:
        assert front in joined


def test_an_export_of_any_deck_holds_the_vaults_items_and_the_learners(
    fresh_client: TestClient,
) -> None:
    vault_only = json.loads(fresh_client.get("/api/export").content)
    _import(fresh_client)
    both = json.loads(fresh_client.get("/api/export", params={"format": "staffml-json"}).content)
    assert len(both) == len(vault_only) + len(CARDS)
    fronts = {entry.get("question") for entry in both}
    assert set(CARDS) <= fronts


def test_another_decks_filter_still_leaves_the_learners_cards_out(
    fresh_client: TestClient,
) -> None:
    _import(fresh_client)
    response = fresh_client.get("/export/download", params={"format": "csv", "track": "edge"})
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert sorted(row["id"] for row in rows) == ["edge-0101", "edge-0102"]


def test_filters_no_item_passes_are_told_in_the_forms_words(client: TestClient) -> None:
    response = client.get("/export/download", params={"format": "csv", "deck": "no-such-deck"})
    assert response.status_code == 422
    assert "no item matches deck no-such-deck; choose fewer or other filters" in response.text
    assert "--deck" not in response.text
