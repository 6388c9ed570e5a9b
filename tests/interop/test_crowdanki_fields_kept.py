"""Every field of a CrowdAnki note goes back to Anki (issue 31, item 2).

A CrowdAnki folder's notes keep their note (``source.anki``) as a package's do, so a
reversed note with a third field (IPA), a cloze note with a hint field and a basic
note with an extra field are exported as the same notes, of the same note types,
with every field as it was, even after the author edits a card here.
"""

from __future__ import annotations

import json
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.interop.test_anki_original import HAVE_ANKI

REVERSED = {
    "__type__": "NoteModel",
    "crowdanki_uuid": "model-reversed-ipa",
    "name": "Basic (and reversed card)",
    "type": 0,
    "css": ".card { color: teal; }",
    "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}, {"name": "IPA", "ord": 2}],
    "tmpls": [
        {"name": "Card 1", "ord": 0, "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"},
        {"name": "Card 2", "ord": 1, "qfmt": "{{Back}}", "afmt": "{{FrontSide}}<hr>{{Front}}"},
    ],
}
CLOZE = {
    "__type__": "NoteModel",
    "crowdanki_uuid": "model-cloze-hint",
    "name": "Cloze with hint",
    "type": 1,
    "flds": [
        {"name": "Text", "ord": 0},
        {"name": "Back Extra", "ord": 1},
        {"name": "Hint", "ord": 2},
    ],
    "tmpls": [
        {
            "name": "Cloze",
            "ord": 0,
            "qfmt": "{{cloze:Text}}{{hint:Hint}}",
            "afmt": "{{cloze:Text}}<br>{{Back Extra}}",
        }
    ],
}
BASIC = {
    "__type__": "NoteModel",
    "crowdanki_uuid": "model-basic-notes",
    "name": "Basic with notes",
    "type": 0,
    "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}, {"name": "Notes", "ord": 2}],
    "tmpls": [
        {"name": "Card 1", "ord": 0, "qfmt": "{{Front}}", "afmt": "{{FrontSide}}<hr>{{Back}}"}
    ],
}
NOTES = {
    "rev-dog": ("model-reversed-ipa", ["犬", "dog", "[inu]"]),
    "rev-cat": ("model-reversed-ipa", ["猫", "<b>cat</b>", "[neko]"]),
    "cloze-nccl": (
        "model-cloze-hint",
        ["{{c1::NCCL::library}} runs {{c2::all-reduce}}", "Ring or tree", "think GPUs"],
    ),
    "basic-hbm": ("model-basic-notes", ["What is HBM?", "High-bandwidth memory", "3D-stacked"]),
}


def _crowdanki_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "Words"
    folder.mkdir()
    deck = {
        "__type__": "Deck",
        "crowdanki_uuid": "deck-words",
        "name": "Words",
        "note_models": [REVERSED, CLOZE, BASIC],
        "notes": [
            {"__type__": "Note", "guid": guid, "note_model_uuid": model, "fields": fields}
            for guid, (model, fields) in NOTES.items()
        ],
        "children": [],
        "media_files": [],
    }
    (folder / "deck.json").write_text(json.dumps(deck, ensure_ascii=False), encoding="utf-8")
    return folder


def _imported(run_cli: Any, tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    result = run_cli("import", str(_crowdanki_folder(tmp_path)), "--into", str(vault))
    assert result.exit_code == 0, result.stderr
    return vault


def _exported_notes(run_cli: Any, vault: Path, tmp_path: Path) -> dict[str, tuple[str, list[str]]]:
    """Each note of the exported package: note type name and fields, by GUID."""
    out = tmp_path / "out.apkg"
    result = run_cli("export", str(vault), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    with zipfile.ZipFile(out) as archive:
        (tmp_path / "out.anki2").write_bytes(archive.read("collection.anki2"))
    with closing(sqlite3.connect(tmp_path / "out.anki2")) as conn:
        models = json.loads(conn.execute("SELECT models FROM col").fetchone()[0])
        rows = conn.execute("SELECT guid, mid, flds FROM notes").fetchall()
    return {guid: (models[str(mid)]["name"], flds.split("\x1f")) for guid, mid, flds in rows}


def test_exported_crowdanki_notes_keep_every_field_and_their_note_type(
    run_cli: Any, tmp_path: Path
) -> None:
    vault = _imported(run_cli, tmp_path)

    notes = _exported_notes(run_cli, vault, tmp_path)

    names = {REVERSED["crowdanki_uuid"]: REVERSED["name"]}
    names.update({CLOZE["crowdanki_uuid"]: CLOZE["name"], BASIC["crowdanki_uuid"]: BASIC["name"]})
    assert notes == {guid: (names[model], fields) for guid, (model, fields) in NOTES.items()}


def test_an_edited_reverse_card_keeps_the_ipa_field_of_its_crowdanki_note(
    run_cli: Any, tmp_path: Path
) -> None:
    vault = _imported(run_cli, tmp_path)
    reverse = next(
        path
        for path in (vault / "questions").rglob("*.yaml")
        if yaml.safe_load(path.read_text("utf-8"))["source"]["key"] == "rev-dog#reverse"
    )
    text = reverse.read_text("utf-8")
    reverse.write_text(text.replace("question: dog", "question: a dog", 1), encoding="utf-8")

    notes = _exported_notes(run_cli, vault, tmp_path)

    assert notes["rev-dog"] == ("Basic (and reversed card)", ["犬", "<p>a dog</p>", "[inu]"])


@pytest.mark.anki
@pytest.mark.skipif(not HAVE_ANKI, reason="the anki package is not installed")
def test_anki_reads_every_field_of_the_exported_crowdanki_notes(
    run_cli: Any, tmp_path: Path
) -> None:
    from tests.interop.conftest import import_with_anki

    vault = _imported(run_cli, tmp_path)
    out = tmp_path / "out.apkg"
    assert run_cli("export", str(vault), "--out", str(out)).exit_code == 0

    def read(col: Any) -> tuple[dict[str, list[str]], int]:
        fields = {col.get_note(n).guid: list(col.get_note(n).fields) for n in col.find_notes("")}
        return fields, col.card_count()

    fields, cards = import_with_anki(out, tmp_path / "anki", read)

    assert fields == {guid: values for guid, (_, values) in NOTES.items()}
    # Two reversed notes make two cards each, the cloze note two, the basic note one.
    assert cards == 7


def test_a_reversed_note_imported_before_notes_were_kept_keeps_its_ipa_under_the_answer(
    run_cli: Any, tmp_path: Path
) -> None:
    vault = _imported(run_cli, tmp_path)
    for path in (vault / "questions").rglob("*.yaml"):
        raw = yaml.safe_load(path.read_text("utf-8"))
        # What an import wrote before CrowdAnki notes kept their note.
        raw["source"].pop("anki", None)
        path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")

    notes = _exported_notes(run_cli, vault, tmp_path)

    assert notes["rev-dog"] == (
        "Basic (and reversed card)",
        ["<p>犬</p>", "<p>dog</p>", "<p><strong>IPA:</strong> [inu]</p>"],
    )
    assert notes["rev-cat"][1][2] == "<p><strong>IPA:</strong> [neko]</p>"
