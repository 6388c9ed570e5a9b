"""Mochi exports (``.mochi``): decks, cards, templates, cloze, attachments, hostile archives."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from tests.interop.conftest import DATA, build_mochi, card_scores

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.detect import detect_format
from sysdrill.interop.formats import mochi
from sysdrill.interop.formats.mochi import read_mochi

MIB = 1024 * 1024


def _mochi(tmp_path: Path, data: object, *, member: str = "data.json", **files: bytes) -> Path:
    path = tmp_path / "deck.mochi"
    with zipfile.ZipFile(path, "w") as archive:
        text = data if isinstance(data, str) else json.dumps(data)
        archive.writestr(member, text)
        for name, payload in files.items():
            archive.writestr(name, payload)
    return path


@pytest.mark.parametrize("fixture", ["nested", "flat"])
def test_read_mochi_recovers_every_card_of_the_fixture(tmp_path: Path, fixture: str) -> None:
    source = build_mochi(DATA / "mochi" / fixture, tmp_path / f"{fixture}.mochi")

    parsed = read_mochi(source)

    precision, recall, unexpected, missed = card_scores(
        parsed, DATA / "mochi" / fixture / "expected.json"
    )
    assert (unexpected, missed) == ([], [])
    assert (precision, recall) == (1.0, 1.0)


def test_read_mochi_skips_trashed_and_empty_cards_with_notes(tmp_path: Path) -> None:
    parsed = read_mochi(build_mochi(DATA / "mochi" / "nested", tmp_path / "n.mochi"))

    skipped = [(note.message, note.location) for note in parsed.notes if note.skipped]
    assert skipped == [("card is empty", "card 3"), ("card is in Mochi's trash", "card 4")]
    missing = [note.message for item in parsed.items for note in item.notes]
    assert missing == ["refers to media not imported: missing.png"]


def test_read_mochi_brings_attachments_in_by_content(tmp_path: Path) -> None:
    png = (DATA / "mochi" / "nested" / "ring.png").read_bytes()

    parsed = read_mochi(build_mochi(DATA / "mochi" / "nested", tmp_path / "n.mochi"))

    name = hashlib.sha256(png).hexdigest()[:16] + ".png"
    assert parsed.media_files == {name: png}
    ring = next(item for item in parsed.items if item.key == "cRing004")
    assert f"![ring diagram](media/{name})" in ring.data["details"]["realistic_solution"]


def test_read_mochi_keeps_tags_and_links_cloze_groups(tmp_path: Path) -> None:
    parsed = read_mochi(build_mochi(DATA / "mochi" / "nested", tmp_path / "n.mochi"))
    by_key = {item.key: item for item in parsed.items}

    assert by_key["cZero003"].data["tags"] == ["zero", "memory"]
    first, second = by_key["cClz0009#c1"], by_key["cClz0009#c2"]
    assert first.group == second.group == "cClz0009"
    assert first.data["note_link"] == {
        "card": "c1",
        "type": "Cloze",
        "text": "{{c1::Tensor}} parallelism splits each {{c2::matrix multiply}} across GPUs.",
    }


def test_detect_format_names_mochi_by_extension_or_by_its_data_member(tmp_path: Path) -> None:
    named = _mochi(tmp_path, {"decks": []})
    renamed = named.rename(tmp_path / "export.zip")

    assert detect_format(renamed) == "mochi"
    assert detect_format(_mochi(tmp_path, {"decks": []})) == "mochi"


def test_import_cli_imports_a_mochi_export_with_its_media(run_cli, tmp_path: Path) -> None:
    source = build_mochi(DATA / "mochi" / "nested", tmp_path / "nested.mochi")
    vault = tmp_path / "vault"

    result = run_cli("import", str(source), "--into", str(vault), "--json")

    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["format"], report["counts"]["added"]) == ("mochi", 9)
    assert len(list((vault / "media").iterdir())) == 1
    again = run_cli("import", str(source), "--into", str(vault), "--format", "mochi", "--json")
    assert json.loads(again.stdout)["counts"]["unchanged"] == 9


def test_mochi_whose_data_is_not_edn_is_refused_in_one_line(run_cli, tmp_path: Path) -> None:
    source = _mochi(tmp_path, '{:decks [{:name "x"', member="data.edn")

    result = run_cli("import", str(source), "--into", str(tmp_path / "vault"))

    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 'deck.mochi': data.edn is not valid EDN ('{' opened but never closed); "
        "export the deck again from Mochi\n"
    )


def test_zip_without_mochi_data_is_refused_naming_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "other.mochi"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")

    with pytest.raises(ImportFailed) as caught:
        read_mochi(path)

    assert str(caught.value) == (
        "'other.mochi' holds no data.json or data.edn, so it is not a Mochi export; "
        "export the deck again from Mochi, or pass the right --format"
    )


def test_mochi_zip_bomb_is_refused_before_reading(run_cli, tmp_path: Path) -> None:
    path = tmp_path / "bomb.mochi"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("data.json", "{}")
        with archive.open(zipfile.ZipInfo("big.png"), "w", force_zip64=True) as sink:
            for _ in range(201):
                sink.write(bytes(MIB))

    result = run_cli("import", str(path), "--into", str(tmp_path / "vault"))

    assert result.exit_code == 1
    assert result.stderr == (
        "Error: 'bomb.mochi' would expand to 201 MiB, more than 200 MiB; export the deck "
        "again without media, or split it into smaller decks\n"
    )
    assert not (tmp_path / "vault").exists()


def test_mochi_member_escaping_the_archive_is_refused(tmp_path: Path) -> None:
    path = _mochi(tmp_path, {"decks": []}, **{"../../evil.png": b"x"})

    with pytest.raises(HostileInput, match=r"has a member with a '\.\.' component"):
        read_mochi(path)


def test_mochi_data_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mochi, "_DATA_LIMIT_BYTES", 1024)
    path = _mochi(tmp_path, {"cards": [{"content": "x" * 2048}]})

    with pytest.raises(HostileInput, match="member 'data.json' is larger than 1024 bytes"):
        read_mochi(path)


def test_mochi_attachment_that_is_not_an_image_is_refused_with_a_note(tmp_path: Path) -> None:
    data = {"cards": [{"id": "a", "content": "Q\n---\n![](@media/x.png)"}]}
    path = _mochi(tmp_path, data, **{"x.png": b"<script>alert(1)</script>" * 4})

    parsed = read_mochi(path)

    assert parsed.media_files == {}
    assert [note.message for note in parsed.notes] == [
        "media file 'x.png' is not an accepted image or sound (PNG, JPEG, GIF, WebP, MP3, "
        "Ogg, WAV, FLAC, M4A); not imported"
    ]
    assert parsed.items[0].data["format"] == "quiz"
