"""The studied vault: indexed once, kept by its owner, loaded again when its files change."""

from __future__ import annotations

import os
import shutil

from sysdrill.app.study_vault import open_study_vault, vault_signature
from sysdrill.content.sample import sample_vault_path


def test_study_vault_indexes_items_and_chains():
    vault = open_study_vault()
    assert vault.by_id["cloud-0103"].id == "cloud-0103"
    assert vault.broken_files == 0
    assert vault.chain_index.get("scaling-out-training").id == "scaling-out-training"


def test_signature_changes_with_a_top_level_file(tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    before = vault_signature(root)
    chains = root / "chains.yaml"
    stat = chains.stat()
    os.utime(chains, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert vault_signature(root) != before
