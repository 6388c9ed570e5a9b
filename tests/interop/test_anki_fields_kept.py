"""Every field of a note survives import and export (issue 31, item 2).

Fields without a role are shown under the answer; furigana (``<ruby>``), hints and
fields a card's front shows beside the question go back to Anki as they were,
even when the author edits the note here.
"""

from __future__ import annotations

from pathlib import Path

import genanki
from tests.interop.test_anki_original import NOW, _edit, _exported, _items, _notes

from sysdrill.interop.importer import import_source

RUBY = "<ruby>漢字<rt>かんじ</rt></ruby>の<ruby>本<rp>(</rp><rt>ほん</rt><rp>)</rp></ruby>"
FURIGANA_MODEL = genanki.Model(
    1_700_031_301,
    "Furigana words",
    fields=[{"name": "Expression"}, {"name": "Meaning"}, {"name": "Reading"}, {"name": "Hint"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Expression}}{{hint:Hint}}",
            "afmt": "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{furigana:Reading}}",
        }
    ],
)
PICTURE_MODEL = genanki.Model(
    1_700_031_302,
    "Word and picture",
    fields=[{"name": "Word"}, {"name": "Picture"}, {"name": "Gloss"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Word}}<br>{{Picture}}",
            "afmt": "{{FrontSide}}<hr id=answer>{{Gloss}}",
        }
    ],
)


def _vault(tmp_path: Path) -> Path:
    deck = genanki.Deck(1_700_031_401, "Kept")
    fields = [RUBY, "book of kanji", "漢字[かんじ]の本[ほん]", "two words"]
    deck.add_note(genanki.Note(model=FURIGANA_MODEL, fields=fields, guid="ruby"))
    fields = ["perro", "a dog, drawn <i>small</i>", "dog"]
    deck.add_note(genanki.Note(model=PICTURE_MODEL, fields=fields, guid="picture"))
    package = tmp_path / "kept.apkg"
    genanki.Package(deck).write_to_file(str(package))
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    return vault


def test_fields_without_a_role_are_shown_under_the_answer(tmp_path: Path) -> None:
    _, raw = _items(_vault(tmp_path))["ruby"]

    assert raw["question"] == "漢字(かんじ)の本(ほん)"
    assert raw["details"]["realistic_solution"] == (
        "book of kanji\n\n**Reading:** 漢字[かんじ]の本[ほん]\n\n**Hint:** two words"
    )


def test_an_edited_field_keeps_its_furigana_as_ruby(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    path, _ = _items(vault)["ruby"]
    _edit(path, "question: 漢字(かんじ)の本(ほん)", "question: 漢字(かんじ)の古い本(ほん)")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["ruby"][1] == [
        "<p><ruby>漢字<rt>かんじ</rt></ruby>の古い<ruby>本<rp>(</rp><rt>ほん</rt><rp>)</rp></ruby></p>",
        "book of kanji",
        "漢字[かんじ]の本[ほん]",
        "two words",
    ]


def test_editing_one_of_two_fields_the_front_shows_changes_that_field_only(
    tmp_path: Path,
) -> None:
    vault = _vault(tmp_path)
    path, raw = _items(vault)["picture"]
    assert raw["question"] == "perro\n\na dog, drawn *small*"
    _edit(path, "perro", "el perro")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["picture"][1] == ["<p>el perro</p>", "a dog, drawn <i>small</i>", "dog"]
