from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.content.collections import Taxonomy
from sysdrill.content.compile import CompiledItem, FileState, ItemRow, VaultCollections
from sysdrill.errors import DuplicateQuestion
from sysdrill.storage.vault_db import default_db_path, read_build_record, write_vault_db
from sysdrill.storage.vault_query import read_release, search_items

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
EMPTY = VaultCollections(Taxonomy(), [], [])


def compiled(item_id: str, path: str, title: str) -> CompiledItem:
    row = ItemRow(
        id=item_id,
        path=path,
        kind="flashcard",
        track="cloud",
        level="L2",
        level_rank=2,
        zone=None,
        topic=None,
        competency_area=None,
        bloom_level=None,
        phase=None,
        status="published",
        title=title,
        scenario=None,
        question=None,
        answer="an answer",
        deck=None,
        content_hash="h-" + item_id,
        item_json="{}",
    )
    return CompiledItem(row, ("tag",))


def write(out: Path, items: list[CompiledItem], *, incremental: bool = False, **changes):
    files = {item.row.path: FileState(10, 20, "d-" + item.row.id) for item in items}
    arguments = {
        "root": out.parent,
        "now": NOW,
        "incremental": incremental,
        "drop": [],
        "items": items,
        "collections": EMPTY,
        "files": files,
        "gate": lambda: None,
    }
    return write_vault_db(out, **(arguments | changes))


def test_written_database_records_its_files_for_the_next_build(tmp_path: Path) -> None:
    out = tmp_path / "v.db"
    written = write(out, [compiled("a-1", "questions/a.yaml", "Roofline")])
    record = read_build_record(out)
    assert record is not None
    assert record.files == {"questions/a.yaml": FileState(10, 20, "d-a-1")}
    assert record.built_at == NOW
    assert (written.items, written.published) == (1, 1)
    assert read_release(out).release_hash == written.release_hash


def test_incremental_write_drops_and_adds_rows(tmp_path: Path) -> None:
    out = tmp_path / "v.db"
    write(out, [compiled("a-1", "questions/a.yaml", "Roofline"), compiled("b-1", "b.yaml", "KV")])
    written = write(
        out,
        [compiled("c-1", "questions/c.yaml", "Pipeline bubbles")],
        incremental=True,
        drop=["questions/a.yaml"],
    )
    assert written.items == 2
    assert [hit.id for hit in search_items(out, "")] == ["b-1", "c-1"]
    assert search_items(out, "roofline") == []


def test_refusing_gate_leaves_the_previous_database(tmp_path: Path) -> None:
    out = tmp_path / "v.db"
    write(out, [compiled("a-1", "questions/a.yaml", "Roofline")])
    before = out.read_bytes()

    def refuse() -> None:
        raise RuntimeError("audit failed")

    with pytest.raises(RuntimeError, match="audit failed"):
        write(out, [compiled("b-1", "questions/b.yaml", "KV")], incremental=True, gate=refuse)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.db"]


def test_two_items_with_one_id_name_both_files(tmp_path: Path) -> None:
    items = [compiled("a-1", "questions/a.yaml", "x"), compiled("a-1", "questions/b.yaml", "y")]
    with pytest.raises(DuplicateQuestion, match="questions/a.yaml and questions/b.yaml"):
        write(tmp_path / "v.db", items)
    assert not (tmp_path / "v.db").exists()


def test_an_id_added_again_to_a_new_database_is_refused_by_the_next_build(tmp_path: Path) -> None:
    out = tmp_path / "v.db"
    write(out, [compiled("a-1", "questions/a.yaml", "Roofline")])
    before = out.read_bytes()
    with pytest.raises(DuplicateQuestion, match="questions/a.yaml and questions/b.yaml"):
        write(out, [compiled("a-1", "questions/b.yaml", "KV")], incremental=True)
    assert out.read_bytes() == before


def test_a_tag_repeated_in_one_item_is_stored_once(tmp_path: Path) -> None:
    out = tmp_path / "v.db"
    item = compiled("a-1", "questions/a.yaml", "Roofline")
    write(out, [CompiledItem(item.row, ("memory", "network", "memory"))])
    with contextlib.closing(sqlite3.connect(out)) as connection:
        tags = connection.execute("SELECT item_id, tag FROM tags ORDER BY tag").fetchall()
    assert tags == [("a-1", "memory"), ("a-1", "network")]


def test_no_usable_build_record_in_a_missing_corrupt_or_foreign_file(tmp_path: Path) -> None:
    assert read_build_record(tmp_path / "missing.db") is None
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"not a database at all")
    assert read_build_record(corrupt) is None
    foreign = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as connection:
        connection.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        connection.execute("INSERT INTO meta VALUES ('schema_version', '999')")
        connection.commit()
    assert read_build_record(foreign) is None


def test_default_db_path_is_per_vault(tmp_path: Path) -> None:
    first = default_db_path(tmp_path / "a", tmp_path / "cache")
    second = default_db_path(tmp_path / "b", tmp_path / "cache")
    assert first != second and first.parent == tmp_path / "cache" / "vaults"


def test_public_names_exist() -> None:
    from sysdrill.storage import vault_db

    assert [name for name in vault_db.__all__ if not hasattr(vault_db, name)] == []
