"""JSON shared files parse with findings for errors, and fields are located by line."""

from __future__ import annotations

from pathlib import Path

from sysdrill.content.json_source import JsonLocator, parse_json

CHAINS = """[
  {
    "chain_id": "a",
    "questions": [
      {"id": "cloud-1", "level": "L1"},
      {"id": "cloud-2", "level": "L2"}
    ]
  },
  {"chain_id": "b", "questions": []}
]
"""


def test_valid_json_parses_without_findings() -> None:
    raw, findings = parse_json(CHAINS.encode(), "chains.json")
    assert findings == []
    assert [chain["chain_id"] for chain in raw] == ["a", "b"]


def test_invalid_json_is_one_finding_at_its_line_and_column() -> None:
    # Two strings with no comma between them: every supported Python reports the same
    # place (a trailing comma is placed at the comma from 3.13 on, at the brace before).
    raw, findings = parse_json(b'[\n  {"chain_id": "a" "b"}\n]\n', "chains.json")
    assert raw is None
    assert [(f.code, f.path, f.line, f.column) for f in findings] == [
        ("json-syntax", "chains.json", 2, 20)
    ]


def test_fields_are_found_at_their_key_or_element(tmp_path: Path) -> None:
    path = tmp_path / "chains.json"
    path.write_text(CHAINS, encoding="utf-8")
    locator = JsonLocator(path)
    assert locator.locate((0, "chain_id")) == (3, 5)
    assert locator.locate((0, "questions", 1, "level")) == (6, 25)
    assert locator.locate((1, "chain_id")) == (9, 4)
    assert locator.locate((1,)) == (9, 3)


def test_a_missing_field_points_at_its_nearest_parent(tmp_path: Path) -> None:
    path = tmp_path / "chains.json"
    path.write_text(CHAINS, encoding="utf-8")
    assert JsonLocator(path).locate((0, "questions", 7, "id")) == (4, 5)
    assert JsonLocator(path).locate((5, "chain_id")) == (1, 1)


def test_an_unreadable_or_broken_file_points_at_its_start(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[{"chain_id": ', encoding="utf-8")
    assert JsonLocator(broken).locate((0, "chain_id")) == (1, 1)
    assert JsonLocator(tmp_path / "missing.json").locate((0,)) == (1, 1)
