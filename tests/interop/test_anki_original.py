"""Items imported from Anki go back as the notes they came from (issue 31, items 1, 2 and 5).

Packages built with genanki (old schema) unless a test needs the official
``anki`` package; the exported package's collection is read with sqlite3.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zipfile
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import genanki
import pytest
import yaml
from tests.interop.conftest import build_fidelity_package

from sysdrill.interop.anki_scheduling import AnkiCardHistory
from sysdrill.interop.export import export_vault
from sysdrill.interop.export.apkg import note_guid
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
LATER = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)

try:
    import anki.collection  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    HAVE_ANKI = False
else:
    HAVE_ANKI = True

VOCAB_MODEL = genanki.Model(
    1_700_031_001,
    "Vocab (and reversed card)",
    fields=[{"name": "Front"}, {"name": "Back"}, {"name": "IPA"}],
    templates=[
        {"name": "Card 1", "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr id=answer>{{Back}}"},
        {"name": "Card 2", "qfmt": "{{Back}}", "afmt": "{{FrontSide}}<hr id=answer>{{Front}}"},
    ],
    css=".card { color: navy; }",
)
THREE_MODEL = genanki.Model(
    1_700_031_002,
    "Vocab (3 cards)",
    fields=[{"name": "Word"}, {"name": "Reading"}, {"name": "Meaning"}],
    templates=[
        {"name": "Recognise", "qfmt": "{{Word}}", "afmt": "{{FrontSide}}<hr>{{Meaning}}"},
        {"name": "Recall", "qfmt": "{{Meaning}}", "afmt": "{{FrontSide}}<hr>{{Word}}"},
        {"name": "Read", "qfmt": "{{Reading}}", "afmt": "{{FrontSide}}<hr>{{Word}}"},
    ],
)


def _package(path: Path) -> Path:
    deck = genanki.Deck(1_700_031_100, "Words")
    deck.add_note(genanki.Note(model=VOCAB_MODEL, fields=["犬", "dog", "[inu]"], guid="vocab-dog"))
    deck.add_note(
        genanki.Note(
            model=genanki.CLOZE_MODEL,
            fields=["{{c1::NCCL::library}} runs {{c2::all-reduce}}", "Ring or tree"],
            guid="cloze-nccl",
        )
    )
    deck.add_note(
        genanki.Note(model=THREE_MODEL, fields=["水", "みず", "water"], guid="three-water")
    )
    genanki.Package(deck).write_to_file(str(path))
    return path


def _items(vault: Path) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Every item file by its source key."""
    found = {}
    for path in (vault / "questions").rglob("*.yaml"):
        raw = yaml.safe_load(path.read_text("utf-8"))
        found[raw["source"]["key"]] = (path, raw)
    return found


EDITED_AT = int(datetime.now(UTC).timestamp()) + 3600
"""When the tests edit an item: after genanki wrote the package (its notes' times)."""


def _edit(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` of an item file (Anki's own values sit further down)."""
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.utime(path, (EDITED_AT, EDITED_AT))


def _edit_link(path: Path, key: str, old: str, new: str) -> None:
    """Edit the item's ``note_link.<key>`` (what an author edits of a cloze note)."""
    raw = yaml.safe_load(path.read_text("utf-8"))
    assert old in raw["note_link"][key]
    raw["note_link"][key] = raw["note_link"][key].replace(old, new)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    os.utime(path, (EDITED_AT, EDITED_AT))


class _Collection:
    """An exported collection, opened for each query and closed after it.

    A connection left open is a ResourceWarning when it is collected (Python 3.13),
    which fails whichever later test happens to collect it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def execute(self, sql: str) -> list[Any]:
        with closing(sqlite3.connect(self.path)) as conn:
            return conn.execute(sql).fetchall()


def _exported(vault: Path, tmp_path: Path, **options: Any) -> _Collection:
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=LATER, **options)
    with zipfile.ZipFile(out) as archive:
        (tmp_path / "out.anki2").write_bytes(archive.read("collection.anki2"))
    return _Collection(tmp_path / "out.anki2")


def _notes(conn: _Collection) -> dict[str, tuple[int, list[str], int]]:
    rows = conn.execute("SELECT guid, mid, flds, mod FROM notes")
    return {guid: (mid, flds.split("\x1f"), mod) for guid, mid, flds, mod in rows}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    import_source(_package(tmp_path / "words.apkg"), into=folder, now=NOW, audit=False)
    return folder


def test_import_keeps_guid_note_type_card_and_every_field_in_source_anki(vault: Path) -> None:
    items = _items(vault)

    kept = items["vocab-dog#reverse"][1]["source"]["anki"]
    assert kept["guid"] == "vocab-dog"
    assert kept["card"] == 1
    assert kept["deck"] == "Words"
    assert kept["values"] == ["犬", "dog", "[inu]"]
    assert kept["note_type"] == {
        "id": 1_700_031_001,
        "name": "Vocab (and reversed card)",
        "mod_s": kept["note_type"]["mod_s"],
        "fields": {"Front": "question", "Back": "answer", "IPA": "extra"},
        "templates": [
            {"name": "Card 1", "front": "{{Front}}", "back": "{{FrontSide}}<hr id=answer>{{Back}}"},
            {"name": "Card 2", "front": "{{Back}}", "back": "{{FrontSide}}<hr id=answer>{{Front}}"},
        ],
        "css": ".card { color: navy; }",
    }
    assert isinstance(kept["note_mod_s"], int)
    assert items["cloze-nccl#c2"][1]["source"]["anki"]["card"] == 1
    assert items["three-water#t3"][1]["source"]["anki"]["card"] == 2


def test_an_unchanged_note_goes_back_exactly_as_anki_stored_it(vault: Path, tmp_path: Path) -> None:
    items = _items(vault)

    notes = _notes(_exported(vault, tmp_path))

    assert set(notes) == {"vocab-dog", "cloze-nccl", "three-water"}
    assert notes["vocab-dog"][:2] == (1_700_031_001, ["犬", "dog", "[inu]"])
    assert notes["cloze-nccl"][1] == [
        "{{c1::NCCL::library}} runs {{c2::all-reduce}}",
        "Ring or tree",
    ]
    assert notes["three-water"][1] == ["水", "みず", "water"]
    # Its own time, so Anki's "update if newer" leaves the note alone.
    assert notes["vocab-dog"][2] == items["vocab-dog#forward"][1]["source"]["anki"]["note_mod_s"]


def test_the_note_type_goes_back_with_its_id_fields_templates_css_and_time(
    vault: Path, tmp_path: Path
) -> None:
    conn = _exported(vault, tmp_path)
    models = json.loads(conn.execute("SELECT models FROM col")[0][0])

    vocab = models[str(1_700_031_001)]
    kept = _items(vault)["vocab-dog#forward"][1]["source"]["anki"]["note_type"]
    assert vocab["name"] == "Vocab (and reversed card)"
    assert [f["name"] for f in vocab["flds"]] == ["Front", "Back", "IPA"]
    assert [(t["name"], t["qfmt"]) for t in vocab["tmpls"]] == [
        ("Card 1", "{{Front}}"),
        ("Card 2", "{{Back}}"),
    ]
    assert vocab["css"] == ".card { color: navy; }"
    assert vocab["mod"] == kept["mod_s"]
    assert models[str(genanki.CLOZE_MODEL.model_id)]["type"] == 1


def test_an_edited_reverse_card_changes_the_back_field_and_keeps_the_ipa_field(
    vault: Path, tmp_path: Path
) -> None:
    path, _ = _items(vault)["vocab-dog#reverse"]
    _edit(path, "question: dog", "question: hound")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["vocab-dog"][1] == ["犬", "<p>hound</p>", "[inu]"]
    # The edit's time, newer than Anki's: Anki updates the note.
    assert notes["vocab-dog"][2] == EDITED_AT


def test_an_edited_answer_keeps_the_extra_fields_shown_under_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(build_fidelity_package(tmp_path / "f.apkg"), into=vault, now=NOW, audit=False)
    path, raw = _items(vault)["fixture-custom"]
    assert raw["details"]["realistic_solution"] == "10001\n\n**Nummer:** 17"
    _edit(path, "    10001\n", "    10002\n")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["fixture-custom"][1] == [
        "17",
        "10<sup>4</sup> + 1?",
        "<p>10002</p>",
        "https://example.org/aufgabe-17",
    ]


def test_an_edited_cloze_text_of_any_blank_changes_the_text_field(
    vault: Path, tmp_path: Path
) -> None:
    path, _ = _items(vault)["cloze-nccl#c2"]
    _edit_link(path, "text", "{{c2::all-reduce}}", "{{c2::all-gather}}")

    notes = _notes(_exported(vault, tmp_path))

    text, extra = notes["cloze-nccl"][1]
    assert "{{c2::all-gather}}" in text and "{{c1::NCCL::library}}" in text
    assert extra == "Ring or tree"


def test_an_edited_field_of_a_three_template_note_changes_that_field(
    vault: Path, tmp_path: Path
) -> None:
    path, _ = _items(vault)["three-water#t2"]
    _edit(path, "Meaning: water", "Meaning: cold water")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["three-water"][1] == ["水", "みず", "<p>cold water</p>"]


def test_items_created_here_get_guids_from_the_vault_id_and_item_id(tmp_path: Path) -> None:
    item = {
        "id": "global-flashcard-0001",
        "format": "flashcard",
        "question": "What is HBM?",
        "details": {"realistic_solution": "Stacked DRAM."},
    }
    guids = {}
    for name, vault_id in (("alpha", "alpha-1"), ("beta", "beta-2"), ("plain", None)):
        folder = tmp_path / name
        (folder / "questions").mkdir(parents=True)
        (folder / "questions" / "global-flashcard-0001.yaml").write_text(yaml.safe_dump(item))
        if vault_id:
            (folder / "vault.yaml").write_text(f"id: {vault_id}\n")
        (tmp_path / name / "x").mkdir()
        first = set(_notes(_exported(folder, tmp_path / name / "x")))
        (tmp_path / name / "y").mkdir()
        second = set(_notes(_exported(folder, tmp_path / name / "y")))
        assert first == second  # a second export keeps the GUID
        guids[name] = first.pop()

    # Two vaults with the same item id never update each other's note in Anki.
    assert guids["alpha"] != guids["beta"]
    assert guids["alpha"] == note_guid("global-flashcard-0001", "alpha-1")
    # A vault that declares no id (known by its folder only) keeps the item id's GUID.
    assert guids["plain"] == note_guid("global-flashcard-0001")


def test_scheduling_of_a_template_card_is_written_to_its_own_card(
    vault: Path, tmp_path: Path
) -> None:
    _, raw = _items(vault)["three-water#t2"]
    history = AnkiCardHistory(
        card_type=2, due=LATER, interval_days=9.0, ease_permille=2500, reps=3, lapses=0
    )

    conn = _exported(vault, tmp_path, scheduling={raw["id"]: history})

    cards = dict(
        conn.execute(
            "SELECT cards.ord, cards.ivl FROM cards JOIN notes ON notes.id = cards.nid "
            "WHERE notes.guid = 'three-water'"
        )
    )
    assert cards == {0: 0, 1: 9, 2: 0}


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_suspended_and_buried_cards_are_written_so(tmp_path: Path) -> None:
    from tests.interop.conftest import build_round_trip_collection

    _, package = build_round_trip_collection(tmp_path / "anki")
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)

    conn = _exported(vault, tmp_path)

    queues = conn.execute(
        "SELECT notes.flds, cards.ord, cards.queue FROM cards JOIN notes ON notes.id = cards.nid "
        "WHERE cards.queue < 0"
    )
    assert sorted((flds.split("\x1f")[0], ord_, queue) for flds, ord_, queue in queues) == [
        ("What is NVLink?", 0, -1),
        ("水", 1, -3),
        ("犬", 1, -1),
    ]


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_reimport_after_suspending_a_card_in_anki_updates_the_item(tmp_path: Path) -> None:
    from anki.collection import Collection, ExportAnkiPackageOptions
    from tests.interop.conftest import build_round_trip_collection

    collection, package = build_round_trip_collection(tmp_path / "anki")
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    col = Collection(str(collection))
    try:
        col.sched.suspend_cards(col.find_cards('"Front:What is ZeRO?"'))
        again = tmp_path / "again.apkg"
        col.export_anki_package(
            out_path=str(again),
            options=ExportAnkiPackageOptions(
                with_scheduling=True, with_deck_configs=False, with_media=True, legacy=False
            ),
            limit=None,
        )
    finally:
        col.close()

    report = import_source(again, into=vault, now=LATER, audit=False)

    assert [o.key for o in report.updated] == [
        key for key, (_, raw) in _items(vault).items() if raw["question"] == "What is ZeRO?"
    ]
    zero = next(raw for _, raw in _items(vault).values() if raw["question"] == "What is ZeRO?")
    assert zero["source"]["anki"]["suspended"] is True


def test_check_does_not_judge_the_anki_note_kept_in_the_source_block(tmp_path: Path) -> None:
    model = genanki.Model(
        1_700_031_003,
        "Tap to reveal",
        fields=[{"name": "Front"}, {"name": "Back"}],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}<script>document.title = 'x';</script>",
                "afmt": "{{FrontSide}}<hr id=answer>{{Back}}",
            }
        ],
    )
    deck = genanki.Deck(1_700_031_101, "Scripts")
    deck.add_note(genanki.Note(model=model, fields=["What is HBM?", "Stacked DRAM"], guid="s1"))
    package = tmp_path / "scripts.apkg"
    genanki.Package(deck).write_to_file(str(package))

    report = import_source(package, into=tmp_path / "vault", now=NOW)

    assert [defect for defect in report.defects if "source.anki" in defect] == []


def test_reimport_into_a_vault_imported_before_source_anki_adds_it_and_keeps_edits(
    vault: Path, tmp_path: Path
) -> None:
    from sysdrill.interop.item_digest import imported_digest
    from sysdrill.interop.vault_writer import dump_yaml

    # Make the files what an import before issue 31 wrote: no `anki` block, its digest.
    for path, raw in _items(vault).values():
        del raw["source"]["anki"]
        raw["source"]["digest"] = imported_digest(raw)
        path.write_text(dump_yaml(raw), encoding="utf-8")
    path, _ = _items(vault)["vocab-dog#forward"]
    _edit(path, "question: 犬", "question: 犬 (inu)")

    report = import_source(tmp_path / "words.apkg", into=vault, now=LATER, audit=False)

    assert len(report.updated) == 7
    items = _items(vault)
    assert all("anki" in raw["source"] for _, raw in items.values())
    # The author's edit is kept, and the note goes back to Anki as edited.
    assert items["vocab-dog#forward"][1]["question"] == "犬 (inu)"
    assert _notes(_exported(vault, tmp_path))["vocab-dog"][1] == ["<p>犬 (inu)</p>", "dog", "[inu]"]


def test_anki_html_genanki_takes_for_unescaped_text_goes_back_as_it_was(tmp_path: Path) -> None:
    deck = genanki.Deck(1_700_031_102, "Math")
    fields = ["Area of a circle <anki-mathjax>\\pi r^2</anki-mathjax>?", "a < b, always"]
    with pytest.warns(UserWarning, match="invalid HTML tags"):
        deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=fields, guid="m1"))
        genanki.Package(deck).write_to_file(str(tmp_path / "math.apkg"))
    vault = tmp_path / "vault"
    import_source(tmp_path / "math.apkg", into=vault, now=NOW, audit=False)

    notes = _notes(_exported(vault, tmp_path))  # warnings are errors in the tests

    assert notes["m1"][1] == fields


@pytest.mark.parametrize("guid", ["ab#cd", "x#t1y", "#lead"])
def test_a_basic_note_whose_guid_holds_a_hash_goes_back_under_that_guid(
    tmp_path: Path, guid: str
) -> None:
    # Anki's GUIDs are base91, '#' included: about one note in ten has one.
    deck = genanki.Deck(1_700_031_101, "Words")
    deck.add_note(genanki.Note(model=genanki.BASIC_MODEL, fields=["cat", "neko"], guid=guid))
    package = tmp_path / "hash.apkg"
    genanki.Package(deck).write_to_file(str(package))
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    ((path, raw),) = _items(vault).values()
    assert raw["source"]["anki"]["guid"] == guid
    _edit(path, "question: cat", "question: a cat")

    notes = _notes(_exported(vault, tmp_path))

    assert list(notes) == [guid]
    assert notes[guid][1][0] == "<p>a cat</p>"
