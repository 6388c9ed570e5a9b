"""The studied vault: indexed once, kept by its owner, loaded again when its files change."""

from __future__ import annotations

import os
import shutil
import threading

from sysdrill.app.study_vault import StudyVaultCache, open_study_vault, vault_signature
from sysdrill.content.sample import sample_vault_path


def test_study_vault_indexes_items_and_chains():
    vault = open_study_vault()
    assert vault.by_id["cloud-0103"].id == "cloud-0103"
    assert vault.broken_files == 0
    assert vault.chain_index.get("scaling-out-training").id == "scaling-out-training"


def test_cache_returns_the_same_vault_until_a_file_is_added(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    cache = StudyVaultCache(cache_dir=tmp_path / "cache")
    first = cache.get(root)
    assert cache.get(root) is first
    source = root / "questions" / "cloud" / "cloud-0101.yaml"
    copy = source.read_text("utf-8").replace("id: cloud-0101", "id: cloud-0199")
    (root / "questions" / "cloud" / "cloud-0199.yaml").write_text(copy, "utf-8")
    folder = root / "questions" / "cloud"
    # Folder times can be coarse: move the folder's time on to be sure it differs.
    stat = folder.stat()
    os.utime(folder, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = cache.get(root)
    assert second is not first
    assert "cloud-0199" in second.by_id and "cloud-0199" not in first.by_id


def test_signature_changes_with_a_top_level_file(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    before = vault_signature(root)
    chains = root / "chains.yaml"
    stat = chains.stat()
    os.utime(chains, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert vault_signature(root) != before


def test_cache_gives_every_thread_one_vault(tmp_path):
    cache = StudyVaultCache(cache_dir=tmp_path / "cache")
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
