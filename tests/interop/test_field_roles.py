"""Field roles of custom note types, chosen from the card templates (issue 31, item 3).

Collections are built with the official ``anki`` package: what the front
template shows is the question, what only the back shows is the answer, a
number or an id is never the answer while a text field is left, and a
two-template type whose second card is not the reverse of the first gives one
item per template. ``--map`` still decides.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

# Skips this module with that one when the official anki package is not installed.
from tests.interop.test_anki_round_trip import NOW, anki_collection

from sysdrill.interop.field_map import FieldRole
from sysdrill.interop.importer import import_source

pytestmark = pytest.mark.anki

DECK = "Words"

Template = tuple[str, str, str]
"""A card template: name, front, back."""


def _add_type(col: Any, name: str, fields: Sequence[str], templates: Sequence[Template]) -> None:
    models = col.models
    kind = models.new(name)
    for field in fields:
        models.add_field(kind, models.new_field(field))
    for template_name, front, back in templates:
        template = models.new_template(template_name)
        template["qfmt"], template["afmt"] = front, back
        models.add_template(kind, template)
    models.add(kind)


def _package(
    tmp_path: Path,
    name: str,
    fields: Sequence[str],
    templates: Sequence[Template],
    notes: Sequence[Sequence[str]],
) -> tuple[Path, Path]:
    """A collection with one note type and its notes, and the package it exports."""
    folder = tmp_path / "anki"
    folder.mkdir(exist_ok=True)
    path = folder / "collection.anki2"
    col = anki_collection.Collection(str(path))
    try:
        _add_type(col, name, fields, templates)
        deck = col.decks.id(DECK)
        for values in notes:
            note = col.new_note(col.models.by_name(name))
            for field, value in zip(fields, values, strict=True):
                note[field] = value
            col.add_note(note, deck)
        package = folder / "words.apkg"
        col.export_anki_package(
            out_path=str(package),
            options=anki_collection.ExportAnkiPackageOptions(
                with_scheduling=False, with_deck_configs=False, with_media=False, legacy=False
            ),
            limit=None,
        )
    finally:
        col.close()
    return path, package


def _items(vault: Path) -> dict[str, dict[str, Any]]:
    """Imported items by their source key (``<guid>`` or ``<guid>#<card>``), card part only."""
    items: dict[str, dict[str, Any]] = {}
    for path in (vault / "questions").rglob("*.yaml"):
        raw = yaml.safe_load(path.read_text("utf-8"))
        # Anki GUIDs may hold '#' themselves: the card is what source.anki says.
        card = raw["source"]["key"].removeprefix(raw["source"]["anki"]["guid"])
        items[card.removeprefix("#") or "note"] = raw
    return items


def _sides(raw: dict[str, Any]) -> tuple[str, str]:
    return raw["question"], raw["details"]["realistic_solution"]


def test_a_frequency_field_the_back_shows_first_is_not_the_answer(tmp_path: Path) -> None:
    _, package = _package(
        tmp_path,
        "Frequency list",
        ["Rank", "Lemma", "Frequency", "Gloss"],
        [("Card 1", "{{Lemma}}", "{{FrontSide}}<hr id=answer>{{Frequency}}<br>{{Gloss}}")],
        [["48", "perro", "9216.43", "dog"]],
    )
    vault = tmp_path / "vault"

    report = import_source(package, into=vault, now=NOW, audit=False)

    question, answer = _sides(_items(vault)["note"])
    assert question == "perro"
    assert answer.startswith("dog\n\n")
    assert report.field_maps["Frequency list"] == {
        "Rank": "extra",
        "Lemma": "question",
        "Frequency": "extra",
        "Gloss": "answer",
    }


def test_what_the_front_template_shows_is_the_question_whatever_the_field_names(
    tmp_path: Path,
) -> None:
    # A recall deck: the card shows the meaning and asks for the word.
    _, package = _package(
        tmp_path,
        "Recall",
        ["Word", "Meaning", "Reading"],
        [("Recall", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}<br>{{Reading}}")],
        [["水", "water", "mizu"]],
    )
    vault = tmp_path / "vault"

    import_source(package, into=vault, now=NOW, audit=False)

    assert _sides(_items(vault)["note"]) == ("water", "水\n\n**Reading:** mizu")


def test_map_still_overrides_the_roles_the_templates_give(tmp_path: Path) -> None:
    _, package = _package(
        tmp_path,
        "Recall",
        ["Word", "Meaning", "Reading"],
        [("Recall", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Word}}<br>{{Reading}}")],
        [["水", "water", "mizu"]],
    )
    vault = tmp_path / "vault"

    import_source(
        package, into=vault, now=NOW, audit=False, field_map={"Reading": FieldRole.ANSWER}
    )

    assert _sides(_items(vault)["note"]) == ("water", "mizu\n\n**Word:** 水")


KANJI_READ = (
    "Kanji drill",
    ["Kanji", "Reading", "Meaning", "Example", "Hint"],
    [
        (
            "Recognise",
            "{{Kanji}}{{hint:Hint}}",
            "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Reading}}",
        ),
        ("Read", "{{Reading}}", "{{FrontSide}}<hr id=answer>{{Kanji}}"),
    ],
)
"""Two templates that are not a reversal: the second asks the reading, not the meaning."""


def test_two_templates_that_are_not_a_reversal_give_one_card_each(tmp_path: Path) -> None:
    name, fields, templates = KANJI_READ
    _, package = _package(
        tmp_path, name, fields, templates, [["水", "mizu", "water", "水を飲む", "three strokes"]]
    )
    vault = tmp_path / "vault"

    import_source(package, into=vault, now=NOW, audit=False)

    items = _items(vault)
    assert sorted(items) == ["t1", "t2"]
    # Each card shows what its template shows, then the fields no template of it shows.
    assert _sides(items["t1"]) == (
        "水",
        "water\nmizu\n\n**Example:** 水を飲む\n\n**Hint:** three strokes",
    )
    assert _sides(items["t2"]) == (
        "mizu",
        "水\n\n**Example:** 水を飲む\n\n**Hint:** three strokes",
    )


def test_a_reversed_pair_with_an_extra_field_stays_forward_and_reverse(tmp_path: Path) -> None:
    _, package = _package(
        tmp_path,
        "Vocab pair",
        ["Wort", "Bedeutung", "IPA"],
        [
            ("Card 1", "{{Wort}}", "{{FrontSide}}<hr id=answer>{{Bedeutung}}"),
            ("Card 2", "{{Bedeutung}}", "{{FrontSide}}<hr id=answer>{{Wort}}"),
        ],
        [["Hund", "dog", "[hʊnt]"]],
    )
    vault = tmp_path / "vault"

    import_source(package, into=vault, now=NOW, audit=False)

    items = _items(vault)
    assert _sides(items["forward"]) == ("Hund", "dog\n\n**IPA:** [hʊnt]")
    assert _sides(items["reverse"]) == ("dog", "Hund\n\n**IPA:** [hʊnt]")


def test_two_template_cards_go_back_to_the_collection_as_the_same_note(
    tmp_path: Path, run_cli: Any
) -> None:
    name, fields, templates = KANJI_READ
    collection, package = _package(
        tmp_path, name, fields, templates, [["水", "mizu", "water", "水を飲む", "three strokes"]]
    )
    vault, out = tmp_path / "vault", tmp_path / "back.apkg"
    import_source(package, into=vault, now=NOW, audit=False)
    t2 = next(p for p in (vault / "questions").rglob("*.yaml") if "#t2" in p.read_text("utf-8"))
    # The note's fields travel with each card: an author edits one there.
    edited = t2.read_text("utf-8").replace("  Example: 水を飲む", "  Example: 水を飲みます", 1)
    t2.write_text(edited, encoding="utf-8")
    os.utime(t2, (datetime.now(UTC).timestamp() + 60,) * 2)
    exported = run_cli("export", str(vault), "--out", str(out), "--format", "apkg", "-q")
    assert exported.exit_code == 0, exported.stderr

    col = anki_collection.Collection(str(collection))
    try:
        request = anki_collection.ImportAnkiPackageRequest(
            package_path=str(out),
            options=anki_collection.ImportAnkiPackageOptions(with_scheduling=False),
        )
        log = col.import_anki_package(request).log
        (nid,) = col.find_notes("")
        note = col.get_note(nid)
        card_ords = sorted(col.get_card(cid).ord for cid in note.card_ids())
    finally:
        col.close()

    assert (len(log.new), len(log.updated), len(log.conflicting)) == (0, 1, 0)
    assert list(note.fields) == ["水", "mizu", "water", "<p>水を飲みます</p>", "three strokes"]
    assert card_ords == [0, 1]
