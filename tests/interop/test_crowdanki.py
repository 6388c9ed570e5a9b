"""CrowdAnki export folders: note models, subdecks, media, three-template note types."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from tests.interop.conftest import DATA, card_scores

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.detect import detect_format
from sysdrill.interop.formats import crowdanki
from sysdrill.interop.formats.crowdanki import read_crowdanki

DECK = DATA / "crowdanki" / "ML_Systems"

try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    anki_collection = None


def test_read_crowdanki_recovers_every_card_of_the_fixture() -> None:
    parsed = read_crowdanki(DECK)

    precision, recall, unexpected, missed = card_scores(
        parsed, DATA / "crowdanki" / "ML_Systems.expected.json"
    )
    assert (unexpected, missed) == ([], [])
    assert (precision, recall) == (1.0, 1.0)


def test_read_crowdanki_makes_only_the_cards_anki_would_make() -> None:
    parsed = read_crowdanki(DECK)
    keys = [item.key for item in parsed.items if item.key.startswith("Ru$")]

    # The third template asks for the pronunciation only when the note has one.
    assert keys == [
        "Ru$par01#t1",
        "Ru$par01#t2",
        "Ru$par01#t3",
        "Ru$grd02#t1",
        "Ru$grd02#t2",
        "Ru$vec03#t1",
        "Ru$vec03#t2",
    ]
    link = parsed.items[[i.key for i in parsed.items].index("Ru$par01#t3")].data["note_link"]
    assert link["type"] == "Vocab (3 cards)"
    assert link["fields"]["Pronunciation"] == "paralleˈlizm"
    assert [t["name"] for t in link["templates"]] == ["Recognise", "Recall", "Say"]


def test_read_crowdanki_keeps_checked_media_and_refuses_the_rest() -> None:
    png = (DECK / "media" / "gpu diagram.png").read_bytes()

    parsed = read_crowdanki(DECK)

    assert hashlib.sha256(png).hexdigest()[:16] + ".png" in parsed.media_files
    assert len(parsed.media_files) == 2
    messages = [note.message for note in parsed.notes]
    assert "media file '../secret.png' points outside the source folder; not imported" in messages
    assert any(m.startswith("media file 'evil.svg' is not an accepted image") for m in messages)
    assert ("note has an empty front", "note 3") in [(n.message, n.location) for n in parsed.notes]


def test_read_crowdanki_maps_fields_by_role_and_keeps_source_links() -> None:
    parsed = read_crowdanki(DECK)

    assert parsed.field_maps["Basic with source"] == {
        "Front": "question",
        "Back": "answer",
        "Source": "source",
    }
    hbm = next(item for item in parsed.items if item.key == "Hb&m3_x0")
    assert hbm.data["details"]["resources"] == [
        {"name": "Source", "url": "https://www.nvidia.com/en-us/data-center/h100/"}
    ]


def test_detect_format_names_a_crowdanki_folder_and_its_deck_json() -> None:
    assert detect_format(DECK) == "crowdanki"
    assert detect_format(DECK / "deck.json") == "crowdanki"


def test_import_cli_imports_a_crowdanki_folder(run_cli, tmp_path: Path) -> None:
    vault = tmp_path / "vault"

    result = run_cli("import", str(DECK), "--into", str(vault), "--json")

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["format"], report["counts"]["added"]) == ("crowdanki", 14)
    assert sorted(p.suffix for p in (vault / "media").iterdir()) == [".mp3", ".png"]


def test_crowdanki_media_link_leading_outside_is_refused(tmp_path: Path) -> None:
    deck = tmp_path / "deck"
    shutil.copytree(DECK, deck)
    outside = tmp_path / "secret.png"
    outside.write_bytes((DECK / "media" / "gpu diagram.png").read_bytes())
    (deck / "media" / "link.png").symlink_to(outside)
    data = json.loads((deck / "deck.json").read_text(encoding="utf-8"))
    data["media_files"] = ["link.png"]
    (deck / "deck.json").write_text(json.dumps(data), encoding="utf-8")

    parsed = read_crowdanki(deck)

    assert "media file 'link.png' links outside the source folder; not imported" in [
        note.message for note in parsed.notes
    ]


def test_folder_without_deck_json_is_refused_naming_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed) as caught:
        read_crowdanki(tmp_path)

    assert str(caught.value) == (
        f"'{tmp_path.name}' holds no deck.json, so it is not a CrowdAnki export; "
        "pass the folder CrowdAnki exported, or the right --format"
    )


def test_crowdanki_deck_json_that_is_not_json_fails_in_one_line(run_cli, tmp_path: Path) -> None:
    (tmp_path / "deck.json").write_text('{"__type__": "Deck", "notes": [', encoding="utf-8")

    result = run_cli("import", str(tmp_path), "--into", str(tmp_path / "vault"))

    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: '{tmp_path / 'deck.json'}' is not valid JSON (")
    assert result.stderr.endswith("; export the deck again from CrowdAnki\n")


def test_crowdanki_deck_json_over_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(crowdanki, "MAX_DECK_FILE_BYTES", 100)
    (tmp_path / "deck.json").write_text(json.dumps({"notes": [], "pad": "x" * 200}))

    with pytest.raises(HostileInput, match="'deck.json' is 0 MiB, more than 0 MiB"):
        read_crowdanki(tmp_path)


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_anki_imports_the_apkg_export_of_a_crowdanki_deck_with_its_note_types(
    tmp_path: Path,
) -> None:
    from datetime import UTC, datetime
    from typing import Any

    from tests.interop.conftest import import_with_anki

    from sysdrill.interop.export import export_vault
    from sysdrill.interop.importer import import_source

    now = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)
    vault = tmp_path / "vault"
    import_source(DECK, into=vault, now=now, audit=False)
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=now)

    def read(col: Any) -> tuple[int, int, dict[str, int], list[str]]:
        cards_by_type: dict[str, int] = {}
        for cid in col.find_cards(""):
            # Anki adds "+" to a type named like a stock one with other fields or ids.
            name = col.get_card(cid).note_type()["name"].rstrip("+")
            cards_by_type[name] = cards_by_type.get(name, 0) + 1
        guids = sorted(col.get_note(nid).guid for nid in col.find_notes(""))
        return col.note_count(), col.card_count(), cards_by_type, guids

    notes, cards, by_type, guids = import_with_anki(out, tmp_path / "anki", read)

    # Eight notes (the one with an empty front was skipped) make the same 14 cards,
    # each note of its own note type (CrowdAnki notes keep their note, issue 31).
    assert (notes, cards) == (8, 14)
    assert by_type == {
        "Basic (and reversed card)": 2,
        "Basic with source": 3,
        "Cloze": 2,
        "Vocab (3 cards)": 7,
    }
    assert {"Dp#rev001", "Cz#meg002", "Ru$par01", "Ru$grd02", "Ru$vec03"} <= set(guids)


def test_import_cli_maps_crowdanki_fields_and_saves_the_mapping(run_cli, tmp_path: Path) -> None:
    vault = tmp_path / "vault"

    result = run_cli(
        "import", str(DECK), "--into", str(vault), "--map", "Pronunciation=ignore", "--json"
    )

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["field_maps"]["Vocab (3 cards)"] == {
        "Word": "question",
        "Pronunciation": "ignore",
        "Meaning": "answer",
    }
    saved = (vault / "sysdrill.yaml").read_text(encoding="utf-8")
    assert "Pronunciation: ignore" in saved
    again = run_cli("import", str(DECK), "--into", str(vault), "--dry-run", "--json")
    assert json.loads(again.stdout)["field_maps"]["Vocab (3 cards)"]["Pronunciation"] == "ignore"
