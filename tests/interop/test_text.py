"""The one text-decoding policy of the importers: encodings, limits, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop import text
from sysdrill.interop.text import read_source_text, text_encoding


def test_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(ImportFailed) as caught:
        read_source_text(path)
    assert str(caught.value) == "'empty.txt' is empty; nothing to import"


def test_whitespace_only_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_text("  \n\n\t\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="is empty"):
        read_source_text(path)


def test_read_utf16_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "quiz.txt"
    path.write_bytes("Question 1\nWhat is 2¹⁶?\nAnswer\n65536\n".encode("utf-16"))
    decoded = read_source_text(path)
    assert decoded.text.startswith("Question 1\nWhat is 2¹⁶?")
    assert decoded.encoding == "utf-16"
    assert decoded.note == "read as UTF-16"


def test_read_utf16_big_endian_and_utf32_with_bom(tmp_path: Path) -> None:
    path = tmp_path / "be.txt"
    path.write_bytes(b"\xfe\xff" + "Café?\n".encode("utf-16-be"))
    assert read_source_text(path).text == "Café?\n"
    path.write_bytes("Café?\n".encode("utf-32"))
    decoded = read_source_text(path)
    assert (decoded.text, decoded.encoding) == ("Café?\n", "utf-32")


def test_read_utf8_bom_is_stripped_and_crlf_normalised(tmp_path: Path) -> None:
    path = tmp_path / "quiz.txt"
    path.write_bytes(b"\xef\xbb\xbfQuestion 1\r\nWhy?\r\n")
    decoded = read_source_text(path)
    assert decoded.text == "Question 1\nWhy?\n"
    assert decoded.encoding == "utf-8" and decoded.note is None


def test_read_latin1_text_as_windows_1252_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "cards.txt"
    path.write_bytes("Qu'est-ce qu'un réseau à débit élevé ?\n".encode("latin-1"))
    decoded = read_source_text(path)
    assert decoded.text == "Qu'est-ce qu'un réseau à débit élevé ?\n"
    assert decoded.encoding == "cp1252"
    assert decoded.note == (
        "not UTF-8; read as Windows-1252 (save the file as UTF-8 to be sure of accents)"
    )


def test_windows_1252_punctuation_is_read(tmp_path: Path) -> None:
    path = tmp_path / "quotes.txt"
    path.write_bytes("“Smart” quotes – and a dash".encode("cp1252"))
    assert read_source_text(path).text == "“Smart” quotes – and a dash"


def test_bytes_undefined_in_windows_1252_fall_back_to_latin_1(tmp_path: Path) -> None:
    path = tmp_path / "odd.txt"
    path.write_bytes(b"caf\xe9 \x81 ok")  # 0x81 has no Windows-1252 character
    decoded = read_source_text(path)
    assert (decoded.text, decoded.encoding) == ("café \x81 ok", "latin-1")


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(ImportFailed) as caught:
        read_source_text(path)
    assert str(caught.value) == (
        "'image.txt' is a binary file, not a text source; pass a text file saved as UTF-8"
    )


def test_control_characters_past_the_head_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "noise.txt"
    path.write_bytes(b"x" * 9000 + b"\x01\x02\x03" * 200)
    with pytest.raises(ImportFailed) as caught:
        read_source_text(path)
    assert str(caught.value) == (
        "'noise.txt' does not look like text (600 control characters); "
        "pass a text file saved as UTF-8"
    )


def test_bad_utf16_after_bom_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "odd.txt"
    path.write_bytes(b"\xff\xfe" + "ok".encode("utf-16-le") + b"\x00\xd8")
    with pytest.raises(ImportFailed) as caught:
        read_source_text(path)
    assert str(caught.value) == (
        "'odd.txt' starts with a UTF-16 byte order mark but is not valid UTF-16; "
        "save it again as UTF-8"
    )


def test_huge_text_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(text.WHOLE_TEXT_MAX_BYTES + 1)
    with pytest.raises(HostileInput) as caught:
        read_source_text(path)
    assert str(caught.value) == (
        "'huge.txt' is 16.0 MiB, over the 16 MiB limit for one text source; "
        "split it into smaller files"
    )


def test_streamed_sources_have_their_own_larger_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as handle:
        handle.write(b"x" * 8192)
        handle.truncate(text.WHOLE_TEXT_MAX_BYTES + 1)
    encoding = text_encoding(path, kind="CSV file", limit_bytes=text.STREAMED_TEXT_MAX_BYTES)
    assert encoding.name == "utf-8"  # NUL bytes past 8 KiB: UTF-8, refused later by readers
    with pytest.raises(HostileInput, match="over the 16 MiB limit for one CSV file"):
        text_encoding(path, kind="CSV file", limit_bytes=text.WHOLE_TEXT_MAX_BYTES)


def test_missing_source_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed) as caught:
        read_source_text(tmp_path / "nope.txt")
    assert str(caught.value) == f"'{tmp_path / 'nope.txt'}' does not exist; check the path"
