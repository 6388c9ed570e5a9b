"""The starter vault's parametric items: enough of them, and every draw sound (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.content.loader import load_vault
from sysdrill.content.models import DEFAULT_ANSWER_TOLERANCE, Item
from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.grading import example_answer, grade_numeric_answer
from sysdrill.napkin.results import Verdict
from sysdrill.napkin.templates import audit_draw, draw_template

STARTER_VAULT = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"
MIN_TEMPLATES = 25
DRAWS = 200
MIN_NAPKIN_CLAIMS = 3


@pytest.fixture(scope="module")
def templates() -> list[Item]:
    return [item for item in load_vault(STARTER_VAULT).items if item.is_template]


def test_the_vault_has_enough_templates(templates: list[Item]) -> None:
    assert len(templates) >= MIN_TEMPLATES


def test_every_template_passes_many_draws(templates: list[Item]) -> None:
    problems = [p for item in templates for seed in range(DRAWS) for p in audit_draw(item, seed)]
    assert problems == []


def test_every_draw_checks_three_napkin_claims_and_skips_none(templates: list[Item]) -> None:
    for item in templates:
        for seed in range(10):
            drawn = draw_template(item, seed).item
            verdicts = check_claims(drawn.details.napkin_math or "")
            assert [v.claim for v in verdicts if v.verdict is not Verdict.OK] == [], item.id
            assert len(verdicts) >= MIN_NAPKIN_CLAIMS, item.id


def test_two_draws_show_different_numbers_and_both_grade_correctly(
    templates: list[Item],
) -> None:
    for item in templates:
        first, second = draw_template(item, 1), draw_template(item, 2)
        others = [draw_template(item, seed) for seed in range(3, 40)]
        differing = next(d for d in [second, *others] if d.values != first.values)
        assert (differing.item.scenario, differing.item.question) != (
            first.item.scenario,
            first.item.question,
        ), item.id
        for draw in (first, differing):
            assert draw.item.answer_unit is not None
            tolerance = item.answer_tolerance or DEFAULT_ANSWER_TOLERANCE
            typed = example_answer(draw.answer_value, draw.item.answer_unit)
            grade = grade_numeric_answer(
                typed,
                expected_value=draw.answer_value,
                expected_unit=draw.item.answer_unit,
                tolerance=tolerance,
            )
            assert grade.correct, (item.id, typed)
