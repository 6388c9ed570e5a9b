"""Our .apkg reader on packages the official Anki writes (new schema, zstd, legacy)."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from sysdrill.interop.formats.apkg import read_apkg

try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    # CI installs the test-anki extra, so there a missing package is a failure.
    if os.environ.get("CI"):
        raise
    pytest.skip(
        "the anki package is not installed (pip install -e .[test-anki])", allow_module_level=True
    )

pytestmark = pytest.mark.anki


@pytest.mark.parametrize(
    ("legacy", "member"), [(False, "collection.anki21b"), (True, "collection.anki21")]
)
def test_read_apkg_reads_a_package_anki_exported(tmp_path: Path, legacy: bool, member: str) -> None:
    col = anki_collection.Collection(str(tmp_path / "c.anki2"))
    try:
        note = col.new_note(col.models.by_name("Basic"))
        note["Front"] = "What does <b>NCCL</b> stand for?"
        note["Back"] = "NVIDIA Collective<br>Communications Library"
        note.tags = ["gpu", "comm"]
        col.add_note(note, col.decks.id("Systems::Comms"))
        cloze = col.new_note(col.models.by_name("Cloze"))
        cloze["Text"] = "All-reduce sends {{c1::2(N-1)/N}} of the data"
        col.add_note(cloze, col.decks.id("Systems::Comms"))
        guid = note.guid
        out = tmp_path / "anki.apkg"
        options = anki_collection.ExportAnkiPackageOptions(
            with_scheduling=False, with_deck_configs=False, with_media=True, legacy=legacy
        )
        col.export_anki_package(out_path=str(out), options=options, limit=None)
    finally:
        col.close()
    assert member in zipfile.ZipFile(out).namelist()

    source = read_apkg(out)

    items = {item.key: item.data for item in source.items}
    assert items[guid] == {
        "format": "flashcard",
        "question": "What does **NCCL** stand for?",
        "details": {"realistic_solution": "NVIDIA Collective\nCommunications Library"},
        "tags": ["comm", "gpu"],
        "deck": "Systems::Comms",
    }
    (cloze_data,) = [data for key, data in items.items() if key != guid]
    assert cloze_data["question"] == "All-reduce sends [...] of the data"
    assert cloze_data["details"] == {
        "realistic_solution": "All-reduce sends **2(N-1)/N** of the data"
    }
    assert cloze_data["note_link"]["type"] == "Cloze"
    assert source.deck == "Systems::Comms"
