"""Exporting a vault: every format, filters, stable identity, atomic writes."""

from __future__ import annotations

import csv
import json
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.content.enums import Level, Status, Track
from sysdrill.content.models import validate_item
from sysdrill.errors import ExportFailed, VaultNotFound
from sysdrill.interop.export import ExportFilters, ExportFormat, export_vault
from sysdrill.interop.export.apkg import NOTE_TYPES, deck_id, note_guid
from sysdrill.interop.formats.anki_text import read_anki_text
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.formats.csv_text import read_csv
from sysdrill.interop.formats.markdown_qa import read_markdown_qa

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

SCENARIO_QUESTION: dict[str, Any] = {
    "schema_version": "1.0",
    "id": "cloud-0001",
    "track": "cloud",
    "level": "L3",
    "zone": "analyze",
    "topic": "kv-cache",
    "competency_area": "memory",
    "bloom_level": "analyze",
    "phase": "inference",
    "title": "KV cache <size>",
    "scenario": "A 70B model serves 32 users with 4k context.",
    "question": "How much memory does the KV cache take, $2 \\cdot L \\cdot d$ per token?",
    "details": {
        "realistic_solution": "About **40 GB**; it grows with batch *and* context.",
        "napkin_math": "### Assumptions\n\n80 layers\n\n**Calculations:** 2 * 80 = 160",
        "common_mistake": "**The Pitfall:** forgetting the factor 2 for K and V.",
    },
    "status": "published",
    "tags": ["serving", "memory bound"],
    "created_at": "2026-01-05",
}


def _items() -> list[dict[str, Any]]:
    return [
        SCENARIO_QUESTION,
        {
            "id": "cloud-0002",
            "track": "cloud",
            "level": "L2",
            "zone": "recall",
            "topic": "interconnect",
            "competency_area": "networking",
            "bloom_level": "remember",
            "phase": "training",
            "title": "NVLink",
            "scenario": "Eight GPUs in one node.",
            "question": "Which link is fastest?",
            "details": {
                "options": ["PCIe 4", "NVLink 4", "Ethernet", "InfiniBand"],
                "correct_index": 1,
                "realistic_solution": "NVLink moves 900 GB/s per GPU.",
            },
            "status": "draft",
        },
        {
            "id": "deck-0001",
            "format": "flashcard",
            "deck": "Distributed training",
            "question": "What is ZeRO-3?",
            "details": {"realistic_solution": "Sharding of params, grads and optimizer state."},
            "tags": ["zero"],
        },
        {
            "id": "deck-0002",
            "format": "exercise",
            "deck": "Distributed training",
            "level": "L4",
            "question": "Size the pipeline.",
            "parts": [
                {"label": "a", "text": "Bubble for P=4, M=16?"},
                {"label": "(b)", "text": "Fix?"},
            ],
            "has_reference_answer": False,
        },
        {
            "id": "deck-0003",
            "format": "numeric",
            "deck": "Distributed training",
            "question": "Ring all-reduce time for 1 GB at 100 GB/s?",
            "answer_value": 20,
            "answer_unit": "ms",
            "answer_tolerance": 0.1,
        },
        {
            "id": "deck-0004",
            "format": "quiz",
            "deck": "Chapter 26",
            "question": "Question without an answer?",
        },
        {
            "id": "gone-0001",
            "format": "flashcard",
            "question": "Deleted?",
            "status": "deleted",
            "details": {"realistic_solution": "yes"},
        },
    ]


def write_vault(root: Path, items: list[dict[str, Any]]) -> Path:
    questions = root / "questions"
    questions.mkdir(parents=True, exist_ok=True)
    for item in items:
        (questions / f"{item['id']}.yaml").write_text(
            yaml.safe_dump(item, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "vault", _items())
    (root / "questions" / "broken.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    return root


def test_export_csv_writes_every_valid_item_but_deleted_and_reports_skips(
    vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cards.csv"

    report = export_vault(vault, format="csv", out=out, now=NOW)

    with out.open(encoding="utf-8", newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert [row["id"] for row in rows] == [
        "cloud-0001",
        "cloud-0002",
        "deck-0001",
        "deck-0002",
        "deck-0003",
        "deck-0004",
    ]
    assert rows[2]["front"] == "What is ZeRO-3?"
    assert rows[2]["back"] == "Sharding of params, grads and optimizer state."
    assert rows[0]["tags"] == "serving; memory bound"
    assert rows[1]["front"].endswith("A. PCIe 4\nB. NVLink 4\nC. Ethernet\nD. InfiniBand")
    assert rows[1]["back"].startswith("**Answer: B. NVLink 4**")
    assert rows[4]["back"].startswith("**20 ms** (within 10%)")
    assert rows[5]["back"] == ""
    assert report.items == 6
    assert report.by_kind == {"exercise": 1, "flashcard": 1, "numeric": 1, "question": 2, "quiz": 1}
    assert report.filtered_out == 1
    assert len(report.skipped) == 1 and report.skipped[0].startswith("questions/broken.yaml: ")
    assert report.decks == ["Chapter 26", "Distributed training"]
    assert report.size_bytes == out.stat().st_size


def test_export_csv_reads_back_with_the_csv_reader(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "cards.csv"
    export_vault(vault, format=ExportFormat.CSV, out=out, now=NOW)

    source = read_csv(out)

    card = next(i for i in source.items if i.preferred_id == "deck-0001")
    assert card.data == {
        "format": "flashcard",
        "question": "What is ZeRO-3?",
        "details": {"realistic_solution": "Sharding of params, grads and optimizer state."},
        "tags": ["zero"],
        "deck": "Distributed training",
    }
    tagged = next(i for i in source.items if i.preferred_id == "cloud-0001")
    assert tagged.data["tags"] == ["serving", "memory bound"]


def test_export_staffml_json_holds_items_exactly_as_the_vault(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "corpus.json"

    export_vault(vault, format="staffml-json", out=out, now=NOW)

    corpus = json.loads(out.read_text(encoding="utf-8"))
    on_disk = {
        path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))
        for path in (vault / "questions").glob("*-000*.yaml")
    }
    assert [entry["id"] for entry in corpus] == sorted(k for k in on_disk if k != "gone-0001")
    for entry in corpus:
        assert validate_item(entry) == validate_item(on_disk[entry["id"]])
    assert corpus[0] == SCENARIO_QUESTION


def test_export_staffml_json_writes_yaml_dates_as_the_model_reads_them(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "v", [])
    (root / "questions" / "d.yaml").write_text(
        "id: d-1\nformat: flashcard\nquestion: Q\ndetails:\n  realistic_solution: A\n"
        "created_at: 2026-01-05\n",
        encoding="utf-8",
    )
    out = tmp_path / "corpus.json"

    export_vault(root, format="staffml-json", out=out, now=NOW)

    (entry,) = json.loads(out.read_text(encoding="utf-8"))
    assert entry["created_at"] == "2026-01-05"


def test_export_markdown_reads_back_with_ids_kept(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "cards.md"

    report = export_vault(vault, format="markdown", out=out, now=NOW)

    text = out.read_text(encoding="utf-8")
    assert "## Distributed training\n\n<!-- id: deck-0001 -->\nQ: What is ZeRO-3?\n" in text
    assert "### Assumptions" not in text and "**Assumptions**" in text
    source = read_markdown_qa(out)
    assert sorted(item.preferred_id or "" for item in source.items) == [
        "cloud-0001",
        "cloud-0002",
        "deck-0001",
        "deck-0002",
        "deck-0003",
        "deck-0004",
    ]
    zero = next(i for i in source.items if i.preferred_id == "deck-0001")
    assert zero.data["details"] == {
        "realistic_solution": "Sharding of params, grads and optimizer state."
    }
    assert report.items == 6


def test_export_anki_text_has_headers_guids_and_sanitised_html(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "notes.txt"

    report = export_vault(vault, format="anki-text", out=out, now=NOW)

    lines = out.read_text(encoding="utf-8").split("\n")
    assert lines[:7] == [
        "#separator:tab",
        "#html:true",
        "#notetype:Basic",
        "#guid column:1",
        "#deck column:2",
        "#tags column:3",
        "#columns:GUID\tDeck\tTags\tFront\tBack",
    ]
    rows = list(csv.reader(lines[7:], delimiter="\t"))
    first = next(row for row in rows if row and row[0] == note_guid("cloud-0001"))
    assert first[1] == "sysdrill::cloud::L3"
    assert first[2].split() == [
        "serving",
        "memory_bound",
        "track::cloud",
        "level::L3",
        "topic::kv-cache",
        "area::memory",
        "kind::question",
    ]
    assert "\\(2 \\cdot L \\cdot d\\)" in first[3]
    assert "<size>" not in first[3]
    assert "sysdrill::Distributed_training" not in report.decks
    assert "sysdrill::Distributed training" in report.decks
    source = read_anki_text(out)
    assert [item.key for item in source.items] == [row[0] for row in rows if row]


def test_export_apkg_builds_note_types_decks_tags_and_stable_guids(
    vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "deck.apkg"

    report = export_vault(vault, format="apkg", out=out, now=NOW)

    assert report.decks == [
        "sysdrill::Chapter 26",
        "sysdrill::Distributed training",
        "sysdrill::Distributed training::L4",
        "sysdrill::cloud::L2",
        "sysdrill::cloud::L3",
    ]
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["collection.anki2", "media"]
        (tmp_path / "c.sqlite").write_bytes(archive.read("collection.anki2"))
    with sqlite3.connect(tmp_path / "c.sqlite") as conn:
        notes = {
            guid: (mid, tags, flds, mod)
            for guid, mid, tags, flds, mod in conn.execute(
                "SELECT guid, mid, tags, flds, mod FROM notes"
            )
        }
        models = json.loads(conn.execute("SELECT models FROM col").fetchone()[0])
        decks = json.loads(conn.execute("SELECT decks FROM col").fetchone()[0])
    conn.close()
    assert len(notes) == 6
    mid, tags, flds, mod = notes[note_guid("cloud-0002")]
    assert mid == NOTE_TYPES["multiple-choice"].model_id
    assert "kind::question" in tags.split()
    fields = dict(zip(NOTE_TYPES["multiple-choice"].fields, flds.split("\x1f"), strict=True))
    assert fields["Answer"] == "<p>B. NVLink 4</p>"
    assert fields["Id"] == "cloud-0002"
    # The note is dated by its item's file, not stamped with the export time.
    item_file = next(vault.rglob("cloud-0002.yaml"))
    assert mod == int(item_file.stat().st_mtime)
    question = dict(
        zip(
            NOTE_TYPES["question"].fields,
            notes[note_guid("cloud-0001")][2].split("\x1f"),
            strict=True,
        )
    )
    assert question["Title"] == "<p>KV cache &lt;size&gt;</p>"
    assert "\\(2 \\cdot L \\cdot d\\)" in question["Question"]
    assert question["Meta"] == "cloud · L3 · kv-cache · cloud-0001"
    assert notes[note_guid("deck-0002")][0] == NOTE_TYPES["exercise"].model_id
    assert notes[note_guid("deck-0003")][0] == NOTE_TYPES["flashcard"].model_id
    assert {str(m["id"]) for m in models.values()} == {
        str(NOTE_TYPES[k].model_id)
        for k in ("question", "multiple-choice", "flashcard", "exercise")
    }
    assert str(deck_id("sysdrill::cloud::L3")) in decks


def test_export_apkg_twice_keeps_guids_and_ids_stable(vault: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "a.apkg", tmp_path / "b.apkg"
    export_vault(vault, format="apkg", out=first, now=NOW)
    export_vault(vault, format="apkg", out=second, now=NOW + timedelta(days=1))

    read_first, read_second = read_apkg(first), read_apkg(second)

    assert [i.key for i in read_first.items] == [i.key for i in read_second.items]
    assert {i.preferred_id for i in read_first.items} == {
        "cloud-0001",
        "cloud-0002",
        "deck-0001",
        "deck-0002",
        "deck-0003",
        "deck-0004",
    }


def test_export_filters_by_track_level_deck_tag_and_status(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "f.json"

    def ids(filters: ExportFilters) -> list[str]:
        export_vault(vault, format="staffml-json", out=out, filters=filters, now=NOW)
        return [entry["id"] for entry in json.loads(out.read_text(encoding="utf-8"))]

    assert ids(ExportFilters(tracks=(Track.CLOUD,))) == ["cloud-0001", "cloud-0002"]
    assert ids(ExportFilters(levels=(Level.L3, Level.L4))) == ["cloud-0001", "deck-0002"]
    assert ids(ExportFilters(decks=("distributed training",))) == [
        "deck-0001",
        "deck-0002",
        "deck-0003",
    ]
    assert ids(ExportFilters(tags=("ZERO", "serving"))) == ["cloud-0001", "deck-0001"]
    assert ids(ExportFilters(statuses=(Status.DELETED,))) == ["gone-0001"]
    assert ids(ExportFilters(tracks=(Track.CLOUD,), statuses=(Status.PUBLISHED,))) == ["cloud-0001"]


def test_export_with_no_matching_item_fails_and_writes_nothing(vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "none.apkg"

    with pytest.raises(ExportFailed) as caught:
        export_vault(
            vault, format="apkg", out=out, filters=ExportFilters(tracks=(Track.EDGE,)), now=NOW
        )

    assert str(caught.value) == f"no item in '{vault}' matches --track edge; loosen the filters"
    assert list(tmp_path.iterdir()) == [vault]


def test_export_of_empty_vault_names_the_fix(tmp_path: Path) -> None:
    root = write_vault(tmp_path / "empty", [])

    with pytest.raises(ExportFailed) as caught:
        export_vault(root, format="csv", out=tmp_path / "x.csv", now=NOW)

    assert str(caught.value) == (
        f"vault '{root}' holds no valid items to export; run `sysdrill check {root}` to see why"
    )


def test_export_to_missing_folder_fails(vault: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportFailed) as caught:
        export_vault(vault, format="csv", out=tmp_path / "no" / "x.csv", now=NOW)

    assert str(caught.value) == (
        f"folder '{tmp_path / 'no'}' does not exist; create it first or choose another --out"
    )


def test_export_failure_midway_keeps_the_previous_file_and_leaves_no_temp(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "deck.apkg"
    out.write_bytes(b"previous export")

    def explode(*args: object) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("sysdrill.interop.export.apkg.anki_tags", explode)
    with pytest.raises(RuntimeError):
        export_vault(vault, format="apkg", out=out, now=NOW)

    assert out.read_bytes() == b"previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.apkg", "vault"]


def test_export_rejects_naive_or_non_utc_now(vault: Path, tmp_path: Path) -> None:
    for now in (datetime(2026, 1, 1), datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))):
        with pytest.raises(ValueError, match="UTC"):
            export_vault(vault, format="csv", out=tmp_path / "x.csv", now=now)


def test_export_of_missing_vault_raises_vault_not_found(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFound):
        export_vault(tmp_path / "nope", format="csv", out=tmp_path / "x.csv", now=NOW)


def test_export_uses_deck_titles_and_decks_listing_items(tmp_path: Path) -> None:
    root = write_vault(
        tmp_path / "v",
        [
            {
                "id": "a-1",
                "format": "flashcard",
                "deck": "dist",
                "question": "Q1",
                "details": {"realistic_solution": "A1"},
            },
            {
                "id": "a-2",
                "format": "flashcard",
                "question": "Q2",
                "details": {"realistic_solution": "A2"},
            },
            {
                "id": "a-3",
                "format": "flashcard",
                "question": "Q3",
                "details": {"realistic_solution": "A3"},
            },
        ],
    )
    (root / "decks.yaml").write_text(
        "decks:\n- name: dist\n  title: Distributed training\n  items: [a-2]\n", encoding="utf-8"
    )
    out = tmp_path / "d.apkg"

    report = export_vault(
        root,
        format="apkg",
        out=out,
        filters=ExportFilters(decks=("Distributed Training",)),
        now=NOW,
    )

    assert report.items == 2 and report.filtered_out == 1
    assert report.decks == ["sysdrill::Distributed training"]
    # Read back as its own export: the deck without the sysdrill root, as Anki text's.
    assert {item.data["deck"] for item in read_apkg(out).items} == {"Distributed training"}
    csv_report = export_vault(
        root,
        format="csv",
        out=tmp_path / "d.csv",
        filters=ExportFilters(decks=("dist",)),
        now=NOW,
    )
    assert csv_report.decks == ["dist"]


def test_export_markdown_escapes_marker_lines_inside_answers(tmp_path: Path) -> None:
    root = write_vault(
        tmp_path / "v",
        [
            {
                "id": "m-1",
                "format": "flashcard",
                "question": "Interview drill?",
                "details": {"realistic_solution": "Expect:\nQ: a follow-up\nA: its answer"},
            },
        ],
    )
    out = tmp_path / "m.md"

    export_vault(root, format="markdown", out=out, now=NOW)

    (item,) = read_markdown_qa(out).items
    assert item.preferred_id == "m-1"
    assert item.data["question"] == "Interview drill?"
    assert item.data["details"]["realistic_solution"].startswith("Expect:\n\\Q: a follow-up")


def test_apkg_export_reads_back_with_scenario_on_front_and_no_meta(
    vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "deck.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)

    items = {item.preferred_id: item.data for item in read_apkg(out).items}

    question = items["cloud-0002"]
    assert question["title"] == "NVLink"
    assert question["question"] == (
        "Eight GPUs in one node.\n\nWhich link is fastest?\n\n"
        "A. PCIe 4\nB. NVLink 4\nC. Ethernet\nD. InfiniBand"
    )
    assert question["details"]["realistic_solution"] == (
        "B. NVLink 4\n\n**Explanation:** NVLink moves 900 GB/s per GPU."
    )
    card = items["deck-0001"]
    assert card["details"] == {
        "realistic_solution": "Sharding of params, grads and optimizer state."
    }
    assert "Meta" not in card["details"]["realistic_solution"]


def test_export_anki_text_lists_parent_decks_before_their_subdecks(tmp_path: Path) -> None:
    items = [
        {
            "id": f"deck-{n:04d}",
            "format": "flashcard",
            "deck": deck,
            "question": f"Q{n}?",
            "details": {"realistic_solution": "A."},
        }
        for n, deck in enumerate(["Systems::GPU::HBM", "Systems::GPU", "Systems", "Alpha"])
    ]
    vault = write_vault(tmp_path / "vault", items)
    out = tmp_path / "notes.txt"

    export_vault(vault, format="anki-text", out=out, now=NOW)

    rows = list(csv.reader(out.read_text(encoding="utf-8").split("\n")[7:], delimiter="\t"))
    assert [row[1] for row in rows if row] == [
        "sysdrill::Alpha",
        "sysdrill::Systems",
        "sysdrill::Systems::GPU",
        "sysdrill::Systems::GPU::HBM",
    ]
