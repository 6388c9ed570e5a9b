"""Importing a corrected file again updates the learner's personal deck in place.

The import page over a bundled vault (single-user mode), with the seed quiz: the
preview's counters say what the confirmation then does. The My decks page and its
API, for several learners, are tested in ``test_personal_routes.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from sysdrill.content.sample import starter_vault_path

from .conftest import make_app, with_csrf

QUIZ = "002_150ee555f9dec9d2.txt"
QUIZ_DECK = "chapter-26-quiz"


def _quiz_corrected(text: str) -> str:
    """The seed quiz with one answer corrected and its last question taken out."""
    assert text.count("set_epoch()") == 1
    fixed = text.replace("set_epoch()", "set_epoch(epoch)")
    return fixed[: fixed.index("Question 20")]


def _preview(client: TestClient, name: str, data: bytes) -> str:
    preview = client.post(
        "/import/preview",
        files={"source": (name, data, "text/plain")},
        data={"format": "auto", "deck": ""},
    )
    assert preview.status_code == 200, preview.text
    return preview.text


def _confirm(client: TestClient, preview: str) -> str:
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview)
    assert token is not None
    done = client.post(
        "/import/confirm", data={"token": token.group(1), "format": "auto", "deck": ""}
    )
    assert done.status_code == 200, done.text
    return done.text


def _counters(page: str) -> dict[str, int]:
    return {
        name: int(count)
        for name, count in re.findall(
            r'data-testid="(added|updated|unchanged|removed)">(\d+)<', page
        )
    }


def test_the_import_page_previews_and_applies_a_corrected_quiz(
    tmp_path: Path, seeds_dir: Path
) -> None:
    app = make_app(tmp_path / "single-user", vault=starter_vault_path())
    text = (seeds_dir / QUIZ).read_text(encoding="utf-8")
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        first = _confirm(client, _preview(client, QUIZ, text.encode()))
        assert _counters(first) == {"added": 20, "updated": 0, "unchanged": 0, "removed": 0}
        preview = _preview(client, QUIZ, _quiz_corrected(text).encode())
        expected = {"added": 0, "updated": 1, "unchanged": 18, "removed": 1}
        assert _counters(preview) == expected
        assert "1 item(s) no longer in the file would leave the deck" in preview
        # The preview stored nothing; the confirmation does what it said.
        assert client.get("/api/items", params={"deck": QUIZ_DECK}).json()["total"] == 20
        assert _counters(_confirm(client, preview)) == expected
        hits = client.get("/api/items", params={"deck": QUIZ_DECK, "limit": 50}).json()["hits"]
        assert len(hits) == 19
        third = client.get("/api/items/global-quiz-0003").json()["item"]
        assert "set_epoch(epoch)" in third["details"]["realistic_solution"]


def test_the_import_page_applies_a_corrected_small_file_as_previewed(tmp_path: Path) -> None:
    app = make_app(tmp_path / "single-user", vault=starter_vault_path())
    cards = "Front,Back\nWhat is PCIe-REDECK?,A host link\nWhat is CXL-REDECK?,A coherent link\n"
    corrected = cards.replace("A host link", "A serial host link") + "What is UCIe?,A die link\n"
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        _confirm(client, _preview(client, "links.csv", cards.encode()))
        preview = _preview(client, "links.csv", corrected.encode())
        expected = {"added": 1, "updated": 1, "unchanged": 1, "removed": 0}
        assert _counters(preview) == expected
        assert _counters(_confirm(client, preview)) == expected
        assert client.get("/api/items", params={"deck": "links"}).json()["total"] == 3
        decks = client.get("/api/personal-decks").json()["decks"]
        assert [(d["name"], d["item_count"]) for d in decks] == [("links", 3)]
