"""Anki packages built with genanki for the fidelity tests (issue 16, part 8).

One package holds what real decks hold and a naive importer loses: a cloze
note with three blank numbers (one repeated, one with a hint, one nested), a
"Basic (and reversed card)" note, "Basic (optional reversed card)" notes with
and without the reverse, a custom note type whose first field is a number,
and a deck tree with Japanese, Cyrillic and Arabic names.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

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


# A 1x1 PNG and the start of an MP3 (ID3 tag, then a frame header): real magic bytes.
PNG_BYTES = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4"
    "890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
MP3_BYTES = b"ID3\x03\x00\x00\x00\x00\x00\x0a" + b"\x00" * 10 + b"\xff\xfb\x90\x64" + b"\x00" * 64

MEDIA_GUIDS = {"image-answer": "fixture-image-answer", "audio": "fixture-audio"}


def build_media_package(folder: Path) -> Path:
    """A package with an image-only answer and a sound on a front (genanki, legacy media).

    Expected in Anki: 2 notes, 2 cards, 2 media files.
    """
    folder.mkdir(parents=True, exist_ok=True)
    image = folder / "gpu-diagram.png"
    image.write_bytes(PNG_BYTES)
    sound = folder / "say-hbm.mp3"
    sound.write_bytes(MP3_BYTES)
    deck = genanki.Deck(1_700_000_201, "Media")
    deck.add_note(
        genanki.Note(
            model=genanki.BASIC_MODEL,
            fields=["What does an H100 board look like?", '<img src="gpu-diagram.png">'],
            guid=MEDIA_GUIDS["image-answer"],
        )
    )
    deck.add_note(
        genanki.Note(
            model=genanki.BASIC_MODEL,
            fields=["Say it: [sound:say-hbm.mp3]", "HBM"],
            guid=MEDIA_GUIDS["audio"],
        )
    )
    package = genanki.Package(deck)
    package.media_files = [str(image), str(sound)]
    path = folder / "media.apkg"
    package.write_to_file(str(path))
    return path


@pytest.fixture
def media_apkg(tmp_path: Path) -> Path:
    """The media fixture package (see :func:`build_media_package`)."""
    return build_media_package(tmp_path / "media-src")


T = TypeVar("T")


def import_with_anki(
    package: Path, folder: Path, read: Callable[[Any], T], *, with_scheduling: bool = False
) -> T:
    """Import ``package`` into a new official-Anki collection in ``folder``; ``read`` it."""
    import anki.collection as anki_collection

    folder.mkdir()
    col = anki_collection.Collection(str(folder / "collection.anki2"))
    try:
        request = anki_collection.ImportAnkiPackageRequest(
            package_path=str(package),
            options=anki_collection.ImportAnkiPackageOptions(with_scheduling=with_scheduling),
        )
        col.import_anki_package(request)
        return read(col)
    finally:
        col.close()


HISTORY_FRONTS = ("What is HBM?", "Show the board", "Never seen")


def build_history_package(folder: Path, *, fsrs: bool = True) -> Path:
    """A package the official ``anki`` package exports in its current format (anki21b, zstd
    media), with scheduling: three Basic notes in deck ``History``; the first answered
    Good then Again (learning), the second (an image-only answer) Good twice (review),
    the third never studied. Anki's scheduler runs on the real clock, so tests compare
    counts and states, not times.
    """
    from anki.collection import Collection, ExportAnkiPackageOptions

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "source.anki2"))
    try:
        if fsrs:
            col.set_config("fsrs", True)
        image = folder / "board.png"
        image.write_bytes(PNG_BYTES)
        stored = col.media.add_file(str(image))
        basic = col.models.by_name("Basic")
        deck = col.decks.id("History")
        backs = ("High-bandwidth memory", f'<img src="{stored}">', "x")
        for front, back in zip(HISTORY_FRONTS, backs, strict=True):
            note = col.new_note(basic)
            note["Front"], note["Back"] = front, back
            col.add_note(note, deck)
        unseen = col.find_cards(f'"Front:{HISTORY_FRONTS[2]}"')
        col.sched.suspend_cards(unseen)
        # Each card answered by id, not taken from the queue: the queue would hold back a
        # learning card due after Anki's day cutoff (4 am by default), so in the minutes
        # before it the history came out with two reviews instead of four.
        first, second = (col.find_cards(f'"Front:{front}"')[0] for front in HISTORY_FRONTS[:2])
        for card_id, rating in ((first, 3), (second, 3), (first, 1), (second, 3)):
            card = col.get_card(card_id)
            card.start_timer()
            col.sched.answerCard(card, rating)
        path = folder / "history.apkg"
        col.export_anki_package(
            out_path=str(path),
            options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False
            ),
            limit=None,
        )
    finally:
        col.close()
    return path


# --- Mochi, CrowdAnki and Markdown-notes fixtures (issue 16, part 7) -----------

DATA = Path(__file__).parent / "data"
"""Hand-written exports in the style users produce, each with the cards a
faithful importer recovers (``expected.json`` beside it)."""


def build_mochi(folder: Path, out: Path) -> Path:
    """Zip a Mochi fixture folder (``data.edn`` or ``data.json`` and attachments) into ``out``."""
    import zipfile

    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.iterdir()):
            if file.name != "expected.json":
                archive.write(file, file.name)
    return out


def card_fixtures(scratch: Path) -> dict[str, tuple[str, Path, Path]]:
    """Every new-source fixture: name to (format, source path, expected cards file)."""
    mochi = DATA / "mochi"
    return {
        "mochi (EDN, nested decks)": (
            "mochi",
            build_mochi(mochi / "nested", scratch / "nested.mochi"),
            mochi / "nested" / "expected.json",
        ),
        "mochi (JSON, flat cards)": (
            "mochi",
            build_mochi(mochi / "flat", scratch / "flat.mochi"),
            mochi / "flat" / "expected.json",
        ),
        "crowdanki": (
            "crowdanki",
            DATA / "crowdanki" / "ML_Systems",
            DATA / "crowdanki" / "ML_Systems.expected.json",
        ),
        "obsidian (folder)": (
            "obsidian",
            DATA / "obsidian" / "notes",
            DATA / "obsidian" / "notes.expected.json",
        ),
        # Cases the syntax cannot tell apart ('::' in prose, a Dataview field), a cloze.
        "obsidian (known limits)": (
            "obsidian",
            DATA / "obsidian" / "limits" / "Hard cases.md",
            DATA / "obsidian" / "limits.expected.json",
        ),
    }


def _normal_card(deck: object, front: object, back: object) -> tuple[str, str, str]:
    import re

    def media(text: object) -> str:
        text = re.sub(r"\]\(media/[^)]*\)", "](media/FILE)", str(text or ""))
        return re.sub(r"\[sound:media/[^\]]*\]", "[sound:media/FILE]", text).strip()

    return str(deck or ""), media(front), media(back)


def _without_extra_fields(card: tuple[str, str, str]) -> tuple[str, str, str]:
    """The card without the labelled extra fields at the end of its back."""
    import re

    deck, front, back = card
    return deck, front, re.sub(r"(?:\n\n\*\*[^*\n]+:\*\*(?: [^\n]*|\n\n[^\n]*))+$", "", back)


def card_scores(parsed: Any, expected_file: Path) -> tuple[float, float, list[Any], list[Any]]:
    """Precision and recall of the cards a reader recovered against the expected ones.

    A card counts when its deck, front and back all match exactly (media file
    names aside: a reference counts when it points into ``media/``). The expected
    backs are what the source app's card shows; our card also shows, under its
    answer, the note's fields its template does not show (``**Name:** text``, issue
    31 item 2), so a back matches with those left out too.

    Returns:
        Precision, recall, the unexpected cards and the missed ones.
    """
    import json

    expected = [
        _normal_card(card["deck"], card["front"], card["back"])
        for card in json.loads(expected_file.read_text(encoding="utf-8"))
    ]
    found = [
        _normal_card(
            item.data.get("deck"),
            item.data.get("question"),
            item.data.get("details", {}).get("realistic_solution"),
        )
        for item in parsed.items
    ]
    shown = {card: _without_extra_fields(card) for card in found}
    unexpected = [card for card in found if card not in expected and shown[card] not in expected]
    recovered = {*found, *shown.values()}
    missed = [card for card in expected if card not in recovered]
    precision = (len(found) - len(unexpected)) / len(found) if found else 0.0
    recall = (len(expected) - len(missed)) / len(expected) if expected else 1.0
    return precision, recall, unexpected, missed


# --- Issue 31: a collection to go to sysdrill and back ---------------------------

ROUND_TRIP_DECK = "Languages::日本語"
ROUND_TRIP_FRONTS = {
    "basic": "What is HBM?",
    "suspended": "What is NVLink?",
    "image": "Which kanji?",
    "reviewed": "What is ZeRO?",
}
"""Fronts of the Basic notes of :func:`build_round_trip_collection`, by role."""


def build_round_trip_collection(folder: Path) -> tuple[Path, Path]:
    """An official-``anki`` collection and the package it exports (current format, with
    scheduling and media), as a learner brings them to sysdrill.

    Deck ``Languages::日本語``, 7 notes and 10 cards:

    - four Basic notes (fronts :data:`ROUND_TRIP_FRONTS`): one with HTML in its back,
      one suspended, one whose back is an image, one answered Good twice (review);
    - "Vocab (and reversed card)": Anki's reversed type with a third field, IPA; its
      reverse card suspended;
    - a Cloze note with hints and a Back Extra; card 1 put in review by "set due
      date" (9 days, a manual entry: no graded review);
    - "Kanji 5": five fields, two templates (Recognise, Recall) and its own CSS; the
      Recall card buried.

    Returns:
        The collection file (closed) and the package.
    """
    from anki.collection import Collection, ExportAnkiPackageOptions

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "collection.anki2"
    col = Collection(str(path))
    try:
        deck = col.decks.id(ROUND_TRIP_DECK)
        image = folder / "kanji.png"
        image.write_bytes(PNG_BYTES)
        stored = col.media.add_file(str(image))
        models = col.models
        backs = {
            "basic": "High-bandwidth <b>memory</b>",
            "suspended": "A GPU interconnect",
            "image": f'<img src="{stored}">',
            "reviewed": "Sharded optimizer state",
        }
        cards: dict[str, list[int]] = {}
        for role, front in ROUND_TRIP_FRONTS.items():
            note = col.new_note(models.by_name("Basic"))
            note["Front"], note["Back"] = front, backs[role]
            col.add_note(note, deck)
            cards[role] = list(note.card_ids())
        vocab = models.copy(models.by_name("Basic (and reversed card)"), add=False)
        vocab["name"] = "Vocab (and reversed card)"
        models.add_field(vocab, models.new_field("IPA"))
        models.add(vocab)
        note = col.new_note(models.by_name("Vocab (and reversed card)"))
        note["Front"], note["Back"], note["IPA"] = "犬", "dog", "[inu]"
        col.add_note(note, deck)
        cards["vocab"] = list(note.card_ids())
        note = col.new_note(models.by_name("Cloze"))
        note["Text"] = "{{c1::NCCL::library}} runs {{c2::all-reduce::collective}}"
        note["Back Extra"] = "Ring or tree"
        col.add_note(note, deck)
        cards["cloze"] = list(note.card_ids())
        kanji = models.new("Kanji 5")
        for name in ("Kanji", "Meaning", "Reading", "Example", "Notes"):
            models.add_field(kanji, models.new_field(name))
        for name, front, back in (
            (
                "Recognise",
                '<div class="k">{{Kanji}}</div>',
                "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Reading}}"
                "{{#Example}}<br>{{Example}}{{/Example}}",
            ),
            ("Recall", "{{Meaning}}", "{{FrontSide}}<hr id=answer>{{Kanji}}<br>{{Notes}}"),
        ):
            template = models.new_template(name)
            template["qfmt"], template["afmt"] = front, back
            models.add_template(kanji, template)
        kanji["css"] = ".k { font-size: 48px; }\n.card { font-family: serif; }"
        models.add(kanji)
        note = col.new_note(models.by_name("Kanji 5"))
        note["Kanji"], note["Meaning"], note["Reading"] = "水", "water", "mizu"
        note["Example"], note["Notes"] = "水を飲む", "radical 85"
        col.add_note(note, deck)
        cards["kanji"] = list(note.card_ids())
        col.sched.suspend_cards([cards["suspended"][0], cards["vocab"][1]])
        col.sched.bury_cards([cards["kanji"][1]], manual=True)
        for rating in (3, 3):
            card = col.get_card(cards["reviewed"][0])
            card.start_timer()
            col.sched.answerCard(card, rating)
        col.sched.set_due_date([cards["cloze"][0]], "9!")
        package = folder / "deck.apkg"
        col.export_anki_package(
            out_path=str(package),
            options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False
            ),
            limit=None,
        )
    finally:
        col.close()
    return path, package
