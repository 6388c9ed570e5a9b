"""Issue 31 item 6: card lists without a header row (Quizlet exports, columns)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.errors import ImportFailed, UsageError
from sysdrill.interop.detect import sniff_text_format
from sysdrill.interop.formats.csv_text import read_csv
from sysdrill.interop.formats.term_lines import Separators, detect_separators, parse_separator


def _cards(path: Path, separators: Separators | None = None) -> list[tuple[str, str]]:
    return [
        (item.data["question"], item.data.get("details", {}).get("realistic_solution", ""))
        for item in read_csv(path, separators=separators).items
    ]


def _write(tmp_path: Path, text: str, name: str = "set.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_quizlet_rows_with_custom_separators_given_are_read(tmp_path: Path) -> None:
    path = _write(tmp_path, "HBM => stacked DRAM||NCCL => collectives, on GPUs||")

    cards = _cards(path, Separators(term=" => ", row="||"))

    assert cards == [("HBM", "stacked DRAM"), ("NCCL", "collectives, on GPUs")]


@pytest.mark.parametrize(
    ("text", "term", "row"),
    [
        ("HBM\tstacked DRAM\nNCCL\tcollectives\n", "\t", "\n"),
        ("HBM - stacked DRAM\nNCCL - collectives - on GPUs\n", " - ", "\n"),
        ("HBM;stacked DRAM\nNCCL;collectives\n", ";", "\n"),
        ("HBM,stacked DRAM\nNCCL,collectives, on GPUs\n", ",", "\n"),
        ("HBM - stacked DRAM;;NCCL - collectives;;", " - ", ";;"),
        ("HBM\tstacked DRAM\nnext to the die\n\nNCCL\tcollectives\n", "\t", "\n\n"),
    ],
    ids=["tab", "dash", "semicolon", "comma", "double-semicolon-rows", "blank-line-rows"],
)
def test_quizlet_separators_are_detected(tmp_path: Path, text: str, term: str, row: str) -> None:
    path = _write(tmp_path, text)

    assert detect_separators(text) == Separators(term, row)
    assert sniff_text_format(text) == "csv"
    assert [front for front, _ in _cards(path)] == ["HBM", "NCCL"]


def test_a_definition_holding_the_separator_keeps_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "HBM - stacked DRAM - on package\nNCCL - collectives\n")

    assert _cards(path)[0] == ("HBM", "stacked DRAM - on package")


def test_multi_line_definitions_between_blank_lines_keep_their_lines(tmp_path: Path) -> None:
    path = _write(tmp_path, "HBM\tstacked DRAM\nnext to the die\n\nNCCL\tcollectives\n")

    source = read_csv(path)

    assert source.items[0].data["details"]["realistic_solution"] == (
        "stacked DRAM\nnext to the die"
    )
    assert [item.notes for item in source.items] == [(), ()]
    assert source.notes[-1].message == (
        "no header row: read as term/definition rows, tab between term and definition, "
        "blank-line between rows"
    )


def test_a_headerless_file_of_several_columns_gets_a_role_per_column(tmp_path: Path) -> None:
    rows = [
        "HBM\tstacked DRAM\tgpu memory\tHardware::Memory\tnext to the die",
        "NCCL\tcollectives library\tcomm gpu\tHardware::Memory\tfrom NVIDIA",
        "FSDP\tfully sharded data parallel\tparallelism\tHardware::Memory\t",
    ]
    path = _write(tmp_path, "\n".join(rows) + "\n", name="cards.tsv")

    source = read_csv(path)

    assert source.columns == {
        "column 1": "front",
        "column 2": "back",
        "column 3": "tags",
        "column 4": "deck",
        "column 5": "extra",
    }
    first = source.items[0].data
    assert first["question"] == "HBM"
    assert first["details"]["realistic_solution"] == "stacked DRAM\n\nnext to the die"
    assert (first["tags"], first["deck"]) == (["gpu", "memory"], "Hardware::Memory")
    assert source.deck == "Hardware::Memory"


def test_a_quoted_comma_table_without_header_keeps_quoted_commas(tmp_path: Path) -> None:
    path = _write(tmp_path, '"HBM, v3","stacked DRAM, on package"\nNCCL,collectives\n', "c.csv")

    assert _cards(path) == [("HBM, v3", "stacked DRAM, on package"), ("NCCL", "collectives")]


def test_quizlet_items_are_keyed_as_csv_cards_so_reimports_match(tmp_path: Path) -> None:
    quizlet = read_csv(_write(tmp_path, "HBM - stacked DRAM\nNCCL - collectives\n"))
    csv_file = read_csv(_write(tmp_path, "front,back\nHBM,x\nNCCL,y\n", "c.csv"))

    assert [i.key for i in quizlet.items] == [i.key for i in csv_file.items]


def test_rows_that_fit_no_separator_name_both_options(tmp_path: Path) -> None:
    path = _write(tmp_path, "just some words\nmore words\n")

    with pytest.raises(ImportFailed) as caught:
        read_csv(path, separators=Separators(row="\n"))

    assert str(caught.value) == (
        "'set.txt': cannot tell what separates term from definition on every row; give "
        "--sep (tab, comma, semicolon, dash or the text) and --row-sep (newline, "
        "semicolon, blank-line or the text)"
    )


@pytest.mark.parametrize(
    ("value", "separator"),
    [("tab", "\t"), ("Dash", " - "), ("\\t", "\t"), (";;", ";;"), ("blank-line", "\n\n")],
)
def test_separator_names_and_escapes_are_read(value: str, separator: str) -> None:
    assert parse_separator(value, option="--sep") == separator


def test_an_empty_separator_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="^--row-sep needs a separator"):
        parse_separator("", option="--row-sep")


def test_dash_rows_whose_definitions_hold_a_comma_are_not_a_comma_table(tmp_path: Path) -> None:
    path = _write(tmp_path, "HBM - stacked DRAM, on package\nNCCL - collectives, NVIDIA\n")

    assert _cards(path) == [("HBM", "stacked DRAM, on package"), ("NCCL", "collectives, NVIDIA")]
