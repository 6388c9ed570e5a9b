"""The web app keeps study state under the vault it serves."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient
from tests.web.conftest import make_app, with_csrf

from sysdrill.content.sample import sample_vault_path


def _copy(tmp_path: Path, name: str, vault_id: str) -> Path:
    folder = tmp_path / name
    shutil.copytree(sample_vault_path(), folder)
    (folder / "vault.yaml").write_text(f"id: {vault_id}\n", encoding="utf-8")
    return folder


def test_two_apps_on_one_database_serving_vaults_with_one_item_id_keep_apart(tmp_path):
    root = tmp_path / "web"
    first = with_csrf(TestClient(make_app(root, vault=_copy(tmp_path, "a", "vault-a"))))
    second = TestClient(make_app(root, vault=_copy(tmp_path, "b", "vault-b")))
    before = second.get("/api/progress").json()
    started = first.post(
        "/sessions",
        data={"kind": "practice", "deck": "sample-fundamentals"},
        follow_redirects=False,
    )
    session_url = started.headers["location"]
    first.post(f"{session_url}/reveal")
    rated = first.post(f"{session_url}/rate", data={"rating": "3"}, follow_redirects=False)
    assert rated.status_code == 303
    assert first.get("/api/progress").json()["reviews_total"] == 1
    after = second.get("/api/progress").json()
    assert (after["reviews_total"], after["items_seen"]) == (0, 0)
    assert after["forecast"] == before["forecast"]
    assert second.get("/api/study/sessions").json() == {"sessions": []}
