from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from sysdrill.app import build
from sysdrill.app.build import build_vault, compiled_vault
from sysdrill.content.hashing import content_hash, release_hash
from sysdrill.content.loader import load_vault
from sysdrill.errors import (
    ContentInvalid,
    DuplicateQuestion,
    QuestionNotFound,
    StorageError,
    VaultNotFound,
)
from sysdrill.storage.vault_db import default_db_path
from sysdrill.storage.vault_query import get_item, read_release, search_items

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(hours=1)


@pytest.fixture
def vault(sample_vault_copy: Path) -> Path:
    return sample_vault_copy


@pytest.fixture
def built(vault: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out" / "vault.db"
    build_vault(vault, out, now=NOW)
    return out


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(db)) as connection:
        return connection.execute(sql).fetchall()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new), "utf-8")


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_build_stores_every_item_with_its_content_hash(vault: Path, built: Path) -> None:
    loaded = load_vault(vault)
    stored = dict(rows(built, "SELECT id, content_hash FROM items"))
    assert stored == {item.id: content_hash(item) for item in loaded.items}


def test_build_records_release_metadata(vault: Path, built: Path) -> None:
    release = read_release(built)
    assert release.release_hash == release_hash(load_vault(vault).items)
    assert release.built_at == NOW
    assert release.item_count == 12 and release.published_count == 12
    assert release.vault_root == str(vault.resolve())


def test_build_stores_chains_with_zero_based_positions(built: Path) -> None:
    positions = rows(
        built,
        "SELECT position, item_id FROM chain_items WHERE chain_id = 'inference-memory' "
        "ORDER BY position",
    )
    assert positions == [(0, "edge-0101"), (1, "edge-0102"), (2, "mobile-0101")]


def test_build_appends_items_naming_a_deck_to_it(built: Path) -> None:
    members = rows(
        built, "SELECT position, item_id FROM deck_items WHERE deck = 'sample-chapter-quiz'"
    )
    assert members == [(0, "global-0101")]
    explicit = rows(
        built, "SELECT item_id FROM deck_items WHERE deck = 'sample-fundamentals' ORDER BY position"
    )
    assert explicit == [("cloud-0101",)]


def test_build_stores_tags_and_topics(built: Path) -> None:
    assert ("cloud-0103", "zero") in rows(built, "SELECT item_id, tag FROM tags")
    prerequisites = rows(
        built, "SELECT prerequisite FROM topic_prerequisites WHERE topic = 'tensor-parallelism'"
    )
    assert sorted(p[0] for p in prerequisites) == ["data-parallelism", "roofline-analysis"]


def test_rebuild_with_nothing_changed_writes_nothing(vault: Path, built: Path) -> None:
    before = built.stat().st_mtime_ns, built.read_bytes()
    report = build_vault(vault, built, now=LATER)
    assert report.up_to_date and report.parsed == 0 and report.reused == 12
    assert report.built_at == NOW
    assert (built.stat().st_mtime_ns, built.read_bytes()) == before


def test_changing_one_file_reparses_only_that_file(vault: Path, built: Path) -> None:
    edit(vault / "questions/cloud/cloud-0104.yaml", "Idle GPUs in", "Idle Accelerators in")
    report = build_vault(vault, built, now=LATER)
    assert (report.parsed, report.reused, report.removed) == (1, 11, 0)
    assert not report.up_to_date
    assert (
        get_item(built, "cloud-0104").item.title == "Idle Accelerators in an Eight-Stage Pipeline"
    )
    assert [hit.id for hit in search_items(built, "accelerators")] == ["cloud-0104"]
    assert search_items(built, "title:GPUs title:Idle") == []
    assert read_release(built).built_at == LATER


def test_touching_mtime_only_reparses_file_and_keeps_its_hash(vault: Path, built: Path) -> None:
    path = vault / "questions/edge/edge-0101.yaml"
    before = get_item(built, "edge-0101").content_hash
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    report = build_vault(vault, built, now=LATER)
    assert report.parsed == 1
    assert get_item(built, "edge-0101").content_hash == before


def _age_all_files(vault: Path, when: datetime) -> None:
    stamp = int(when.timestamp() * 1e9)
    for path in vault.rglob("*.yaml"):
        os.utime(path, ns=(stamp, stamp))


def test_old_files_matching_size_and_mtime_are_trusted_unread(vault: Path, tmp_path: Path) -> None:
    old = datetime(2026, 1, 1, tzinfo=UTC)
    _age_all_files(vault, old)
    out = tmp_path / "vault.db"
    build_vault(vault, out, now=NOW)
    path = vault / "questions/cloud/cloud-0104.yaml"
    edit(path, "Idle GPUs", "Idle CPUs")  # same size
    _age_all_files(vault, old)
    report = build_vault(vault, out, now=LATER)
    assert report.up_to_date  # like git: same size and old mtime are trusted


def test_recent_files_are_hashed_even_with_matching_size_and_mtime(
    vault: Path, tmp_path: Path
) -> None:
    recent = NOW - timedelta(seconds=1)
    _age_all_files(vault, recent)
    out = tmp_path / "vault.db"
    build_vault(vault, out, now=NOW)
    edit(vault / "questions/cloud/cloud-0104.yaml", "Idle GPUs", "Idle CPUs")  # same size
    _age_all_files(vault, recent)
    report = build_vault(vault, out, now=LATER)
    assert report.parsed == 1 and not report.up_to_date
    assert get_item(out, "cloud-0104").item.title == "Idle CPUs in an Eight-Stage Pipeline"


def test_removed_file_drops_its_item(vault: Path, built: Path) -> None:
    (vault / "questions/tinyml/tinyml-0101.yaml").unlink()
    edit(vault / "decks.yaml", ", tinyml-0101]", "]")
    report = build_vault(vault, built, now=LATER)
    assert (report.removed, report.items, report.parsed) == (1, 11, 0)
    with pytest.raises(QuestionNotFound):
        get_item(built, "tinyml-0101")
    assert search_items(built, "keyword spotting") == []


def test_changed_shared_file_rewrites_chains_without_parsing_items(
    vault: Path, built: Path
) -> None:
    edit(vault / "chains.yaml", "items: [global-0101, global-0102]", "items: [global-0101]")
    report = build_vault(vault, built, now=LATER)
    assert report.parsed == 0 and not report.up_to_date
    chain = rows(built, "SELECT item_id FROM chain_items WHERE chain_id = 'surviving-failures'")
    assert chain == [("global-0101",)]


def test_build_refuses_vault_with_errors_and_keeps_old_database(vault: Path, built: Path) -> None:
    before = built.read_bytes()
    edit(vault / "questions/cloud/cloud-0102.yaml", "zone: fluency", "zone: nowhere")
    with pytest.raises(ContentInvalid) as caught:
        build_vault(vault, built, now=LATER)
    message = str(caught.value)
    assert message.startswith("the vault has 1 error finding(s), first questions/cloud/cloud-0102")
    assert message.endswith(f"run `sysdrill check {vault}` and fix them before building")
    assert built.read_bytes() == before
    assert leftovers(built.parent) == []


def test_failure_while_writing_leaves_old_database_intact(vault: Path, built: Path) -> None:
    before = built.read_bytes()
    edit(vault / "questions/edge/edge-0102.yaml", "id: edge-0102", "id: edge-0101")
    with pytest.raises(DuplicateQuestion) as caught:
        build_vault(vault, built, now=LATER, check=False)
    assert str(caught.value) == (
        "id 'edge-0101' is defined by questions/edge/edge-0101.yaml and "
        "questions/edge/edge-0102.yaml; give each item its own id "
        "(`sysdrill check` lists every clash)"
    )
    assert built.read_bytes() == before
    assert leftovers(built.parent) == []


def test_background_check_refuses_large_rebuilds_too(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "PARALLEL_CHECK_MIN_FILES", 1)
    out = tmp_path / "vault.db"
    report = build_vault(vault, out, now=NOW, cache_dir=tmp_path / "cache")
    assert report.items == 12
    edit(vault / "questions/cloud/cloud-0102.yaml", "zone: fluency", "zone: nowhere")
    out.unlink()
    with pytest.raises(ContentInvalid, match="the vault has 1 error finding"):
        build_vault(vault, out, now=NOW, cache_dir=tmp_path / "cache")
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_corrupt_database_is_rebuilt_from_scratch(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "vault.db"
    out.write_bytes(b"not a database at all")
    report = build_vault(vault, out, now=NOW)
    assert report.parsed == 12 and report.items == 12


def test_build_rejects_naive_or_non_utc_time(vault: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="UTC"):
        build_vault(vault, tmp_path / "a.db", now=datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="UTC"):
        build_vault(
            vault, tmp_path / "a.db", now=datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))
        )


def test_build_into_a_folder_is_refused(vault: Path, tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is a folder; give a file name"):
        build_vault(vault, tmp_path, now=NOW)
    assert leftovers(tmp_path) == [] and leftovers(tmp_path.parent) == []


def test_build_of_missing_vault_raises_vault_not_found(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound):
        build_vault(tmp_path / "nowhere", tmp_path / "a.db", now=NOW)


def test_compiled_vault_keeps_one_copy_per_vault_in_the_cache(vault: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = compiled_vault(vault, now=NOW, cache_dir=cache)
    assert path == default_db_path(vault, cache)
    assert read_release(path).item_count == 12
    edit(vault / "questions/cloud/cloud-0104.yaml", "Idle GPUs in", "Idle Accelerators in")
    assert compiled_vault(vault, now=LATER, cache_dir=cache) == path
    assert [hit.id for hit in search_items(path, "accelerators")] == ["cloud-0104"]


def test_the_search_copy_has_the_release_of_a_build_before_and_after_a_status_edit(
    vault: Path, built: Path, tmp_path: Path
) -> None:
    """The copy takes the catalogue's hashes of published items; an edited file's are new."""
    cache = tmp_path / "cache"
    copy = compiled_vault(vault, now=NOW, cache_dir=cache)
    assert read_release(copy).release_hash == read_release(built).release_hash
    for item_id in ("global-0101", "edge-0102"):
        assert get_item(copy, item_id).content_hash == get_item(built, item_id).content_hash

    edit(vault / "questions/cloud/cloud-0104.yaml", "status: published", "status: draft")
    copy = compiled_vault(vault, now=LATER, cache_dir=cache)
    rebuilt = build_vault(vault, tmp_path / "again.db", now=LATER)
    assert (
        read_release(copy).release_hash == rebuilt.release_hash != read_release(built).release_hash
    )
    assert read_release(copy).published_count == rebuilt.published


def test_public_names_exist() -> None:
    from sysdrill.app import vault_audit

    for module in (build, vault_audit):
        assert [name for name in module.__all__ if not hasattr(module, name)] == []


def test_build_reports_each_compiled_item_to_a_progress_callback(
    vault: Path, tmp_path: Path
) -> None:
    seen: list[tuple[str, int, int]] = []
    report = build_vault(
        vault,
        tmp_path / "progress.db",
        now=NOW,
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )
    assert report.parsed == 12
    assert seen == [(build.COMPILING, done, 12) for done in range(13)]
