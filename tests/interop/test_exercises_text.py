from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from sysdrill.content.models import validate_item
from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.exercises_text import read_exercises_text

SEED = "003_e725e3b7f745518c.txt"
SECTION_SIZES = (4, 3, 4, 3, 3, 2, 3, 5)
"""Exercises per section, in the order of the seed."""


def test_seed_has_27_exercises_in_8_sections(seeds_dir: Path) -> None:
    raw_lines = (seeds_dir / SEED).read_text("utf-8").splitlines()
    source = read_exercises_text(seeds_dir / SEED)
    assert source.deck == raw_lines[0]
    assert len(source.items) == 27
    sections = [item.data["section"] for item in source.items]
    names = tuple(dict.fromkeys(sections))
    assert len(names) == 8
    assert tuple(Counter(sections)[name] for name in names) == SECTION_SIZES
    assert names[0] == "Data Parallelism and Gradient Synchronization"  # the README's example
    for name in names:
        heading = raw_lines.index(name)
        assert raw_lines[heading + 1].startswith("Exercise ")
    for item in source.items:
        assert item.data["tags"] == [item.data["section"]]
        assert item.data["format"] == "exercise"
        assert item.data["has_reference_answer"] is False


def test_seed_stars_give_difficulty_and_level(seeds_dir: Path) -> None:
    items = read_exercises_text(seeds_dir / SEED).items
    by_key = {item.key.rsplit("-", 1)[1]: item.data for item in items}
    assert (by_key["26.1"]["difficulty"], by_key["26.1"]["level"]) == (1, "L3")
    assert (by_key["26.3"]["difficulty"], by_key["26.3"]["level"]) == (2, "L4")
    assert (by_key["26.7"]["difficulty"], by_key["26.7"]["level"]) == (3, "L5")
    assert (by_key["26.26"]["difficulty"], by_key["26.26"]["level"]) == (4, "L6+")
    assert Counter(item.data["difficulty"] for item in items) == {1: 9, 2: 12, 3: 4, 4: 2}


def test_seed_sub_parts_are_structure(seeds_dir: Path) -> None:
    raw = (seeds_dir / SEED).read_text("utf-8")
    items = read_exercises_text(seeds_dir / SEED).items
    first = items[0].data
    assert [part["label"] for part in first["parts"]] == ["a", "b", "c"]
    for part in first["parts"]:
        assert f"({part['label']}) {part['text']}" in raw
    assert "(a)" not in first["question"]
    assert "Exercise 26.1 (*)\n" + first["question"] + "\n(a) " in raw
    assert sum("parts" in item.data for item in items) == 17
    # "(a) ... (b) ..." inside a sentence is text, not parts.
    assert "parts" not in items[7].data
    assert re.search(r"\(a\) .*\(b\) .*\(c\) ", items[7].data["question"])


def test_seed_markdown_table_is_intact(seeds_dir: Path) -> None:
    items = read_exercises_text(seeds_dir / SEED).items
    question = items[14].data["question"]
    lines = question.splitlines()
    table = [line for line in lines if line.startswith("|")]
    assert len(table) == 5
    assert table[1] == "|---|---|---|---|"
    assert all(line.count("|") == 5 for line in table)


def test_seed_items_validate(seeds_dir: Path) -> None:
    for number, item in enumerate(read_exercises_text(seeds_dir / SEED).items, 1):
        validate_item({"id": f"global-exercise-{number}", **item.data})


def test_exercise_header_title_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "ex.txt"
    path.write_text(
        "Set 1\nBasics\nExercise 1.1 (**) Ring Cost\nCompute it.\n(a) For N=2.\n",
        encoding="utf-8",
    )
    [item] = read_exercises_text(path).items
    assert item.data["title"] == "Ring Cost"
    assert item.data["section"] == "Basics"
    assert item.data["parts"] == [{"label": "a", "text": "For N=2."}]


def test_text_without_exercises_fails(tmp_path: Path) -> None:
    path = tmp_path / "ex.txt"
    path.write_text("Nothing\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="has no 'Exercise N"):
        read_exercises_text(path)
