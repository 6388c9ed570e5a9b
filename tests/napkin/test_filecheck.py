"""Checking whole documents: plain text and vault item files with YAML line numbers."""

from __future__ import annotations

import pytest

from sysdrill.errors import ContentInvalid
from sysdrill.napkin.filecheck import MAX_DOCUMENT_BYTES, check_document

ITEM = """\
id: q-1
title: Test
details:
  realistic_solution: 'Use 2¹⁶ = 65536 and 2 * 3 = 7.'
  napkin_math: |
    **Calculations:**
    - Per-GPU Batch = 2048 / 128 = 16.
    - Total = 128 GPUs * 4 * 4 = 2000.
parts:
- label: (a)
  text: How many?
  answer: >-
    It is 6 * 7 = 43 in total.
"""


def test_item_file_verdicts_point_at_yaml_lines() -> None:
    result = check_document(ITEM, source="item.yaml")
    assert result.kind == "item"
    judged = [
        (v.field, v.verdict.line, v.verdict.claim, v.verdict.verdict.value)
        for v in result.verdicts
        if v.verdict.verdict.value != "skipped"
    ]
    assert judged == [
        ("details.realistic_solution", 4, "2^16 = 65536", "ok"),
        ("details.realistic_solution", 4, "2 * 3 = 7", "wrong"),
        ("details.napkin_math", 7, "2048 / 128 = 16", "ok"),
        ("details.napkin_math", 8, "128 GPUs * 4 * 4 = 2000", "wrong"),
        ("parts.0.answer", 13, "6 * 7 = 43", "wrong"),
    ]
    assert result.has_errors
    assert result.counts["wrong"] == 3


def test_plain_text_keeps_its_own_line_numbers() -> None:
    result = check_document("intro\n\n2 * 3 = 6\n", source="notes.md")
    assert result.kind == "text"
    assert [(v.verdict.line, v.verdict.verdict.value) for v in result.verdicts] == [(3, "ok")]
    assert not result.has_errors


def test_yaml_that_is_not_an_item_is_checked_as_text() -> None:
    result = check_document("- 2 * 3 = 6\n", source="list.yaml")
    assert result.kind == "text"


def test_invalid_yaml_names_the_line_and_the_way_out() -> None:
    with pytest.raises(ContentInvalid, match=r"^bad\.yaml:2: invalid YAML .*--text$"):
        check_document("a: [1,\nb: }\n", source="bad.yaml")


def test_text_mode_reads_a_yaml_file_as_plain_text() -> None:
    result = check_document("a: [1,\n2 * 3 = 7\n", source="bad.yaml", as_yaml=False)
    assert [v.verdict.verdict.value for v in result.verdicts] == ["wrong"]


def test_oversized_documents_are_refused() -> None:
    with pytest.raises(ContentInvalid, match="larger than 4 MiB"):
        check_document("x" * (MAX_DOCUMENT_BYTES + 1), source="big.txt")


def test_document_json_shape() -> None:
    data = check_document("2 * 3 = 7", source="-").to_dict()
    assert data["source"] == "-"
    assert data["kind"] == "text"
    assert data["counts"]["wrong"] == 1
    assert data["claims"][0]["field"] == ""
    assert data["claims"][0]["verdict"] == "wrong"
