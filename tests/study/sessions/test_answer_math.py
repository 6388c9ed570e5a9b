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


def test_doubts_about_a_claim_are_not_shown_to_the_learner():
    # A prefix doubt: right only if GB means GiB. `check` tells the author; the
    # learner is told nothing rather than told that right working is wrong.
    assert claim_lines("16 GB = 16 GiB") == []
    assert claim_lines("16 GB = 16 GiB; 2 * 2 GB = 4 GB") == ["Your math: 2 * 2 GB = 4 GB: right."]
