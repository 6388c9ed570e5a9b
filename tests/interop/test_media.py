"""Media of Anki packages: checked on the way in, referenced from items, written back out.

Fixtures come from ``conftest.build_media_package`` (genanki): an image-only
answer and a sound on a front.
"""

from __future__ import annotations

import json
import os
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.interop.conftest import MP3_BYTES, PNG_BYTES, build_media_package, import_with_anki

from sysdrill.content.media import content_name, name_media
from sysdrill.interop.export import export_vault
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.importer import import_source
from sysdrill.interop.media import MAX_MEDIA_FILE_BYTES

NOW = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)
PNG_NAME = content_name(PNG_BYTES, content_type="image/png", original="gpu-diagram.png")
MP3_NAME = content_name(MP3_BYTES, content_type="audio/mpeg", original="say-hbm.mp3")


def _items(vault: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in (vault / "questions").rglob("*.yaml"):
        raw = yaml.safe_load(path.read_text("utf-8"))
        found[raw["source"]["key"]] = raw
    return found


def test_image_only_answer_refers_to_a_content_named_file(media_apkg: Path) -> None:
    source = read_apkg(media_apkg)
    items = {item.key: item.data for item in source.items}

    assert PNG_NAME.endswith(".png") and len(PNG_NAME) == 20
    assert items["fixture-image-answer"]["details"]["realistic_solution"] == (
        f"![](media/{PNG_NAME})"
    )
    assert items["fixture-audio"]["question"] == f"Say it: [sound:media/{MP3_NAME}]"
    assert source.media_files == {PNG_NAME: PNG_BYTES, MP3_NAME: MP3_BYTES}
    assert not any("not imported" in note.message for item in source.items for note in item.notes)


def test_import_writes_media_beside_questions_and_is_idempotent(
    media_apkg: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    first = import_source(media_apkg, into=vault, now=NOW, audit=True)
    again = import_source(media_apkg, into=vault, now=NOW, audit=True)

    assert (vault / "media" / PNG_NAME).read_bytes() == PNG_BYTES
    assert (vault / "media" / MP3_NAME).read_bytes() == MP3_BYTES
    assert f"media/{PNG_NAME}" in first.written
    assert first.defects == []
    assert again.written == []
    assert _items(vault)["fixture-image-answer"]["format"] == "flashcard"


def test_dry_run_writes_no_media(media_apkg: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, dry_run=True, audit=False)

    assert not (vault / "media").exists()


def _package(tmp_path: Path, media: dict[str, str], files: dict[str, bytes]) -> Path:
    """The media fixture with its media index and files replaced."""
    source = tmp_path / "src"

    original = build_media_package(source)
    path = tmp_path / "forged.apkg"
    with zipfile.ZipFile(original) as archive, zipfile.ZipFile(path, "w") as out:
        out.writestr("collection.anki2", archive.read("collection.anki2"))
        out.writestr("media", json.dumps(media))
        for name, data in files.items():
            out.writestr(name, data)
    return path


def test_media_that_is_not_an_accepted_type_is_refused_by_its_bytes(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {"0": "gpu-diagram.png", "1": "say-hbm.mp3"},
        {"0": b"<svg onload='alert(1)'></svg>", "1": b"MZ\x90\x00 not a sound"},
    )

    source = read_apkg(package)

    assert source.media_files == {}
    refused = sorted(
        n.message.split("'")[1]
        for n in source.notes
        if "not accepted" in n.message or "not an accepted" in n.message
    )
    assert refused == ["gpu-diagram.png", "say-hbm.mp3"]
    image = next(item for item in source.items if item.key == "fixture-image-answer")
    # The reference is dropped and named, so the answer is empty and becomes a quiz.
    assert image.data["format"] == "quiz"
    assert any("gpu-diagram.png" in note.message for note in image.notes)


def test_oversized_media_file_is_refused_and_the_rest_imported(tmp_path: Path) -> None:
    big = PNG_BYTES + b"\x00" * MAX_MEDIA_FILE_BYTES
    package = _package(
        tmp_path, {"0": "gpu-diagram.png", "1": "say-hbm.mp3"}, {"0": big, "1": MP3_BYTES}
    )

    source = read_apkg(package)

    assert source.media_files == {MP3_NAME: MP3_BYTES}
    assert any("larger than 16 MiB" in note.message for note in source.notes)


@pytest.mark.parametrize("name", ["../../evil.png", "/etc/passwd"])
def test_media_with_path_tricks_in_member_names_is_refused(tmp_path: Path, name: str) -> None:
    from sysdrill.errors import HostileInput

    package = _package(tmp_path, {name: "x.png"}, {name: PNG_BYTES})

    with pytest.raises(HostileInput):
        read_apkg(package)


def test_media_index_names_never_become_paths(tmp_path: Path) -> None:
    package = _package(tmp_path, {"0": "../../escape.png"}, {"0": PNG_BYTES})
    vault = tmp_path / "vault"

    import_source(package, into=vault, now=NOW, audit=False)

    assert not (tmp_path / "escape.png").exists()
    assert [p.name for p in (vault / "media").iterdir()] == [
        content_name(PNG_BYTES, content_type="image/png")
    ]


def test_terminal_text_names_media() -> None:
    text = f"Look: ![chip](media/{PNG_NAME}) then [sound:media/{MP3_NAME}]"

    assert name_media(text) == f"Look: [image: {PNG_NAME}] then [audio: {MP3_NAME}]"


def test_export_puts_media_back_into_the_package(media_apkg: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    out = tmp_path / "out.apkg"

    export_vault(vault, format="apkg", out=out, now=NOW)

    with zipfile.ZipFile(out) as archive:
        index = json.loads(archive.read("media"))
        stored = {name: archive.read(number) for number, name in index.items()}
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    # Notes unchanged since their import go back as Anki stored them: their
    # media under the names the collection knows.
    assert stored == {"gpu-diagram.png": PNG_BYTES, "say-hbm.mp3": MP3_BYTES}
    import sqlite3

    conn = sqlite3.connect(tmp_path / "c.anki2")
    try:
        fields = [row[0] for row in conn.execute("SELECT flds FROM notes ORDER BY flds")]
    finally:
        conn.close()
    assert any('<img src="gpu-diagram.png">' in field for field in fields)
    assert any("[sound:say-hbm.mp3]" in field for field in fields)


def test_an_edited_note_refers_to_its_media_by_vault_name(media_apkg: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    path = next(p for p in (vault / "questions").rglob("*.yaml") if "H100" in p.read_text())
    # The question only (the file keeps Anki's field values further down).
    text = path.read_text("utf-8").replace("What does an H100 board", "What does a B200 board", 1)
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out.apkg"

    export_vault(vault, format="apkg", out=out, now=NOW)

    with zipfile.ZipFile(out) as archive:
        index = json.loads(archive.read("media"))
        (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
    import sqlite3

    conn = sqlite3.connect(tmp_path / "c.anki2")
    try:
        fields = dict(conn.execute("SELECT guid, flds FROM notes").fetchall())
    finally:
        conn.close()
    front, back = fields["fixture-image-answer"].split("\x1f")
    assert front == "<p>What does a B200 board look like?</p>"
    # The answer was not edited: it keeps the collection's name for the image.
    assert back == '<img src="gpu-diagram.png">'
    assert set(index.values()) == {"gpu-diagram.png", "say-hbm.mp3"}


def test_export_of_an_unchanged_vault_keeps_note_modification_times(
    media_apkg: Path, tmp_path: Path
) -> None:
    import sqlite3

    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    stamp = NOW.timestamp()
    for path in (vault / "questions").rglob("*.yaml"):
        os.utime(path, (stamp, stamp))
    mods = []
    for day in (1, 30):
        out = tmp_path / f"out-{day}.apkg"
        export_vault(vault, format="apkg", out=out, now=NOW.replace(day=day))
        with zipfile.ZipFile(out) as archive:
            (tmp_path / "c.anki2").write_bytes(archive.read("collection.anki2"))
        conn = sqlite3.connect(tmp_path / "c.anki2")
        try:
            mods.append(sorted(row[0] for row in conn.execute("SELECT mod FROM notes")))
        finally:
            conn.close()

    # The notes did not change since the import: they keep Anki's own times.
    assert mods[0] == mods[1]
    assert mods[0] == sorted(
        yaml.safe_load(p.read_text("utf-8"))["source"]["anki"]["note_mod_s"]
        for p in (vault / "questions").rglob("*.yaml")
    )


try:
    import anki.collection as anki_collection
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    anki_collection = None


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_anki_imports_the_reexport_with_the_same_notes_cards_and_media(
    media_apkg: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    out = tmp_path / "out.apkg"
    export_vault(vault, format="apkg", out=out, now=NOW)

    def read(col: Any) -> tuple[int, int, list[bytes]]:
        media_dir = Path(col.media.dir())
        files = sorted(p.read_bytes() for p in media_dir.iterdir() if p.is_file())
        return col.note_count(), col.card_count(), files

    before = import_with_anki(media_apkg, tmp_path / "a", read)
    after = import_with_anki(out, tmp_path / "b", read)

    assert (after[0], after[1]) == (before[0], before[1]) == (2, 2)
    assert after[2] == before[2] == sorted([PNG_BYTES, MP3_BYTES])


def test_an_url_encoded_image_source_finds_its_file() -> None:
    from sysdrill.interop.formats._common import html_to_markdown

    text, missing = html_to_markdown(
        '<img src="my%20chip.png" alt="the [chip]">', media_names={"my chip.png": PNG_NAME}
    )

    assert (text, missing) == (f"![the chip](media/{PNG_NAME})", [])


def test_plain_terminal_text_shows_media_by_name() -> None:
    from sysdrill.study.sessions.text import plain_text

    assert plain_text(f"**Board:** ![](media/{PNG_NAME})") == f"Board: [image: {PNG_NAME}]"


def test_media_past_the_total_cap_is_refused_and_named(
    media_apkg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.interop import media as media_module

    monkeypatch.setattr(media_module, "MAX_MEDIA_TOTAL_BYTES", len(PNG_BYTES))

    source = read_apkg(media_apkg)

    # Files are taken in name order: the image fits, the sound would pass the cap.
    assert list(source.media_files) == [PNG_NAME]
    assert any(
        note.message.startswith("media file 'say-hbm.mp3' would take the media past")
        for note in source.notes
    )


def test_anki_text_export_copies_referenced_media_beside_the_file(
    media_apkg: Path, tmp_path: Path, run_cli
) -> None:
    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    out = tmp_path / "deck.txt"

    result = run_cli("export", str(vault), "--out", str(out))

    assert result.exit_code == 0, result.stderr
    folder = tmp_path / "deck.media"
    assert (
        f"  2 media files copied to {folder}; copy them into Anki's collection.media folder "
        "before importing"
    ) in result.stdout.splitlines()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == {
        PNG_NAME: PNG_BYTES,
        MP3_NAME: MP3_BYTES,
    }
    text = out.read_text(encoding="utf-8")
    # Tab-separated with CSV quoting: the quotes of the HTML attribute are doubled.
    assert f'<img src=""{PNG_NAME}"" alt=""""></p>"' in text
    assert f"[sound:{MP3_NAME}]" in text
    assert "media/" not in text


@pytest.mark.anki
@pytest.mark.skipif(anki_collection is None, reason="the anki package is not installed")
def test_anki_imports_the_text_export_with_its_media_found(
    media_apkg: Path, tmp_path: Path
) -> None:
    import shutil

    vault = tmp_path / "vault"
    import_source(media_apkg, into=vault, now=NOW, audit=False)
    out = tmp_path / "deck.txt"
    report = export_vault(vault, format="anki-text", out=out, now=NOW)
    assert report.media_folder == tmp_path / "deck.media"
    assert report.media_files == sorted([PNG_NAME, MP3_NAME])

    (tmp_path / "anki").mkdir()
    col = anki_collection.Collection(str(tmp_path / "anki" / "collection.anki2"))
    try:
        for name in report.media_files:
            shutil.copyfile(report.media_folder / name, Path(col.media.dir()) / name)
        metadata = col.get_csv_metadata(str(out), None)
        col.import_csv(anki_collection.ImportCsvRequest(path=str(out), metadata=metadata))
        check = col.media.check()
        notes, missing, unused = col.note_count(), list(check.missing), list(check.unused)
    finally:
        col.close()

    assert (notes, missing, unused) == (2, [], [])


def test_anki_text_export_without_media_writes_no_folder(tmp_path: Path) -> None:
    from sysdrill.content.sample import sample_vault_path

    out = tmp_path / "deck.txt"

    report = export_vault(sample_vault_path(), format="anki-text", out=out, now=NOW)

    assert (report.media_folder, report.media_files) == (None, [])
    assert not (tmp_path / "deck.media").exists()
