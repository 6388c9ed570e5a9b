"""The vault's media files served at /media/, and media in rendered item text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.interop.conftest import MP3_BYTES, PNG_BYTES
from tests.web.conftest import make_app

from sysdrill.web.render import render_markdown

PNG = "0123456789abcdef.png"
MP3 = "fedcba9876543210.mp3"


@pytest.fixture
def media_client(tmp_path: Path) -> TestClient:
    vault = tmp_path / "vault"
    (vault / "questions").mkdir(parents=True)
    media = vault / "media"
    media.mkdir()
    (media / PNG).write_bytes(PNG_BYTES)
    (media / MP3).write_bytes(MP3_BYTES)
    (media / "fake.png").write_bytes(b"<script>alert(1)</script>")
    (media / "notes.txt").write_text("secret", encoding="utf-8")
    (tmp_path / "outside.png").write_bytes(PNG_BYTES)
    os.symlink(tmp_path / "outside.png", media / "link.png")
    return TestClient(make_app(tmp_path / "app", vault=vault))


def test_media_files_are_served_with_their_checked_type(media_client: TestClient) -> None:
    image = media_client.get(f"/media/{PNG}")
    sound = media_client.get(f"/media/{MP3}")

    assert (image.status_code, image.headers["content-type"]) == (200, "image/png")
    assert image.content == PNG_BYTES
    assert image.headers["x-content-type-options"] == "nosniff"
    assert (sound.status_code, sound.headers["content-type"]) == (200, "audio/mpeg")


@pytest.mark.parametrize(
    "path",
    [
        "/media/fake.png",  # bytes are not a PNG
        "/media/notes.txt",  # not an accepted type
        "/media/link.png",  # a symlink out of media/
        "/media/..%2Foutside.png",
        "/media/%2E%2E%2F..%2Foutside.png",
        "/media/missing.png",
    ],
)
def test_anything_but_a_plain_media_file_is_not_found(media_client: TestClient, path: str) -> None:
    response = media_client.get(path)

    assert response.status_code == 404
    assert PNG_BYTES not in response.content


def test_rendered_text_shows_vault_media_and_nothing_else() -> None:
    html = str(
        render_markdown(
            f"![chip](media/{PNG}) [sound:media/{MP3}] ![x](https://tracker.example/p.png) "
            "![y](media/../secret.png)"
        )
    )

    assert f'<img src="/media/{PNG}" alt="chip">' in html
    assert f'<audio controls="" src="/media/{MP3}"></audio>' in html
    assert "tracker.example" not in html
    assert "secret" not in html
