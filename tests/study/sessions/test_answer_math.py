"""Napkin math in typed answers, marked right or wrong."""

from __future__ import annotations

from sysdrill.study.sessions.answer_math import claim_lines


def test_each_checkable_claim_is_marked_and_prose_is_left_out():
    assert claim_lines("80 GB / 2 TB/s = 40 ms; 8 * 4 KiB = 64 KiB; speed = fast") == [
        "Your math: 80 GB / 2 TB/s = 40 ms: right.",
        "Your math: 8 * 4 KiB = 64 KiB: wrong "
        "(expected 32 KiB from 8 * 4 KiB; the line says 64 KiB).",
    ]


def test_an_answer_without_math_has_no_lines():
    assert claim_lines("the pipeline bubble shrinks with more micro-batches") == []
