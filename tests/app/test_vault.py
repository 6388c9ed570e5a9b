"""The served vault's cache: loaded and compiled once, both redone when files change."""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from sysdrill.app.vault import VaultCache
from sysdrill.content.sample import sample_vault_path

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _add_item(root: Path, new_id: str) -> None:
    folder = root / "questions" / "cloud"
    text = (folder / "cloud-0101.yaml").read_text("utf-8")
    text = text.replace("id: cloud-0101", f"id: {new_id}")
    (folder / f"{new_id}.yaml").write_text(text, "utf-8")
    # Folder times can be coarse: move the folder's time on so the change is seen.
    stat = folder.stat()
    os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def _compiled_ids(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as conn:
        return {row[0] for row in conn.execute("SELECT id FROM items")}


def test_compiled_database_is_kept_until_a_file_is_added(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    cache = VaultCache(cache_dir=tmp_path / "cache")
    db = cache.compiled(root, now=NOW)
    built_ns = db.stat().st_mtime_ns
    assert cache.compiled(root, now=NOW) == db
    assert db.stat().st_mtime_ns == built_ns  # not rebuilt
    _add_item(root, "cloud-0198")
    assert "cloud-0198" in _compiled_ids(cache.compiled(root, now=NOW))


def test_loaded_vault_is_kept_between_calls(tmp_path: Path) -> None:
    cache = VaultCache(cache_dir=tmp_path / "cache")
    first = cache.get(sample_vault_path())
    assert cache.get(sample_vault_path()) is first
    assert "cloud-0103" in first.by_id


def test_derived_value_is_kept_until_the_vault_is_reloaded(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    cache = VaultCache(cache_dir=tmp_path / "cache")
    builds: list[int] = []

    def count(vault: object) -> int:
        builds.append(1)
        return len(vault.items)  # type: ignore[attr-defined]

    first = cache.derived(root, "count", count)
    assert cache.derived(root, "count", count) == first and len(builds) == 1
    _add_item(root, "cloud-0197")
    assert cache.derived(root, "count", count) == first + 1 and len(builds) == 2


def test_loaded_vault_is_reloaded_when_a_file_is_added(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    cache = VaultCache(cache_dir=tmp_path / "cache")
    first = cache.get(root)
    assert cache.get(root) is first
    _add_item(root, "cloud-0199")
    second = cache.get(root)
    assert second is not first
    assert "cloud-0199" in second.by_id and "cloud-0199" not in first.by_id


def test_threads_asking_at_once_share_one_loaded_vault(tmp_path: Path) -> None:
    import threading

    cache = VaultCache(cache_dir=tmp_path / "cache")
    seen: list[object] = []
    threads = [
        threading.Thread(target=lambda: seen.append(cache.get(sample_vault_path())))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(found is seen[0] for found in seen)
