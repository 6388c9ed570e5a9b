"""Import (upload, preview, confirm) and export (download) in the browser and the API."""

from __future__ import annotations

import csv
import io
import json
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import sample_vault_path

FLASHCARDS = "004_8c6267489fed25a8.txt"


@pytest.fixture
def own_vault_client(tmp_path: Path) -> Iterator[TestClient]:
    """A client of an app serving a copy of the sample vault (so imports write to it)."""
    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    app = make_app(tmp_path / "web", vault=vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as c:
        yield c


def test_upload_preview_then_confirm_imports_89_flashcards(
    own_vault_client: TestClient, seeds_dir: Path
) -> None:
    client = own_vault_client
    data = (seeds_dir / FLASHCARDS).read_bytes()
    preview = client.post(
        "/import/preview",
        files={"source": (FLASHCARDS, data, "text/plain")},
        data={"format": "auto", "deck": ""},
    )
    assert preview.status_code == 200
    assert 'data-testid="added">89<' in preview.text
    assert "Import preview" in preview.text
    assert client.get("/api/items", params={"q": "pipeline"}).json()["total"] < 89
    before = client.get("/api/items", params={"limit": 1000}).json()["total"]
    token = preview.text.split('name="token" value="')[1].split('"')[0]
    done = client.post("/import/confirm", data={"token": token, "format": "auto", "deck": ""})
    assert done.status_code == 200
    assert 'data-testid="added">89<' in done.text
    assert "<td>added</td>" in done.text
    after = client.get("/api/items", params={"limit": 1000}).json()
    assert after["total"] == before + 89
    # The upload is gone once imported: confirming twice is refused.
    again = client.post("/api/import/confirm", data={"token": token})
    assert again.status_code == 422


def test_import_api_preview_and_confirm(own_vault_client: TestClient, seeds_dir: Path) -> None:
    client = own_vault_client
    data = (seeds_dir / FLASHCARDS).read_bytes()
    preview = client.post("/api/import/preview", files={"source": (FLASHCARDS, data)}).json()
    assert preview["report"]["dry_run"] is True
    assert preview["report"]["counts"]["added"] == 89
    confirmed = client.post("/api/import/confirm", data={"token": preview["token"]}).json()
    assert confirmed["report"]["dry_run"] is False
    assert confirmed["report"]["counts"]["added"] == 89


def test_the_bundled_vault_is_never_written(client: TestClient) -> None:
    page = client.get("/import").text
    assert (
        "The vaults bundled with sysdrill (the sample and the starter vault) are never changed"
        in page
    )


@pytest.mark.parametrize("token", ["../../etc", "0" * 32, ""])
def test_a_bad_or_unknown_token_is_422(client: TestClient, token: str) -> None:
    response = client.post("/api/import/confirm", data={"token": token})
    assert response.status_code == 422


def test_an_empty_or_unreadable_upload_is_422(own_vault_client: TestClient) -> None:
    empty = own_vault_client.post("/api/import/preview", files={"source": ("x.txt", b"")})
    assert empty.status_code == 422
    assert empty.json()["error"]["type"] == "ImportFailed"
    junk = own_vault_client.post(
        "/api/import/preview", files={"source": ("x.bin", b"\x00\x01\x02")}
    )
    assert junk.status_code == 422


def test_a_missing_upload_field_is_422(client: TestClient) -> None:
    response = client.post("/api/import/preview", data={"format": "auto"})
    assert response.status_code == 422
    assert response.json()["error"]["type"] == "InvalidParameter"


def test_export_csv_downloads_the_filtered_items(client: TestClient) -> None:
    response = client.get("/export/download", params={"format": "csv", "track": "edge"})
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="sysdrill.csv"'
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert sorted(row["id"] for row in rows) == ["edge-0101", "edge-0102"]


def test_export_apkg_is_an_anki_package(client: TestClient) -> None:
    response = client.get("/export/download", params={"format": "apkg"})
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as package:
        assert "collection.anki2" in package.namelist()


def test_export_api_json_holds_every_item(client: TestClient) -> None:
    response = client.get("/api/export", params={"format": "staffml-json"})
    assert response.status_code == 200
    assert len(json.loads(response.content)) == 12


@pytest.mark.parametrize(
    "params", [{"format": "pdf"}, {"format": "csv", "level": "L9"}, {"format": "csv", "deck": "x"}]
)
def test_bad_export_parameters_are_422(client: TestClient, params: dict[str, str]) -> None:
    response = client.get("/api/export", params=params)
    assert response.status_code == 422
    assert set(response.json()["error"]) == {"status", "type", "message", "details"}


def test_export_page_offers_every_format(client: TestClient) -> None:
    page = client.get("/export").text
    for name in ("apkg", "anki-text", "csv", "staffml-json", "markdown"):
        assert f'<option value="{name}">' in page


def test_imports_never_go_into_the_bundled_starter_vault(tmp_path: Path) -> None:
    starter = sample_vault_path().parent / "starter_vault"
    with TestClient(make_app(tmp_path / "web", vault=starter)) as starter_client:
        page = starter_client.get("/import").text
    # Imports become the learner's own decks, studied with it (issue 29 item 3):
    # tests/web/test_single_user_imports.py imports the seed and studies it.
    assert 'Imported items become one of <a href="/my-decks">your decks</a>' in page
    assert "sysdrill serve --vault" not in page
