from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from sysdrill.errors import ImportFailed
from sysdrill.interop.detect import detect_format, sniff_text_format

SEED_FORMATS = {
    "000_f94b88cb3c630d3c.txt": "staffml-web",
    "001_2a349a237ce54e38.txt": "staffml-web",
    "002_150ee555f9dec9d2.txt": "quiz-text",
    "003_e725e3b7f745518c.txt": "exercises-text",
    "004_8c6267489fed25a8.txt": "flashcards-text",
}


@pytest.mark.parametrize(("name", "expected"), sorted(SEED_FORMATS.items()))
def test_detect_names_each_seed_format(seeds_dir: Path, name: str, expected: str) -> None:
    assert detect_format(seeds_dir / name) == expected


def test_detect_folder_is_staffml_tree(tmp_path: Path) -> None:
    assert detect_format(tmp_path) == "staffml"


def test_detect_zip_magic_is_apkg_whatever_the_extension(tmp_path: Path) -> None:
    path = tmp_path / "deck.bin"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("collection.anki2", b"x")
    assert detect_format(path) == "apkg"


@pytest.mark.parametrize(
    ("suffix", "expected"),
    [
        (".csv", "csv"),
        (".tsv", "csv"),
        (".md", "markdown"),
        (".json", "staffml"),
        (".apkg", "apkg"),
    ],
)
def test_detect_uses_extension(tmp_path: Path, suffix: str, expected: str) -> None:
    path = tmp_path / f"source{suffix}"
    path.write_text("front,back\nA,B\n", encoding="utf-8")
    assert detect_format(path) == expected


def test_detect_plain_yaml_is_staffml_and_chrome_yaml_is_web(tmp_path: Path) -> None:
    plain = tmp_path / "q.yaml"
    plain.write_text("id: cloud-1\ntrack: cloud\n", encoding="utf-8")
    copied = tmp_path / "copied.yaml"
    copied.write_text("Raw Permalink Blame\n12 lines\nid: cloud-1\nquestion: Why?\n")
    assert detect_format(plain) == "staffml"
    assert detect_format(copied) == "staffml-web"


def test_sniff_recognises_anki_text_headers() -> None:
    assert sniff_text_format("#separator:tab\n#html:true\nfront\tback\n") == "anki-text"


def test_sniff_returns_none_for_prose() -> None:
    assert sniff_text_format("Just a letter to a friend, nothing to drill.\n") is None


def test_detect_unrecognisable_text_names_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "letter.txt"
    path.write_text("Dear friend,\nthe weather is fine.\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="matches no import format; pass --format"):
        detect_format(path)


def test_detect_missing_source_fails(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="does not exist"):
        detect_format(tmp_path / "nope.txt")


def test_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    with pytest.raises(ImportFailed, match="is empty; nothing to import"):
        detect_format(path)


def test_sniff_recognises_headerless_quizlet_term_lines() -> None:
    text = "Память\tmemory\nHBM\thigh-bandwidth memory\nNCCL\tcollectives library\n"

    assert sniff_text_format(text) == "csv"


def test_sniff_does_not_take_prose_with_one_tab_for_term_lines() -> None:
    assert sniff_text_format("Notes\tabout\tthings\nplain line\n") is None
