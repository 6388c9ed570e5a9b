"""Cloze text: one card per number, hints, nesting and repeats as Anki shows them."""

from __future__ import annotations

from sysdrill.interop.cloze import cloze_numbers, has_cloze, parse_cloze, render_cloze

TEXT = "{{c1::NCCL}} runs {{c2::all-reduce::collective}} over {{c3::NVLink {{c1::and}} IB}}"


def test_cloze_numbers_are_distinct_and_include_nested_blanks() -> None:
    assert cloze_numbers(parse_cloze(TEXT)) == [1, 2, 3]


def test_card_hides_its_blanks_and_fills_the_others() -> None:
    cloze = parse_cloze(TEXT)

    assert render_cloze(cloze, card=1) == "[...] runs all-reduce over NVLink [...] IB"
    assert render_cloze(cloze, card=2) == "NCCL runs [collective] over NVLink and IB"
    assert render_cloze(cloze, card=3) == "NCCL runs all-reduce over [...]"


def test_answer_side_marks_the_asked_blank_in_bold() -> None:
    assert render_cloze(parse_cloze(TEXT), card=2, reveal=True) == (
        "NCCL runs **all-reduce** over NVLink and IB"
    )


def test_unclosed_blank_stays_text() -> None:
    cloze = parse_cloze("broken {{c1::blank")

    assert has_cloze("broken {{c1::blank")
    assert cloze_numbers(cloze) == []
    assert render_cloze(cloze, card=1) == "broken {{c1::blank"
