"""A full disk while an upload or an import is written is a 503 that says so, nothing half-kept."""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sysdrill.web.errors import DISK_FULL_MESSAGE

from .conftest import make_app, with_csrf

CARDS = b"Front,Back\nWhat is HBM?,Stacked DRAM\nWhat is NVLink?,A GPU link\n"
PASSWORD = "correct horse battery"


def _full_disk_under(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make every file opened for writing under ``folder`` fail with ENOSPC on write."""
    opened = Path.open

    class FullFile:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __enter__(self) -> FullFile:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def open_full(path: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = opened(path, mode, *args, **kwargs)
        if "w" in mode and path.is_relative_to(folder):
            return FullFile(handle)
        return handle

    monkeypatch.setattr(Path, "open", open_full)


def _disk_full(response: Any) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error"] == {
        "status": 503,
        "type": "StorageUnavailable",
        "message": DISK_FULL_MESSAGE,
        "details": [],
    }


@pytest.fixture
def own_vault(tmp_path: Path) -> Path:
    from sysdrill.content.sample import sample_vault_path

    vault = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), vault)
    return vault


@pytest.fixture
def admin(tmp_path: Path, own_vault: Path) -> Iterator[TestClient]:
    app = make_app(tmp_path / "web", vault=own_vault)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        yield client


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_a_full_disk_while_staging_an_upload_is_a_503_and_keeps_nothing(
    admin: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uploads = tmp_path / "web" / "data" / "uploads"
    _full_disk_under(monkeypatch, uploads)
    response = admin.post("/api/import/preview", files={"source": ("cards.csv", CARDS)})
    _disk_full(response)
    assert not uploads.exists() or _files(uploads) == []
    page = admin.post("/import/preview", files={"source": ("cards.csv", CARDS)})
    assert page.status_code == 503
    assert "disk is full" in page.text


def test_a_full_disk_while_importing_into_the_vault_is_a_503_and_changes_nothing(
    admin: TestClient, own_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.interop import vault_writer

    token = admin.post("/api/import/preview", files={"source": ("cards.csv", CARDS)}).json()[
        "token"
    ]
    before = _files(own_vault)

    def full(path: str, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(vault_writer, "_write_new", full)
    _disk_full(admin.post("/api/import/confirm", data={"token": token}))
    assert _files(own_vault) == before


@pytest.fixture
def learner(tmp_path: Path) -> Iterator[tuple[FastAPI, TestClient]]:
    app = make_app(tmp_path / "web", multi_user=True)
    with with_csrf(TestClient(app, raise_server_exceptions=False)) as client:
        assert client.post("/api/signup", json={"name": "ann", "password": PASSWORD}).is_success
        yield app, client


def test_a_full_disk_while_a_learner_uploads_a_deck_is_a_503_and_stores_nothing(
    learner: tuple[FastAPI, TestClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, client = learner
    _full_disk_under(monkeypatch, tmp_path / "web" / "data")
    _disk_full(client.post("/api/personal-decks", files={"source": ("gpu.csv", CARDS)}))
    assert client.get("/api/personal-decks").json()["decks"] == []
    assert _files(tmp_path / "web" / "data" / "uploads") == []
