"""Anki packages built with genanki for the fidelity tests (issue 16, part 8).

One package holds what real decks hold and a naive importer loses: a cloze
note with three blank numbers (one repeated, one with a hint, one nested), a
"Basic (and reversed card)" note, "Basic (optional reversed card)" notes with
and without the reverse, a custom note type whose first field is a number,
and a deck tree with Japanese, Cyrillic and Arabic names.
"""

from __future__ import annotations

from pathlib import Path

import genanki
import pytest

CLOZE_TEXT = (
    "{{c1::NCCL}} runs {{c2::all-reduce::collective}} over {{c3::NVLink {{c1::and}} IB}}; "
    "{{c1::NCCL}} is NVIDIA's"
)
CLOZE_EXTRA = "Ring or tree algorithms"

CUSTOM_MODEL = genanki.Model(
    1_700_000_016,
    "Mathe Aufgabe",
    fields=[{"name": "Nummer"}, {"name": "Frage"}, {"name": "Antwort"}, {"name": "Quelle"}],
    templates=[{"name": "Karte 1", "qfmt": "{{Frage}}", "afmt": "{{FrontSide}}<hr>{{Antwort}}"}],
)

DECKS = {
    "grammar": "日本語::文法",
    "russian": "Русский язык",
    "arabic": "العربية",
}

GUIDS = {
    "cloze": "fixture-cloze",
    "reversed": "fixture-reversed",
    "optional-yes": "fixture-optional-yes",
    "optional-no": "fixture-optional-no",
    "custom": "fixture-custom",
}


def build_fidelity_package(path: Path) -> Path:
    """Write the fixture package and return its path.

    Expected in Anki: 5 notes; cards: cloze 3, reversed 2, optional 2 + 1, custom 1.
    """
    grammar = genanki.Deck(1_700_000_101, DECKS["grammar"])
    russian = genanki.Deck(1_700_000_102, DECKS["russian"])
    arabic = genanki.Deck(1_700_000_103, DECKS["arabic"])
    grammar.add_note(
        genanki.Note(
            model=genanki.CLOZE_MODEL,
            fields=[CLOZE_TEXT, CLOZE_EXTRA],
            tags=["comm"],
            guid=GUIDS["cloze"],
        )
    )
    russian.add_note(
        genanki.Note(
            model=genanki.BASIC_AND_REVERSED_CARD_MODEL,
            fields=["Память", "Memory"],
            guid=GUIDS["reversed"],
        )
    )
    russian.add_note(
        genanki.Note(
            model=genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL,
            fields=["HBM", "high-bandwidth memory", "y"],
            guid=GUIDS["optional-yes"],
        )
    )
    russian.add_note(
        genanki.Note(
            model=genanki.BASIC_OPTIONAL_REVERSED_CARD_MODEL,
            fields=["SRAM", "static RAM", ""],
            guid=GUIDS["optional-no"],
        )
    )
    arabic.add_note(
        genanki.Note(
            model=CUSTOM_MODEL,
            fields=["17", "10<sup>4</sup> + 1?", "10001", "https://example.org/aufgabe-17"],
            guid=GUIDS["custom"],
        )
    )
    genanki.Package([grammar, russian, arabic]).write_to_file(str(path))
    return path


@pytest.fixture
def fidelity_apkg(tmp_path: Path) -> Path:
    """The fidelity fixture package (see :func:`build_fidelity_package`)."""
    return build_fidelity_package(tmp_path / "fidelity.apkg")
