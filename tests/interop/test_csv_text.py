"""Reading CSV and TSV card lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.csv_text import read_csv


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_csv_maps_header_columns_and_splits_tags(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "cards.csv",
        'Tags,Front,Back,Deck\n"gpu, memory",What is HBM?,"Stacked DRAM,\nnext to the die",HW\n',
    )

    source = read_csv(path)

    (item,) = source.items
    assert item.data == {
        "format": "flashcard",
        "question": "What is HBM?",
        "details": {"realistic_solution": "Stacked DRAM,\nnext to the die"},
        "tags": ["gpu", "memory"],
        "deck": "HW",
    }
    assert item.key.startswith("front:") and item.preferred_id is None
    assert source.deck == "HW"
    assert source.format == "csv"


@pytest.mark.parametrize("delimiter", ["\t", ";", "|", ","])
def test_read_csv_sniffs_the_delimiter(tmp_path: Path, delimiter: str) -> None:
    path = _write(tmp_path, "c.tsv", f"question{delimiter}answer\nQ1{delimiter}A1\n")

    (item,) = read_csv(path).items

    assert (item.data["question"], item.data["details"]) == ("Q1", {"realistic_solution": "A1"})


def test_read_csv_key_is_stable_across_whitespace_and_case(tmp_path: Path) -> None:
    first = read_csv(_write(tmp_path, "a.csv", "front,back\nWhat  is NCCL?,lib\n")).items[0]
    again = read_csv(_write(tmp_path, "b.csv", "front,back\nwhat is nccl? ,library\n")).items[0]

    assert first.key == again.key


def test_read_csv_uses_id_column_as_key_and_preferred_id(tmp_path: Path) -> None:
    path = _write(tmp_path, "ids.csv", "id,front,back\nnet-0001,Q,A\n")

    (item,) = read_csv(path).items

    assert (item.key, item.preferred_id) == ("id:net-0001", "net-0001")


def test_read_csv_skips_empty_fronts_and_repeats_and_keeps_cards_without_back(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path, "mixed.csv", "front,back,notes\n,orphan,x\nQ,A,\nq ,again,\nOpen?,,\n")

    source = read_csv(path)

    assert [item.data["question"] for item in source.items] == ["Q", "Open?"]
    assert source.items[1].data["format"] == "quiz"
    assert "details" not in source.items[1].data
    assert [(n.location, n.message, n.skipped) for n in source.notes] == [
        ("", "columns ignored: notes", False),
        ("mixed.csv:2", "row has an empty front", True),
        ("mixed.csv:4", "repeats the card of line 3; keep one of them", True),
    ]
    assert source.items[1].notes[0].message == (
        "card has no back; imported as a quiz question without an answer"
    )


def test_read_csv_without_front_and_back_headers_names_the_fix(tmp_path: Path) -> None:
    path = _write(tmp_path, "nohead.csv", "What is HBM?,Stacked DRAM\n")

    with pytest.raises(ImportFailed) as caught:
        read_csv(path)

    assert str(caught.value) == (
        "'nohead.csv': the header row has no front and no back column "
        "(found: What is HBM?, Stacked DRAM); start the file with a header row such as "
        "front,back,deck,tags, or give --sep and --row-sep for a file without one"
    )


def test_read_csv_of_empty_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="'empty.csv' is empty"):
        read_csv(_write(tmp_path, "empty.csv", ""))


def test_read_csv_with_utf8_bom_header(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes("front,back\nQ,A\n".encode("utf-8-sig"))

    source = read_csv(path)

    assert len(source.items) == 1 and source.notes == []


def test_read_csv_reads_a_headerless_quizlet_tsv(tmp_path: Path) -> None:
    path = tmp_path / "quizlet.tsv"
    path.write_text("Память\tmemory\nHBM\thigh-bandwidth memory\n", encoding="utf-8")

    source = read_csv(path)

    assert [
        (i.data["question"], i.data["details"]["realistic_solution"]) for i in source.items
    ] == [
        ("Память", "memory"),
        ("HBM", "high-bandwidth memory"),
    ]
    assert source.notes[0].message.startswith("no header row")
