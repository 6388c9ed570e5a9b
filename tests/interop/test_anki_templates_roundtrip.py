"""Note types with three or more card templates: every card imported, the note type exported.

Anki makes one card per template whose front shows field text; before this,
only the first card of such a note came across. The fixture is built with
genanki; the re-export is read by the official ``anki`` package.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import genanki
import pytest
import yaml
from tests.interop.conftest import import_with_anki

from sysdrill.interop.export import export_vault
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)

try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    anki_collection = None

VOCAB_MODEL = genanki.Model(
    1_700_000_033,
    "Vocab (3 cards)",
    fields=[{"name": "Word"}, {"name": "Reading"}, {"name": "Meaning"}],
    templates=[
        {
            "name": "Recognise",
            "qfmt": "{{Word}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Meaning}}',
        },
        {"name": "Recall", "qfmt": "{{Meaning}}", "afmt": '{{FrontSide}}<hr id="answer">{{Word}}'},
        {
            "name": "Read",
            "qfmt": "{{#Reading}}Write <i>{{Reading}}</i>{{/Reading}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Word}}<br>{{Meaning}}',
        },
    ],
)


def _package(folder: Path) -> Path:
    deck = genanki.Deck(1_700_000_301, "Vocab::日本語")
    deck.add_note(
        genanki.Note(model=VOCAB_MODEL, fields=["勉強", "べんきょう", "study"], guid="vocab-full")
    )
    deck.add_note(genanki.Note(model=VOCAB_MODEL, fields=["漢字", "", "kanji"], guid="vocab-two"))
    path = folder / "vocab.apkg"
    genanki.Package(deck).write_to_file(str(path))
    return path


def test_read_apkg_makes_one_item_per_card_of_a_three_template_note(tmp_path: Path) -> None:
    parsed = read_apkg(_package(tmp_path))

    cards = {
        item.key: (item.data["question"], item.data["details"]["realistic_solution"])
        for item in parsed.items
    }
    # A field a card's template does not show comes under its answer (issue 31 item 2).
    assert cards == {
        "vocab-full#t1": ("勉強", "study\n\n**Reading:** べんきょう"),
        "vocab-full#t2": ("study", "勉強\n\n**Reading:** べんきょう"),
        "vocab-full#t3": ("Write *べんきょう*", "勉強\nstudy"),
        "vocab-two#t1": ("漢字", "kanji"),
        "vocab-two#t2": ("kanji", "漢字"),
    }
    assert {item.group for item in parsed.items} == {"vocab-full", "vocab-two"}


def test_three_template_cards_are_separate_items_sharing_a_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"

    import_source(_package(tmp_path), into=vault, now=NOW, audit=False)

    files = sorted((vault / "questions").rglob("*.yaml"))
    items = [yaml.safe_load(path.read_text("utf-8")) for path in files]
    ids = sorted(item["id"] for item in items)
    assert len(ids) == len(set(ids)) == 5
    links = {item["id"]: item["note_link"] for item in items}
    note_ids = {link["id"] for link in links.values()}
    assert len(note_ids) == 2
    assert all(item_id == f"{link['id']}-{link['card']}" for item_id, link in links.items())


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_anki_imports_the_reexport_with_the_same_note_type_and_cards(tmp_path: Path) -> None:
    source = _package(tmp_path)
    vault = tmp_path / "vault"
    import_source(source, into=vault, now=NOW, audit=False)
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)

    def read(col: Any) -> tuple[int, int, list[tuple[str, list[str], list[str]]], list[str]]:
        types = []
        for notetype in col.models.all():
            if notetype["name"] == "Vocab (3 cards)":
                types.append(
                    (
                        notetype["name"],
                        [f["name"] for f in notetype["flds"]],
                        [t["name"] for t in notetype["tmpls"]],
                    )
                )
        guids = sorted(col.get_note(nid).guid for nid in col.find_notes(""))
        return col.note_count(), col.card_count(), types, guids

    before = import_with_anki(source, tmp_path / "a", read)
    after = import_with_anki(out, tmp_path / "b", read)

    assert after == before
    assert after[:3] == (
        2,
        5,
        [("Vocab (3 cards)", ["Word", "Reading", "Meaning"], ["Recognise", "Recall", "Read"])],
    )


def _anki_package(folder: Path) -> Path:
    """The same note type made by the official ``anki`` package, exported in its
    current format (``collection.anki21b``: templates as protobuf configs)."""
    from anki.collection import Collection, ExportAnkiPackageOptions

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "source.anki2"))
    try:
        models = col.models
        notetype = models.new("Vocab (3 cards)")
        for name in ("Word", "Reading", "Meaning"):
            models.add_field(notetype, models.new_field(name))
        for template in VOCAB_MODEL.templates:
            card = models.new_template(template["name"])
            card["qfmt"], card["afmt"] = template["qfmt"], template["afmt"]
            models.add_template(notetype, card)
        models.add(notetype)
        deck = col.decks.id("Vocab")
        for word, reading, meaning in (("勉強", "べんきょう", "study"), ("漢字", "", "kanji")):
            note = col.new_note(models.by_name("Vocab (3 cards)"))
            note["Word"], note["Reading"], note["Meaning"] = word, reading, meaning
            col.add_note(note, deck)
        path = folder / "vocab-new.apkg"
        col.export_anki_package(
            out_path=str(path),
            options=ExportAnkiPackageOptions(
                with_scheduling=False, with_deck_configs=False, with_media=False, legacy=False
            ),
            limit=None,
        )
    finally:
        col.close()
    return path


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_read_apkg_renders_templates_of_the_current_anki_format(tmp_path: Path) -> None:
    parsed = read_apkg(_anki_package(tmp_path / "src"))

    cards = sorted(
        (item.data["question"], item.data["details"]["realistic_solution"]) for item in parsed.items
    )
    assert cards == sorted(
        [
            ("勉強", "study\n\n**Reading:** べんきょう"),
            ("study", "勉強\n\n**Reading:** べんきょう"),
            ("Write *べんきょう*", "勉強\nstudy"),
            ("漢字", "kanji"),
            ("kanji", "漢字"),
        ]
    )


def test_scheduling_of_each_template_card_matches_its_item(tmp_path: Path) -> None:
    parsed = read_apkg(_package(tmp_path), with_scheduling=True)

    assert set(parsed.scheduling) == {item.key for item in parsed.items}
