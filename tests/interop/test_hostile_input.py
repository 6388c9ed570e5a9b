"""Hostile and broken sources: zip bombs, escaping names, lies, huge CSVs, odd encodings."""

from __future__ import annotations

import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest
import zstandard

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.formats.anki_text import read_anki_text
from sysdrill.interop.formats.apkg import read_apkg
from sysdrill.interop.formats.csv_text import MAX_ROWS, read_csv
from sysdrill.interop.formats.markdown_qa import read_markdown_qa
from sysdrill.interop.safe_zip import MAX_EXPANDED_BYTES, open_safe_zip

MIB = 1024 * 1024


def _zeros_member(archive: zipfile.ZipFile, name: str, size: int) -> None:
    chunk = bytes(MIB)
    with archive.open(zipfile.ZipInfo(name), "w", force_zip64=True) as sink:
        for _ in range(size // MIB):
            sink.write(chunk)


def test_apkg_declaring_more_than_200_mib_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "bomb.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        _zeros_member(archive, "collection.anki2", MAX_EXPANDED_BYTES + MIB)

    with pytest.raises(HostileInput) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        "'bomb.apkg' would expand to 201 MiB, more than 200 MiB; export the deck again "
        "without media, or split it into smaller decks"
    )


def test_zstd_collection_expanding_past_200_mib_stops_while_counting(tmp_path: Path) -> None:
    # The zip declares only the small compressed size; the bytes are counted as they come.
    compressor = zstandard.ZstdCompressor(level=1)
    stream = compressor.compressobj()
    blob = b"".join(stream.compress(bytes(MIB)) for _ in range(MAX_EXPANDED_BYTES // MIB + 5))
    blob += stream.flush()
    path = tmp_path / "zbomb.apkg"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki21b", blob)

    tracemalloc.start()
    try:
        with pytest.raises(HostileInput) as caught:
            read_apkg(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert str(caught.value) == (
        "'zbomb.apkg' expands past 200 MiB; export the deck again without media, "
        "or split it into smaller decks"
    )
    assert peak < 32 * MIB  # streamed in chunks, never held whole


def test_member_whose_declared_size_lies_is_reported_damaged(tmp_path: Path) -> None:
    path = tmp_path / "liar.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", b"x" * 100_000)
    data = bytearray(path.read_bytes())
    # Shrink the declared uncompressed size in the local header and the central directory.
    local_at = 0
    central_at = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, local_at + 22, 10)
    struct.pack_into("<I", data, central_at + 24, 10)
    path.write_bytes(bytes(data))

    with pytest.raises(ImportFailed, match="'liar.apkg' is damaged or truncated"):
        read_apkg(path)


@pytest.mark.parametrize(
    ("member", "why"),
    [
        ("../../etc/cron.d/evil", "a '..' component"),
        ("media/../../escape", "a '..' component"),
        ("/etc/passwd", "an absolute path"),
        ("C:/Windows/evil.dll", "an absolute path"),
        ("\\\\server\\share\\x", "an absolute path"),
    ],
)
def test_member_names_escaping_the_archive_are_refused(
    tmp_path: Path, member: str, why: str
) -> None:
    path = tmp_path / "escape.apkg"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki2", b"SQLite format 3\x00")
        archive.writestr(zipfile.ZipInfo(member), b"payload")

    with pytest.raises(HostileInput) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        f"'escape.apkg' has a member with {why} ({member!r}); "
        "refusing it: only open Anki packages from a source you trust"
    )


def test_file_named_apkg_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.apkg"
    path.write_text("Front,Back\nq,a\n", encoding="utf-8")

    with pytest.raises(HostileInput) as caught:
        read_apkg(path)

    assert str(caught.value) == (
        "'deck.apkg' is not a zip archive or is truncated, so not a valid Anki package; "
        "download or export it again"
    )


def test_truncated_apkg_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cut.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", bytes(range(256)) * 400)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    with pytest.raises(ImportFailed, match="'cut.apkg' is not a zip archive or is truncated"):
        read_apkg(path)


def test_apkg_with_corrupted_data_is_reported_damaged(tmp_path: Path) -> None:
    path = tmp_path / "rot.apkg"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("collection.anki2", bytes(range(256)) * 400)
    data = bytearray(path.read_bytes())
    for offset in range(60, 400):
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))

    with pytest.raises(ImportFailed, match="'rot.apkg' is damaged or truncated"):
        read_apkg(path)


def test_missing_apkg_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed) as caught:
        read_apkg(tmp_path / "nope.apkg")

    assert str(caught.value) == f"'{tmp_path / 'nope.apkg'}' does not exist; check the path"


def test_archive_budget_counts_every_member_copied(tmp_path: Path) -> None:
    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a", b"1" * 600)
        archive.writestr("b", b"2" * 600)

    with open_safe_zip(path, max_bytes=1500) as archive:
        assert archive.copy_member("a", tmp_path / "a") == 600
        assert archive.copy_member("b", tmp_path / "b") == 600
        with pytest.raises(HostileInput, match="expands past"):
            archive.copy_member("a", tmp_path / "again")


def test_csv_of_100000_lines_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("w", encoding="utf-8") as sink:
        sink.write("front,back,deck,tags\n")
        for n in range(99_999):
            sink.write(f"Question {n}?,Answer {n},Big,t{n % 7}\n")

    source = read_csv(path)

    assert len(source.items) == 99_999
    assert source.items[-1].data == {
        "format": "flashcard",
        "question": "Question 99998?",
        "details": {"realistic_solution": "Answer 99998"},
        "tags": ["t3"],
        "deck": "Big",
    }
    assert source.deck == "Big"


def test_csv_with_more_than_max_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.csv"
    with path.open("w", encoding="utf-8") as sink:
        sink.write("front,back\n")
        sink.writelines(f"q{n},a{n}\n" for n in range(MAX_ROWS + 1))

    with pytest.raises(HostileInput) as caught:
        read_csv(path)

    assert str(caught.value) == "'huge.csv' has more than 100,000 rows; split it into smaller files"


def test_csv_in_utf16_with_bom_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "u16.csv"
    path.write_bytes("front\tback\nGrüße ≈ 6×10⁻⁵?\tJa\n".encode("utf-16"))

    source = read_csv(path)

    assert source.items[0].data["question"] == "Grüße ≈ 6×10⁻⁵?"
    assert [n.message for n in source.notes] == ["read as UTF-16"]


def test_csv_in_latin1_is_decoded_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("front;back\nCafé crème?;Oui, très\n".encode("latin-1"))

    source = read_csv(path)

    assert source.items[0].data["question"] == "Café crème?"
    assert source.items[0].data["details"] == {"realistic_solution": "Oui, très"}
    assert source.notes[0].message == (
        "not UTF-8; read as Windows-1252 (save the file as UTF-8 to be sure of accents)"
    )


@pytest.mark.parametrize("reader", [read_csv, read_anki_text, read_markdown_qa])
def test_binary_file_is_refused_by_text_readers(tmp_path: Path, reader) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\x00\x01\x02garbage\x00" * 10)

    with pytest.raises(ImportFailed, match="'blob.txt' is a binary file"):
        reader(path)


def test_text_with_broken_utf16_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.md"
    path.write_bytes(b"\xff\xfeQ\x00:\x00 \x00\x00\xd8")  # lone surrogate at the end

    with pytest.raises(ImportFailed) as caught:
        read_markdown_qa(path)

    assert str(caught.value) == (
        "'broken.md' starts with a UTF-16 byte order mark but is not valid UTF-16; "
        "save it again as UTF-8"
    )


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "latin-1"])
def test_anki_text_and_markdown_decode_utf16_and_latin1(tmp_path: Path, encoding: str) -> None:
    bom = b"\xfe\xff" if encoding == "utf-16-be" else b""
    text_path = tmp_path / "notes.txt"
    text_path.write_bytes(bom + "#separator:tab\nCafé?\tTrès bien\n".encode(encoding))
    md_path = tmp_path / "notes.md"
    md_path.write_bytes(bom + "Q: Café?\nA: Très bien\n".encode(encoding))

    for source in (read_anki_text(text_path), read_markdown_qa(md_path)):
        (item,) = source.items
        assert item.data["question"] == "Café?"
        assert item.data["details"] == {"realistic_solution": "Très bien"}


def test_anki21b_that_is_not_zstd_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "garbled.apkg"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki21b", b"definitely not zstd" * 10)

    with pytest.raises(ImportFailed, match="collection.anki21b is not valid zstd data"):
        read_apkg(path)
