"""Template draws: pure in (template, seed), constrained, rendered with units, audited."""

from __future__ import annotations

from typing import Any

import pytest

from sysdrill.content.models import Item, validate_item
from sysdrill.errors import ContentInvalid
from sysdrill.napkin.templates import audit_draw, draw_seed, draw_template

NAPKIN = (
    "**Calculations:**\n"
    "- Volume: 2 × ({ranks} − 1)/{ranks} × {message} = {volume}\n"
    "- Time: {volume} / ({bandwidth}) = {answer}\n"
)


def _template(**changes: Any) -> Item:
    data: dict[str, Any] = {
        "id": "cloud-9000",
        "format": "numeric",
        "question": "How long does an all-reduce of {message} over {ranks} GPUs take?",
        "parameters": {
            "ranks": {"choices": [2, 4, 8, 16]},
            "message": {"min": 1, "max": 9, "step": 2, "unit": "GB"},
            "bandwidth": {"choices": [50, 100], "unit": "GB/s"},
        },
        "constraints": ["ranks >= 4"],
        "derived": {"volume": {"expr": "2 * ({ranks} - 1) / {ranks} * {message}", "unit": "GB"}},
        "answer_expr": "{volume} / {bandwidth}",
        "answer_unit": "ms",
        "details": {"napkin_math": NAPKIN},
    }
    data.update(changes)
    return validate_item(data)


def test_a_template_needs_no_answer_value_and_says_it_is_one() -> None:
    item = _template()
    assert item.is_template and item.answer_value is None


def test_the_same_seed_draws_the_same_numbers_and_others_differ() -> None:
    item = _template()
    assert draw_template(item, 5).to_dict() == draw_template(item, 5).to_dict()
    assert len({tuple(draw_template(item, s).values.items()) for s in range(30)}) > 5


def test_a_draw_keeps_its_constraints_steps_and_computes_the_answer_in_its_unit() -> None:
    item = _template()
    for seed in range(50):
        draw = draw_template(item, seed)
        ranks, message = draw.values["ranks"], draw.values["message"]
        assert ranks >= 4 and message in (1, 3, 5, 7, 9)
        expected_ms = 2 * (ranks - 1) / ranks * message / draw.values["bandwidth"] * 1000
        assert draw.answer_value == pytest.approx(expected_ms)


def test_the_rendered_item_shows_the_numbers_with_units_and_is_an_ordinary_numeric_item() -> None:
    draw = draw_template(_template(), 1)
    rendered = draw.item
    assert rendered.question == (
        f"How long does an all-reduce of {draw.values['message']:g} GB over "
        f"{draw.values['ranks']:g} GPUs take?"
    )
    assert rendered.answer_value == draw.answer_value
    assert not rendered.is_template and rendered.answer_expr is None
    assert "{" not in (rendered.details.napkin_math or "")


def test_a_sound_template_passes_the_audit_of_many_draws() -> None:
    item = _template()
    assert [p for seed in range(100) for p in audit_draw(item, seed)] == []


def test_a_wrong_napkin_line_is_reported_for_the_draw() -> None:
    item = _template(details={"napkin_math": NAPKIN + "- Double: 2 × {volume} = {volume}\n"})
    problems = audit_draw(item, 0)
    assert [p.field for p in problems] == [("details", "napkin_math")]
    assert str(problems[0]).startswith("seed 0: napkin_math: ")
    assert ": wrong: " in str(problems[0])


def test_constraints_that_cannot_be_met_are_reported() -> None:
    with pytest.raises(ContentInvalid, match="meets its constraints"):
        draw_template(_template(constraints=["ranks > 100"]), 0)


def test_an_answer_in_the_wrong_dimension_is_reported() -> None:
    with pytest.raises(ContentInvalid, match="answer_expr is not in 'ms'"):
        draw_template(_template(answer_expr="{volume}"), 0)


def test_an_unknown_placeholder_is_reported() -> None:
    problems = audit_draw(_template(question="How long over {nodes} nodes?"), 0)
    assert [str(p) for p in problems] == [
        "seed 0: placeholder {nodes} is not a parameter or derived value"
    ]


def test_constraints_allow_arithmetic_only() -> None:
    with pytest.raises(ContentInvalid, match="not allowed"):
        draw_template(_template(constraints=["__import__('os')"]), 0)


def test_a_session_seed_gives_each_item_its_own_stable_seed() -> None:
    assert draw_seed(1, "cloud-4000") == draw_seed(1, "cloud-4000")
    assert draw_seed(1, "cloud-4000") != draw_seed(1, "cloud-4001")


def test_a_calculator_answer_is_converted_to_the_answer_unit() -> None:
    calculator = {
        "name": "ring-allreduce",
        "inputs": {"ranks": "{ranks}", "message": "{message}", "bandwidth": "{bandwidth}"},
        "output": "time",
    }
    item = _template(answer_expr=None, answer_calculator=calculator)
    for seed in range(20):
        draw = draw_template(item, seed)
        expected = draw_template(_template(), seed).answer_value
        assert draw.answer_value == pytest.approx(expected)


def test_a_calculator_output_that_does_not_exist_is_reported() -> None:
    calculator = {"name": "ring-allreduce", "inputs": {"ranks": "{ranks}"}, "output": "speed"}
    with pytest.raises(ContentInvalid, match="ring-allreduce"):
        draw_template(_template(answer_expr=None, answer_calculator=calculator), 0)
