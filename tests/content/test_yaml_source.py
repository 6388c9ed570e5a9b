"""YAML reading: fast and careful roads agree, hostile text becomes findings, lines are found."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.content.yaml_source import MAX_DEPTH, Locator, _parse_careful, locate, parse_yaml

ITEM = (
    Path(__file__).resolve().parents[1]
    / "check"
    / "fixtures"
    / "valid"
    / "questions"
    / "cloud"
    / "cloud-0001.yaml"
)


def _codes(data: bytes) -> list[tuple[str, int, int]]:
    return [(f.code, f.line, f.column) for f in parse_yaml(data, "f.yaml")[1]]


def test_fast_and_careful_roads_read_the_same_data() -> None:
    data = ITEM.read_bytes()
    fast, found = parse_yaml(data, "x")
    assert found == []
    assert fast == yaml.safe_load(data)
    # A tag sends the file down the careful (libyaml) road.
    careful, found = parse_yaml(data + b"note: !!str tagged\n", "x")
    assert found == []
    assert careful == {**fast, "note": "tagged"}


def test_prose_ampersands_and_bangs_stay_valid() -> None:
    text = b"title: R&D costs & more!\nscenario: 'Wow!  & then'\n"
    assert parse_yaml(text, "x") == (
        {"title": "R&D costs & more!", "scenario": "Wow!  & then"},
        [],
    )


def test_duplicate_key_is_reported_with_its_line() -> None:
    assert _codes(b"a: 1\nb:\n  c: 1\n  c: 2\n") == [("yaml-duplicate-key", 4, 3)]


def test_anchor_and_alias_are_reported() -> None:
    assert _codes(b"a: &x 1\nb: *x\n") == [("yaml-anchor", 1, 4), ("yaml-anchor", 2, 4)]


def test_several_documents_are_a_syntax_error() -> None:
    assert _codes(b"a: 1\n---\nb: 2\n") == [("yaml-syntax", 2, 1)]


def test_top_level_list_is_data_not_an_error_of_the_parser() -> None:
    assert parse_yaml(b"- a\n- b\n", "x") == (["a", "b"], [])


def test_syntax_error_has_line_and_column() -> None:
    assert _codes(b"a: 1\n b: 2\n") == [("yaml-syntax", 2, 3)]


def test_ten_thousand_nested_brackets_give_a_finding() -> None:
    assert _codes(b"[" * 10_000 + b"]" * 10_000) == [("yaml-syntax", 1, 51)]
    assert _codes(b"a: " + b"{b: " * 10_000 + b"1" + b"}" * 10_000)[0][0] == "yaml-syntax"


def test_python_object_tags_are_refused() -> None:
    data, found = parse_yaml(b"x: !!python/object/apply:os.system [ls]\n", "x")
    assert data is None and [f.code for f in found] == ["yaml-syntax"]


def test_binary_and_non_utf8_bytes_are_not_text() -> None:
    assert _codes(b"\x89PNG\r\n\x1a\n\x00\x00") == [("file-not-text", 1, 1)]
    assert _codes(b"id: a\ntitle: caf\xe9\n") == [("file-not-text", 2, 11)]


def test_byte_order_mark_is_accepted() -> None:
    assert parse_yaml(b"\xef\xbb\xbfid: a\n", "x") == ({"id": "a"}, [])


def test_locate_finds_nested_fields_and_falls_back_to_parents() -> None:
    assert locate(ITEM, ("level",)) == (4, 1)
    assert locate(ITEM, ("details", "napkin_math")) == (21, 3)
    assert locate(ITEM, ("details", "missing")) == (13, 1)
    assert locate(ITEM.parent / "absent.yaml", ("id",)) == (1, 1)


def test_locator_points_inside_block_scalars() -> None:
    locator = Locator(ITEM)
    assert locator.locate(("details", "napkin_math"), needle="**Calculations:**") == (24, 5)
    assert locator.locate(("details", "common_mistake"), needle="not there") == (17, 3)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_give_data_or_findings_never_an_exception(data: bytes) -> None:
    parsed, found = parse_yaml(data, "f.yaml")
    assert all(f.path == "f.yaml" and f.line >= 0 and f.column >= 0 for f in found)
    if any(f.code in {"yaml-syntax", "file-not-text"} for f in found):
        assert parsed is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab:- \n[]{}&*!'\"#|>?,%@`\t", max_size=80))
def test_yaml_like_text_never_raises(text: str) -> None:
    parse_yaml(text.encode("utf-8"), "f.yaml")


def _block_nesting(levels: int) -> bytes:
    """``levels`` mappings, each indented one column more, around one scalar."""
    lines = [" " * depth + f"k{depth}:" for depth in range(levels)]
    return ("\n".join(lines) + "\n" + " " * levels + "leaf\n").encode()


@pytest.mark.parametrize(
    "text",
    [
        b"a: " + b"[" * 49 + b"]" * 49,
        b"a: " + b"[" * 50 + b"]" * 50,
        b"a: " + b"{b: " * 49 + b"1" + b"}" * 49,
        b"a: " + b"{b: " * 50 + b"1" + b"}" * 50,
        _block_nesting(50),
        _block_nesting(51),
    ],
    ids=["flow-50", "flow-51", "map-50", "map-51", "block-50", "block-51"],
)
def test_depth_limit_is_the_same_on_both_roads(text: bytes) -> None:
    fast = [f.code for f in parse_yaml(text, "x")[1]]
    careful = [f.code for f in _parse_careful(text.decode(), "x")[1]]
    assert fast == careful
    levels = 1 + max(text.count(b"["), text.count(b"{"), text.count(b":") - 1)
    assert fast == (["yaml-syntax"] if levels > MAX_DEPTH else [])


def test_brackets_inside_quotes_and_comments_do_not_count_as_nesting() -> None:
    text = b'a: "' + b"[" * 80 + b'"  # ' + b"{" * 80 + b"\n"
    assert parse_yaml(text, "x") == ({"a": "[" * 80}, [])
