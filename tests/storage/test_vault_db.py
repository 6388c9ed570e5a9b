from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sysdrill.content.hashing import content_hash, release_hash
from sysdrill.content.loader import load_vault
from sysdrill.errors import (
    ContentInvalid,
    DuplicateQuestion,
    QuestionNotFound,
    StorageError,
    VaultNotFound,
)
from sysdrill.storage import vault_db
from sysdrill.storage.vault_db import (
    build_vault,
    default_db_path,
    get_item,
    read_release,
    search_items,
    vault_stats,
)
from sysdrill.storage.vault_query import plain_terms_query

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
    monkeypatch.setattr(vault_db, "PARALLEL_CHECK_MIN_FILES", 1)
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


def test_reading_a_missing_or_foreign_database_raises_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="run `sysdrill build` first"):
        vault_stats(tmp_path / "missing.db")
    foreign = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as connection:
        connection.execute("CREATE TABLE x (y)")
    with pytest.raises(StorageError, match="is not a compiled vault"):
        vault_stats(foreign)


def test_search_ranks_title_matches_first(built: Path) -> None:
    hits = search_items(built, "pipeline")
    assert hits[0].id == "cloud-0104"
    assert "**" in hits[0].snippet


def test_search_filters_by_track_level_and_topic(built: Path) -> None:
    assert {h.id for h in search_items(built, "", tracks=["edge"])} == {"edge-0101", "edge-0102"}
    assert [h.id for h in search_items(built, "", levels=["L6+"])] == ["cloud-0106"]
    topic = search_items(built, "memory", topics=["kv-cache"])
    assert {h.id for h in topic} <= {"edge-0101", "edge-0102", "mobile-0101"} and topic
    assert search_items(built, "bubble", tracks=["tinyml"]) == []


def test_search_honours_fts_syntax(built: Path) -> None:
    assert {h.id for h in search_items(built, "checkpoint*")} >= {"global-0101", "global-0102"}
    assert [h.id for h in search_items(built, '"keyword spotting"')] == ["tinyml-0101"]


SAMPLE_IDS = {
    *(f"cloud-010{n}" for n in range(1, 7)),
    "edge-0101",
    "edge-0102",
    "global-0101",
    "global-0102",
    "mobile-0101",
    "tinyml-0101",
}
"""Every item id of the bundled sample vault."""


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"unterminated', set()),  # read as the word "unterminated", which no item has
        ("AND", SAMPLE_IDS),  # the operator alone becomes the word "and", in every item
        ("NEAR(", {"edge-0102", "global-0102"}),
        ("(bubble", {"cloud-0104"}),
        ("roofline)", {"edge-0102"}),
        ("all-reduce (", {"cloud-0101", "cloud-0102", "cloud-0105"}),
        ('kv-cache "memory', {"mobile-0101"}),
        ("*", set()),  # no word characters: nothing to search
        ("-", set()),
        ("title:", set()),
        ("c++", set()),
        ("a:b:c", set()),
    ],
)
def test_search_falls_back_to_plain_terms_on_fts_syntax_errors(
    built: Path, query: str, expected: set[str]
) -> None:
    assert {h.id for h in search_items(built, query)} == expected


def test_search_fallback_finds_words_of_a_broken_query(built: Path) -> None:
    assert [h.id for h in search_items(built, 'bubble"')] == ["cloud-0104"]


def test_plain_terms_query_quotes_each_word_group() -> None:
    assert plain_terms_query('all-reduce "time') == '"all reduce" "time"'
    assert plain_terms_query("*** ---") == ""


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=60))
def test_search_never_raises_on_any_text(built: Path, query: str) -> None:
    hits = search_items(built, query, limit=5)
    assert len(hits) <= 5
    assert {h.id for h in hits} <= SAMPLE_IDS


def test_get_item_suggests_close_ids(built: Path) -> None:
    with pytest.raises(QuestionNotFound) as caught:
        get_item(built, "cloud-01O3")
    assert str(caught.value).startswith("no item with id 'cloud-01O3'; did you mean cloud-0103")


def test_stats_count_by_track_level_zone_area_status_and_kind(built: Path) -> None:
    stats = vault_stats(built)
    assert stats.total == 12
    assert stats.by_track_level["cloud"] == {f"L{n}": 1 for n in range(1, 6)} | {"L6+": 1}
    assert sum(sum(row.values()) for row in stats.by_track_level.values()) == 12
    assert stats.by_kind == {"exercise": 1, "flashcard": 1, "numeric": 1, "question": 8, "quiz": 1}
    assert stats.by_status == {"published": 12}
    assert sum(stats.by_zone.values()) == sum(stats.by_competency_area.values()) == 12


def test_default_db_path_is_per_vault(tmp_path: Path) -> None:
    first = default_db_path(tmp_path / "a", tmp_path / "cache")
    second = default_db_path(tmp_path / "b", tmp_path / "cache")
    assert first != second and first.parent == tmp_path / "cache" / "vaults"
