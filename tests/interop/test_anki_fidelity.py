"""Issue 16 fidelity fixtures: cloze, reversed, custom note types and non-Latin decks.

The package comes from ``conftest.build_fidelity_package`` (genanki). It goes
through import, export, and (where the ``anki`` package is installed) the
official Anki importer, which must see the same notes, cards and note types.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.interop.conftest import CLOZE_EXTRA, CLOZE_TEXT, import_with_anki

from sysdrill.interop.export import export_vault
from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)


def _items(vault: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in (vault / "questions").rglob("*.yaml"):
        raw = yaml.safe_load(path.read_text("utf-8"))
        found[raw["source"]["key"]] = raw
    return found


def _reexport(package: Path, tmp_path: Path) -> Path:
    """Import the package into a new vault and export the vault as a package."""
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)
    return out


def test_cloze_note_gives_one_item_per_blank_number(fidelity_apkg: Path) -> None:
    items = {item.key: item.data for item in read_apkg(fidelity_apkg).items}

    cloze = {key: data for key, data in items.items() if key.startswith("fixture-cloze")}
    assert sorted(cloze) == ["fixture-cloze#c1", "fixture-cloze#c2", "fixture-cloze#c3"]
    # c1 appears three times (once nested in c3): one card, every c1 blank hidden.
    assert cloze["fixture-cloze#c1"]["question"] == (
        "[...] runs all-reduce over NVLink [...] IB; [...] is NVIDIA's"
    )
    assert cloze["fixture-cloze#c2"]["question"] == (
        "NCCL runs [collective] over NVLink and IB; NCCL is NVIDIA's"
    )
    assert (
        cloze["fixture-cloze#c3"]["question"] == "NCCL runs all-reduce over [...]; NCCL is NVIDIA's"
    )
    assert cloze["fixture-cloze#c2"]["details"]["realistic_solution"] == (
        "NCCL runs **all-reduce** over NVLink and IB; NCCL is NVIDIA's\n\nRing or tree algorithms"
    )


def test_reversed_notes_give_two_linked_items_and_optional_only_when_asked(
    fidelity_apkg: Path,
) -> None:
    items = {item.key: item.data for item in read_apkg(fidelity_apkg).items}

    assert items["fixture-reversed#forward"]["question"] == "Память"
    assert items["fixture-reversed#reverse"]["question"] == "Memory"
    assert items["fixture-reversed#reverse"]["details"] == {"realistic_solution": "Память"}
    assert items["fixture-optional-yes#reverse"]["question"] == "high-bandwidth memory"
    assert "fixture-optional-no#reverse" not in items
    assert items["fixture-optional-no#forward"]["details"] == {"realistic_solution": "static RAM"}


def test_custom_note_type_maps_fields_by_name_not_position(fidelity_apkg: Path) -> None:
    source = read_apkg(fidelity_apkg)
    custom = next(item.data for item in source.items if item.key == "fixture-custom")

    assert custom["question"] == "10^{4} + 1?"
    assert custom["details"]["realistic_solution"] == "10001\n\n**Nummer:** 17"
    assert custom["details"]["resources"] == [
        {"name": "Quelle", "url": "https://example.org/aufgabe-17"}
    ]
    assert source.field_maps["Mathe Aufgabe"] == {
        "Nummer": "extra",
        "Frage": "question",
        "Antwort": "answer",
        "Quelle": "source",
    }


def test_map_option_overrides_the_heuristic(fidelity_apkg: Path) -> None:
    source = read_apkg(fidelity_apkg, field_map={"Nummer": FieldRole.IGNORE})
    custom = next(item.data for item in source.items if item.key == "fixture-custom")

    assert custom["details"]["realistic_solution"] == "10001"


def test_import_links_siblings_keeps_deck_scripts_and_is_idempotent(
    fidelity_apkg: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    first = import_source(fidelity_apkg, into=vault, now=NOW, audit=False)
    again = import_source(fidelity_apkg, into=vault, now=NOW, audit=False)

    assert len(first.added) == 9
    assert (len(again.unchanged), len(again.written)) == (9, 0)
    items = _items(vault)
    c1, c2 = items["fixture-cloze#c1"], items["fixture-cloze#c2"]
    assert c1["note_link"]["id"] == c2["note_link"]["id"]
    assert (c1["id"], c2["id"]) == (f"{c1['note_link']['id']}-c1", f"{c1['note_link']['id']}-c2")
    assert c1["deck"] == "日本語::文法"
    assert items["fixture-reversed#forward"]["deck"] == "русский-язык"
    assert items["fixture-custom"]["deck"] == "العربية"
    decks = yaml.safe_load((vault / "decks.yaml").read_text("utf-8"))["decks"]
    assert {"name": "русский-язык", "title": "Русский язык", "skip_napkin_check": True} == {
        key: value for key, value in decks[1].items() if key != "items"
    }


def test_a_blank_added_later_joins_its_note(fidelity_apkg: Path, tmp_path: Path) -> None:
    import genanki

    vault = tmp_path / "vault"
    import_source(fidelity_apkg, into=vault, now=NOW, audit=False)
    deck = genanki.Deck(1_700_000_101, "日本語::文法")
    deck.add_note(
        genanki.Note(
            model=genanki.CLOZE_MODEL,
            fields=["{{c1::NCCL}} and {{c4::RCCL}}", ""],
            guid="fixture-cloze",
        )
    )
    changed = tmp_path / "fidelity.apkg"
    genanki.Package([deck]).write_to_file(str(changed))

    import_source(changed, into=vault, now=NOW, audit=False)

    items = _items(vault)
    note_id = items["fixture-cloze#c1"]["note_link"]["id"]
    assert items["fixture-cloze#c4"]["id"] == f"{note_id}-c4"


def test_saved_mapping_is_reused_on_reimport(fidelity_apkg: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(
        fidelity_apkg, into=vault, now=NOW, audit=False, field_map={"Nummer": FieldRole.IGNORE}
    )
    saved = yaml.safe_load((vault / "sysdrill.yaml").read_text("utf-8"))

    again = import_source(fidelity_apkg, into=vault, now=NOW, audit=False)

    assert saved["import"]["field_maps"]["Mathe Aufgabe"]["Nummer"] == "ignore"
    assert len(again.unchanged) == 9
    assert _items(vault)["fixture-custom"]["details"]["realistic_solution"] == "10001"


def test_export_writes_one_cloze_note_and_one_reversed_note(
    fidelity_apkg: Path, tmp_path: Path
) -> None:
    import sqlite3
    import zipfile

    out = _reexport(fidelity_apkg, tmp_path)

    with zipfile.ZipFile(out) as archive:
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    conn = sqlite3.connect(tmp_path / "c.anki2")
    try:
        notes = dict(conn.execute("SELECT guid, flds FROM notes").fetchall())
        cards = conn.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    finally:
        conn.close()
    assert len(notes) == 5
    assert cards == 9
    # Items unchanged since their import give back every field exactly as Anki stored it.
    assert notes["fixture-cloze"].split("\x1f") == [CLOZE_TEXT, CLOZE_EXTRA]
    assert notes["fixture-optional-yes"].split("\x1f") == ["HBM", "high-bandwidth memory", "y"]
    assert notes["fixture-custom"].split("\x1f") == [
        "17",
        "10<sup>4</sup> + 1?",
        "10001",
        "https://example.org/aufgabe-17",
    ]


try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    anki_collection = None


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_anki_imports_the_reexport_with_the_same_notes_cards_and_types(
    fidelity_apkg: Path, tmp_path: Path
) -> None:
    out = _reexport(fidelity_apkg, tmp_path)

    def read(col: Any) -> tuple[int, int, dict[str, str]]:
        types = {
            col.get_note(nid).guid: col.get_note(nid).note_type()["name"]
            for nid in col.find_notes("")
        }
        return col.note_count(), col.card_count(), types

    before = import_with_anki(fidelity_apkg, tmp_path / "a", read)
    after = import_with_anki(out, tmp_path / "b", read)

    assert (after[0], after[1]) == (before[0], before[1]) == (5, 9)
    # Every note keeps its GUID and note type, the single-card custom note too.
    assert after[2] == before[2]
