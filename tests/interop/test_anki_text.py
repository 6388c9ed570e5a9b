"""Reading Anki plain-text exports and their headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.anki_text import read_anki_text


def _write(tmp_path: Path, text: str, name: str = "notes.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_anki_text_honours_every_column_header(tmp_path: Path) -> None:
    text = (
        "#separator:tab\n"
        "#html:true\n"
        "#guid column:1\n"
        "#notetype column:2\n"
        "#deck column:3\n"
        "#tags column:6\n"
        "#tags:imported\n"
        "Xy12\tBasic\tSystems::GPU\tWhat is <b>HBM</b>?\tStacked<br>DRAM\tgpu memory\n"
        'Zz99\tBasic\tSystems::Net\t"Ring ""all-reduce"""\t\\(2(N-1)/N\\)\tnet\n'
    )

    source = read_anki_text(_write(tmp_path, text))

    assert [(item.key, item.data) for item in source.items] == [
        (
            "Xy12",
            {
                "format": "flashcard",
                "question": "What is **HBM**?",
                "details": {"realistic_solution": "Stacked\nDRAM"},
                "tags": ["imported", "gpu", "memory"],
                "deck": "Systems::GPU",
            },
        ),
        (
            "Zz99",
            {
                "format": "flashcard",
                "question": 'Ring "all-reduce"',
                "details": {"realistic_solution": "$2(N-1)/N$"},
                "tags": ["imported", "net"],
                "deck": "Systems::Net",
            },
        ),
    ]
    assert source.format == "anki-text" and source.deck is None


def test_read_anki_text_with_html_false_keeps_fields_literally(tmp_path: Path) -> None:
    text = "#separator:Semicolon\n#html:false\n#deck:Plain\nUse <b> for bold?;Yes\n"

    (item,) = read_anki_text(_write(tmp_path, text)).items

    assert item.data["question"] == "Use <b> for bold?"
    assert item.data["deck"] == "Plain"
    assert item.key.startswith("front:")


def test_read_anki_text_sniffs_separator_and_names_extra_columns(tmp_path: Path) -> None:
    text = "#columns:Front,Back,Source\n# a comment\nQ1,A1,book p.3\n"

    (item,) = read_anki_text(_write(tmp_path, text)).items

    assert item.data["details"] == {"realistic_solution": "A1\n\n**Source:** book p.3"}


def test_read_anki_text_rejects_bad_column_number(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed) as caught:
        read_anki_text(_write(tmp_path, "#separator:tab\n#deck column:zero\nq\ta\n"))

    assert str(caught.value) == (
        "notes.txt:2: '#deck column:zero' is not a column number; columns are numbered from 1"
    )


def test_read_anki_text_rejects_unknown_separator(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed) as caught:
        read_anki_text(_write(tmp_path, "#separator:dash\nq-a\n"))

    assert str(caught.value) == (
        "notes.txt: '#separator:dash' is not a separator; use one of tab, comma, semicolon, "
        "space, pipe, colon or a single character"
    )


def test_read_anki_text_skips_repeated_guid_with_a_note(tmp_path: Path) -> None:
    text = "#separator:tab\n#guid column:1\ng1\tQ\tA\ng1\tQ2\tA2\n"

    source = read_anki_text(_write(tmp_path, text))

    assert len(source.items) == 1
    assert [(n.location, n.message) for n in source.notes] == [
        ("notes.txt:4", "repeats the note of line 3")
    ]


def test_read_anki_text_splits_a_cloze_note_into_one_item_per_blank(tmp_path: Path) -> None:
    path = tmp_path / "cloze.txt"
    path.write_text(
        "#separator:tab\n#html:true\n#notetype:Cloze\n#guid column:1\n"
        "g1\t{{c1::NCCL}} runs {{c2::all-reduce::op}}\tNVIDIA\n",
        encoding="utf-8",
    )

    source = read_anki_text(path)

    assert [(i.key, i.group, i.data["question"]) for i in source.items] == [
        ("g1#c1", "g1", "[...] runs all-reduce"),
        ("g1#c2", "g1", "NCCL runs [op]"),
    ]
    assert source.items[1].data["details"] == {
        "realistic_solution": "NCCL runs **all-reduce**\n\nNVIDIA"
    }
    assert source.items[0].data["note_link"] == {
        "card": "c1",
        "type": "Cloze",
        "text": "{{c1::NCCL}} runs {{c2::all-reduce::op}}",
        "extra": "NVIDIA",
    }
