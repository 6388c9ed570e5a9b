"""The loader: fast and careful YAML roads, hostile input, stat data, line lookup."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from sysdrill.content.loader import (
    MAX_FILE_BYTES,
    load_item_file,
    load_vault,
    parse_yaml,
)
from sysdrill.errors import VaultNotFound

VALID = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "valid"
ITEM = VALID / "questions" / "cloud" / "cloud-0001.yaml"


def _codes(data: bytes) -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in parse_yaml(data, "f.yaml")[1]]


def test_load_vault_gives_items_with_digest_size_and_mtime() -> None:
    vault = load_vault(VALID)
    [loaded] = vault.files
    data = ITEM.read_bytes()
    assert loaded.rel == "questions/cloud/cloud-0001.yaml"
    assert loaded.digest == hashlib.sha256(data).hexdigest()
    assert loaded.size == len(data)
    assert loaded.mtime_ns == ITEM.stat().st_mtime_ns
    assert loaded.item is not None and loaded.item.id == "cloud-0001"
    assert vault.taxonomy is not None and [t.id for t in vault.taxonomy.topics] == [
        "data-parallelism",
        "collectives",
    ]
    assert [c.id for c in vault.chains] == ["data-parallelism-chain"]
    assert [d.name for d in vault.decks] == ["collectives"]
    assert vault.all_findings() == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "top level is empty, not a mapping of fields"),
        (b"- a\n- b\n", "top level is a list, not a mapping of fields"),
        (b"just text\n", "top level is a str, not a mapping of fields"),
    ],
)
def test_file_that_is_not_a_mapping_gets_a_schema_finding(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "questions" / "x.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    loaded = load_item_file(path, tmp_path)
    assert [(f.code, f.line, f.message) for f in loaded.findings] == [("schema", 1, message)]
    assert loaded.item is None


def test_huge_file_is_rejected_by_size_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "questions" / "big.yaml"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB without writing them
    loaded = load_item_file(path, tmp_path)
    assert [(f.code, f.line) for f in loaded.findings] == [("file-too-large", 0)]
    assert loaded.size == 50 * 1024 * 1024 and loaded.digest == "" and loaded.raw is None
    assert str(MAX_FILE_BYTES) in loaded.findings[0].message


def test_missing_vault_raises_vault_not_found(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound, match="does not exist; pass an existing vault folder"):
        load_vault(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    with pytest.raises(VaultNotFound, match="is not a folder"):
        load_vault(tmp_path / "file")


def test_unknown_keys_survive_loading(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    shutil.copytree(VALID, vault)
    path = vault / "questions" / "cloud" / "cloud-0001.yaml"
    path.write_text(path.read_text() + "reviewer_mood: happy\n")
    [loaded] = load_vault(vault).files
    assert loaded.item is not None
    assert loaded.item.model_extra == {"reviewer_mood": "happy"}


def test_invalid_item_gets_one_schema_finding_per_field(tmp_path: Path) -> None:
    path = tmp_path / "questions" / "cloud-0001.yaml"
    path.parent.mkdir(parents=True)
    text = ITEM.read_text().replace("level: L3", "level: L9").replace("zone: diagnosis", "zone: x")
    path.write_text(text)
    loaded = load_item_file(path, tmp_path)
    assert [(f.code, f.line, f.message.split(":")[0]) for f in loaded.findings] == [
        ("schema", 4, "level"),
        ("schema", 5, "zone"),
    ]


def test_shared_file_errors_are_findings(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    shutil.copytree(VALID, vault)
    (vault / "chains.yaml").write_text("chains:\n  - id: x\n    items: [a\n")
    (vault / "decks.yaml").write_text("decks:\n  - title: no name\n")
    found = [(f.path, f.code, f.line) for f in load_vault(vault).findings]
    assert found == [("chains.yaml", "yaml-syntax", 4), ("decks.yaml", "schema", 2)]


def test_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    shutil.copytree(VALID, vault)
    missing = vault / "questions" / "cloud" / "gone.yaml"
    [loaded] = load_vault(vault, paths=[missing]).files
    assert [(f.code, f.path, f.line) for f in loaded.findings] == [
        ("file-unreadable", "questions/cloud/gone.yaml", 0)
    ]
    assert loaded.findings[0].message == "cannot read file: No such file or directory"
