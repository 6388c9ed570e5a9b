from __future__ import annotations

import os
from pathlib import Path

import pytest

from sysdrill.content.cache import RACY_WINDOW_NS
from sysdrill.content.compile import (
    SHARED_FILES,
    FileState,
    compile_collections,
    compile_items,
    plan_build,
)
from sysdrill.content.hashing import content_hash
from sysdrill.content.loader import load_vault
from sysdrill.errors import ContentInvalid

ITEM = "questions/cloud/cloud-0103.yaml"


@pytest.fixture
def vault(sample_vault_copy: Path) -> Path:
    return sample_vault_copy


def set_mtime(path: Path, mtime_ns: int) -> None:
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_first_build_compiles_every_item_file(vault: Path) -> None:
    plan = plan_build(vault, {}, recorded_at_ns=0)
    assert len(plan.changed) == 12 and plan.gone == [] and not plan.unchanged
    assert plan.item_files == plan.changed
    assert set(plan.files) - set(plan.changed) == {"taxonomy.yaml", "chains.yaml", "decks.yaml"}


def test_plan_from_its_own_record_is_unchanged(vault: Path) -> None:
    first = plan_build(vault, {}, recorded_at_ns=0)
    again = plan_build(vault, first.states, recorded_at_ns=0)
    assert again.unchanged and again.changed == [] and again.gone == []


def test_old_file_matching_size_and_mtime_is_trusted_unread(vault: Path) -> None:
    path = vault / ITEM
    set_mtime(path, 1_000_000_000)
    size = path.stat().st_size
    record = {ITEM: FileState(size, 1_000_000_000, "digest-from-the-record")}
    plan = plan_build(vault, record, recorded_at_ns=1_000_000_000 + RACY_WINDOW_NS + 1)
    assert plan.files[ITEM].state.digest == "digest-from-the-record"
    assert plan.files[ITEM].data == b"" and ITEM not in plan.changed


def test_file_modified_within_the_racy_window_is_hashed(vault: Path) -> None:
    path = vault / ITEM
    set_mtime(path, 1_000_000_000)
    size = path.stat().st_size
    record = {ITEM: FileState(size, 1_000_000_000, "digest-from-the-record")}
    plan = plan_build(vault, record, recorded_at_ns=1_000_000_000 + RACY_WINDOW_NS)
    assert plan.files[ITEM].state.digest != "digest-from-the-record"
    assert ITEM in plan.changed


def test_removed_file_is_gone_and_shared_files_are_never_gone(vault: Path) -> None:
    record = plan_build(vault, {}, recorded_at_ns=0).states
    (vault / ITEM).unlink()
    (vault / "chains.yaml").unlink()
    plan = plan_build(vault, record, recorded_at_ns=0)
    assert plan.gone == [ITEM] and plan.changed == [] and not plan.unchanged


def test_compiled_rows_match_the_loaded_items(vault: Path) -> None:
    rows = {item.row.id: item for item in compile_items(plan_build(vault, {}, recorded_at_ns=0))}
    loaded = {item.id: item for item in load_vault(vault).items}
    assert set(rows) == set(loaded)
    quiz = rows["cloud-0103"]
    assert quiz.row.path == ITEM and quiz.row.level == "L3" and quiz.row.level_rank == 3
    assert quiz.row.content_hash == content_hash(loaded["cloud-0103"])
    assert "ZeRO stage 2 (optimizer state and gradients sharded)" in quiz.row.answer
    assert quiz.tags == ("memory", "zero")


def test_compiling_drops_each_files_bytes(vault: Path) -> None:
    plan = plan_build(vault, {}, recorded_at_ns=0)
    assert plan.files[ITEM].data
    list(compile_items(plan))
    assert all(plan.files[rel].data == b"" for rel in plan.changed)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id: [unclosed\n", f"{ITEM}:2:1: ERROR yaml-syntax"),
        ("title: no id here\n", f"{ITEM}: the item has no id"),
        ("- a list\n", f"{ITEM}: top level is not a mapping"),
    ],
)
def test_file_that_cannot_become_a_row_names_itself(vault: Path, text: str, message: str) -> None:
    (vault / ITEM).write_text(text, "utf-8")
    with pytest.raises(ContentInvalid) as caught:
        list(compile_items(plan_build(vault, {}, recorded_at_ns=0)))
    assert str(caught.value).startswith(message)
    assert str(caught.value).endswith("run `sysdrill check` for every finding")


def test_collections_are_empty_without_shared_files(vault: Path) -> None:
    for name in SHARED_FILES:
        (vault / name).unlink(missing_ok=True)
    collections = compile_collections(plan_build(vault, {}, recorded_at_ns=0))
    assert (collections.taxonomy.topics, collections.chains, collections.decks) == (
        [],
        [],
        [],
    )


def test_collections_read_the_shared_files(vault: Path) -> None:
    collections = compile_collections(plan_build(vault, {}, recorded_at_ns=0))
    chains = {chain.id: chain.items for chain in collections.chains}
    assert chains["inference-memory"] == ["edge-0101", "edge-0102", "mobile-0101"]


def test_broken_shared_file_raises_content_invalid(vault: Path) -> None:
    (vault / "decks.yaml").write_text("decks: [unclosed\n", "utf-8")
    with pytest.raises(ContentInvalid, match=r"^decks.yaml:2:1: ERROR yaml-syntax"):
        compile_collections(plan_build(vault, {}, recorded_at_ns=0))


def test_public_names_exist() -> None:
    from sysdrill.content import compile as module

    assert [name for name in module.__all__ if not hasattr(module, name)] == []
