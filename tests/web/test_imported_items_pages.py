"""Imported exercises named and described in the browser; renamed ids said on import.

An exercise imported through the import page is headed by the opening of its
question on its item page, in the vault browser and in a session, and shows its
number, stars and section. Importing a StaffML question whose id the served vault
already uses (single-user mode over the starter vault) says, in the preview and in
the report, which id the item is stored under. Expected texts come from the items
the import wrote, never from the seeds.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.cli.test_imported_items_shown import question_opening, written_item
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import starter_vault_path

EXERCISES = "003_e725e3b7f745518c.txt"
STAFFML_CLOUD = "001_2a349a237ce54e38.txt"
EXERCISE = "global-exercise-0005"


@pytest.fixture
def vault(sample_vault_copy: Path) -> Path:
    """A writable copy of the sample vault, so the import page writes into it."""
    return sample_vault_copy


@pytest.fixture
def exercises_client(vault: Path, tmp_path: Path, seeds_dir: Path) -> Iterator[TestClient]:
    """A client of an app over ``vault`` after the exercise seed was imported in the browser."""
    app = make_app(tmp_path / "web", vault=vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        data = (seeds_dir / EXERCISES).read_bytes()
        preview = client.post("/api/import/preview", files={"source": (EXERCISES, data)}).json()
        done = client.post("/api/import/confirm", data={"token": preview["token"]})
        assert done.status_code == 200, done.text
        assert done.json()["report"]["counts"]["added"] == 27
        yield client


def test_item_page_heads_an_exercise_by_its_question_and_shows_number_stars_section(
    exercises_client: TestClient, vault: Path
) -> None:
    written = written_item(vault, EXERCISE)
    page = exercises_client.get(f"/items/{EXERCISE}")
    assert page.status_code == 200
    [heading] = re.findall(r"<h1>(.*?)</h1>", page.text)
    assert html.unescape(heading).startswith(question_opening(written["question"]))
    text = html.unescape(page.text)
    number = written["source"]["key"].rsplit("exercise-", 1)[1]
    assert f'title="source"><span class="muted">source</span> Exercise {number}<' in text
    stars = "★" * written["difficulty"] + "☆" * (4 - written["difficulty"])
    assert f'title="difficulty"><span class="muted">difficulty</span> {stars}<' in text
    assert f'<span class="muted">section</span> {written["section"]}<' in text
    shown = exercises_client.get(f"/api/items/{EXERCISE}").json()
    assert shown["heading"].startswith(question_opening(written["question"]))
    assert shown["facts"]["section"] == written["section"]


def test_vault_browser_lists_exercises_with_headings_stars_and_sections(
    exercises_client: TestClient, vault: Path
) -> None:
    listed = exercises_client.get("/api/items", params={"deck": "chapter-26-exercises"}).json()
    assert listed["total"] == 27
    for hit in listed["hits"]:
        written = written_item(vault, hit["id"])
        assert hit["title"].startswith(question_opening(written["question"], 2)), hit
        assert hit["section"] == written["section"]
        assert hit["difficulty"].count("★") == written["difficulty"]
    page = html.unescape(
        exercises_client.get("/vault", params={"deck": "chapter-26-exercises"}).text
    )
    first = written_item(vault, "global-exercise-0001")
    assert f'<span class="badge" title="section">{first["section"]}</span>' in page


def test_a_session_on_the_exercises_heads_the_item_with_its_number(
    exercises_client: TestClient, vault: Path
) -> None:
    started = exercises_client.post(
        "/sessions", data={"kind": "quiz", "deck": "chapter-26-exercises"}, follow_redirects=False
    )
    assert started.status_code == 303, started.text
    page = html.unescape(exercises_client.get(started.headers["location"]).text)
    first = written_item(vault, "global-exercise-0001")
    [heading] = re.findall(r'<h2 id="item-h">(.*?)</h2>', page)
    assert heading.startswith(question_opening(first["question"]))
    assert f"Exercise 26.1 · {first['level']} · ★" in page
    assert first["section"] in page


@pytest.fixture
def starter_client(tmp_path: Path) -> Iterator[TestClient]:
    """Single-user mode over the bundled starter vault: imports become personal decks."""
    app = make_app(tmp_path / "single-user", vault=starter_vault_path())
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        yield client


def test_import_preview_and_report_say_which_id_was_renamed(
    starter_client: TestClient, seeds_dir: Path
) -> None:
    data = (seeds_dir / STAFFML_CLOUD).read_bytes()
    preview = starter_client.post(
        "/import/preview",
        files={"source": (STAFFML_CLOUD, data, "text/plain")},
        data={"format": "auto", "deck": ""},
    )
    assert preview.status_code == 200, preview.text
    taken = "the vault already has an item cloud-2152"
    assert f"<li>cloud-2152 would be stored as cloud-2152-p1: {taken}</li>" in preview.text
    token = re.search(r'name="token" value="([0-9a-f]+)"', preview.text)
    assert token is not None
    done = starter_client.post(
        "/import/confirm", data={"token": token.group(1), "format": "auto", "deck": ""}
    )
    assert done.status_code == 200, done.text
    assert f"<li>cloud-2152 is stored as cloud-2152-p1: {taken}</li>" in done.text
    # The vault's own item keeps its page; the imported one is under the new id.
    assert starter_client.get("/items/cloud-2152-p1").status_code == 200


def test_the_import_api_reports_the_renaming_as_a_note(
    starter_client: TestClient, seeds_dir: Path
) -> None:
    data = (seeds_dir / STAFFML_CLOUD).read_bytes()
    preview = starter_client.post("/api/import/preview", files={"source": (STAFFML_CLOUD, data)})
    notes = [note["message"] for note in preview.json()["report"]["notes"]]
    assert notes[0] == (
        "cloud-2152 would be stored as cloud-2152-p1: the vault already has an item cloud-2152"
    )
    [item] = preview.json()["report"]["items"]
    assert item["id"] == "cloud-2152-p1"


def test_an_import_without_clashes_notes_no_renaming(
    starter_client: TestClient, seeds_dir: Path
) -> None:
    data = (seeds_dir / EXERCISES).read_bytes()
    preview = starter_client.post("/api/import/preview", files={"source": (EXERCISES, data)})
    assert preview.status_code == 200, preview.text
    notes = [note["message"] for note in preview.json()["report"]["notes"]]
    assert not any("stored as" in note for note in notes)
