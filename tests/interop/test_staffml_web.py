from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from sysdrill.content.models import validate_item
from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.staffml_web import read_staffml_web, rebuild_yaml

SEED_FIELDS = (
    "schema_version",
    "track",
    "level",
    "zone",
    "topic",
    "competency_area",
    "bloom_level",
    "phase",
    "title",
    "scenario",
    "question",
    "details",
    "status",
    "provenance",
    "requires_explanation",
    "expected_time_minutes",
    "validated",
    "validation_status",
    "validation_date",
    "validation_model",
    "math_verified",
    "math_status",
    "math_date",
    "math_model",
    "human_reviewed",
)
MARKERS = ("**The Pitfall:**", "**The Rationale:**", "**The Consequence:**")


@pytest.mark.parametrize(
    ("name", "item_id"),
    [("000_f94b88cb3c630d3c.txt", "cloud-1013"), ("001_2a349a237ce54e38.txt", "cloud-2152")],
)
def test_seed_rebuilds_every_field(seeds_dir: Path, name: str, item_id: str) -> None:
    source = read_staffml_web(seeds_dir / name)
    [item] = source.items
    assert item.key == item_id and item.preferred_id == item_id
    for key in SEED_FIELDS:
        assert key in item.data, key
    details = item.data["details"]
    assert set(details) == {"realistic_solution", "common_mistake", "napkin_math"}
    assert all(marker in details["common_mistake"] for marker in MARKERS)
    napkin = details["napkin_math"]
    assert "**Calculations:**" in napkin and "Assumptions" in napkin and "Conclusion" in napkin
    assert item.data["human_reviewed"] == {
        "status": "not-reviewed",
        "by": None,
        "date": None,
        "notes": None,
    }
    assert validate_item({"id": item_id, **item.data}).details.common_mistake is not None


def test_seed_000_keeps_created_at_and_block_lines(seeds_dir: Path) -> None:
    raw = (seeds_dir / "000_f94b88cb3c630d3c.txt").read_text("utf-8")
    [item] = read_staffml_web(seeds_dir / "000_f94b88cb3c630d3c.txt").items
    stamp = re.search(r"^created_at: '(.+)'$", raw, re.MULTILINE)
    assert stamp is not None and item.data["created_at"] == stamp.group(1)
    napkin_lines = item.data["details"]["napkin_math"].splitlines()
    assert napkin_lines[0] == "**Assumptions & Constraints:**"
    assert len(napkin_lines) == 11
    assert "\n".join(napkin_lines) in raw
    assert item.data["expected_time_minutes"] == 12


def test_seed_001_keeps_unicode_and_doubled_quote(seeds_dir: Path) -> None:
    [item] = read_staffml_web(seeds_dir / "001_2a349a237ce54e38.txt").items
    solution = item.data["details"]["realistic_solution"]
    assert "6×10⁻⁵" in solution and "2¹⁶" in solution  # the README's examples
    assert "''" not in solution and "FP16's" in solution


def test_seed_notes_that_the_structure_was_rebuilt(seeds_dir: Path) -> None:
    source = read_staffml_web(seeds_dir / "001_2a349a237ce54e38.txt")
    [note] = source.notes
    assert "flattened" in note.message and "rebuilt" in note.message
    assert "dropped 26 lines of page chrome" in note.message
    assert note.location == "001_2a349a237ce54e38.txt:27"


def test_rebuild_indents_children_and_blocks() -> None:
    flat = (
        "Header chrome\n"
        "id: edge-7\n"
        "question: Why?\n"
        "details:\n"
        "realistic_solution: |\n"
        "first line\n"
        "  indented line\n"
        "napkin_math: |\n"
        "**Calculations:**\n"
        "- 2 * 3 = 6\n"
        "status: draft\n"
        "tags:\n"
        "- a\n"
        "- b\n"
        "human_reviewed:\n"
        "status: verified\n"
        "by: ana\n"
    )
    rebuilt, origin, skipped, guessed = rebuild_yaml(flat)
    data = yaml.safe_load(rebuilt)
    assert skipped == 1 and guessed == []
    assert data["details"] == {
        "realistic_solution": "first line\n  indented line\n",
        "napkin_math": "**Calculations:**\n- 2 * 3 = 6\n",
    }
    assert data["status"] == "draft" and data["tags"] == ["a", "b"]
    assert data["human_reviewed"] == {"status": "verified", "by": "ana"}
    assert origin[0] == 2


def test_rebuild_keeps_multiline_quoted_scalar() -> None:
    rebuilt, *_ = rebuild_yaml("id: edge-7\nquestion: 'It''s long\nand wraps?'\nstatus: draft\n")
    data = yaml.safe_load(rebuilt)
    assert data["question"] == "It's long and wraps?"
    assert data["status"] == "draft"


def test_rebuild_places_unknown_field_and_reports_it() -> None:
    rebuilt, _, _, guessed = rebuild_yaml("id: edge-7\nreviewer_score: 4\nstatus: draft\n")
    assert yaml.safe_load(rebuilt)["reviewer_score"] == 4
    assert guessed == [2]


def test_copy_without_a_question_fails(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    path.write_text("Files\nNothing here but chrome\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match="no StaffML question found"):
        read_staffml_web(path)


def test_unrebuildable_copy_names_the_source_line(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    path.write_text("chrome\nid: edge-7\nquestion: [unclosed\nstatus: draft\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match=r"^page\.txt:\d+: cannot rebuild the flattened YAML"):
        read_staffml_web(path)


FULL_ITEM = {
    "schema_version": "1.0",
    "id": "edge-3",
    "track": "edge",
    "question": "Which option is right?",
    "details": {
        "realistic_solution": "First line.\n  - indented bullet\nLast line.\n",
        "options": ["a", "b: with a colon", "c", "d"],
        "correct_index": 1,
        "resources": [
            {"name": "Guide", "url": "https://example.org/a"},
            {"name": "Paper", "url": "https://example.org/b"},
        ],
    },
    "tags": ["t1", "t2"],
    "human_reviewed": {"status": "verified", "by": "ana"},
    "parts": [
        {"label": "a", "text": "Part text\n- a bullet: with colon\nend"},
        {"label": "b", "text": "Short.", "answer": "Two\nlines"},
    ],
    "created_at": "2026-01-02",
}


@pytest.mark.parametrize("flatten", [False, True])
def test_rebuild_round_trips_lists_of_mappings_and_blocks(flatten: bool) -> None:
    from sysdrill.interop.vault_writer import dump_yaml

    text = dump_yaml(FULL_ITEM)
    if flatten:
        text = "\n".join(line.lstrip() for line in text.splitlines())
    rebuilt, *_ = rebuild_yaml("Page chrome\n" + text)
    expected = FULL_ITEM
    if flatten:
        # Flattening loses the bullet's own indentation; nothing else.
        details = {
            **FULL_ITEM["details"],
            "realistic_solution": "First line.\n- indented bullet\nLast line.\n",
        }
        expected = {**FULL_ITEM, "details": details}
    assert yaml.safe_load(rebuilt) == expected
