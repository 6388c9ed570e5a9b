"""Numbers beyond the float range are refused by name; no infinity or NaN is shown.

``1e400`` does not fit a float (the largest is about 1.8e308): the calculator says
so in one line, the grader asks for the answer again, and the claim checker skips
the line. Arithmetic that leaves the range (``1e300 GB * 1e300``) is refused too.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sysdrill.errors import ExpressionSyntax
from sysdrill.napkin import Verdict, check_claims
from sysdrill.napkin.expression import evaluate
from sysdrill.napkin.grading import grade_numeric_answer, unreadable_answer


@pytest.mark.parametrize("expression", ["1e400 GB", "1e400 GB - 1e400 GB", "1e400", "2 * 1e400"])
def test_calc_names_a_number_too_large_in_one_error_line(run_cli, expression: str) -> None:
    result = run_cli("calc", expression)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "Error: number too large: 1e400\n"


@pytest.mark.parametrize(
    "expression", ["1e300 GB * 1e300", "1e308 * 10", "1e200 / 1e-200", "2^2000"]
)
def test_calc_refuses_arithmetic_that_leaves_the_float_range(run_cli, expression: str) -> None:
    result = run_cli("calc", expression)
    assert result.exit_code == 1
    assert result.stderr == f"Error: {expression!r} gives a result too large to compute\n"


def test_a_result_that_returns_into_range_is_still_refused() -> None:
    # inf / 10 would be inf again, and inf - inf NaN: the first overflow ends it.
    with pytest.raises(ExpressionSyntax, match="too large"):
        evaluate("1e308 * 10 / 10")


def test_a_tiny_number_rounds_to_zero_rather_than_failing() -> None:
    assert evaluate("1e-400 GB").v == 0.0


@pytest.mark.parametrize("digits", [400, 1500, 5000])
def test_the_grader_asks_again_for_a_whole_number_with_hundreds_of_digits(digits: int) -> None:
    answer = "1" + "0" * digits + " GB"
    grade = grade_numeric_answer(answer, expected_value=12.0, expected_unit="GB", tolerance=0.1)
    assert not grade.correct
    assert grade.given_value is None
    assert "inf" not in grade.message and "nan" not in grade.message


@pytest.mark.parametrize("answer", ["1e400 GB", "1e400", "1e400 k", "1e300 GB * 1e300"])
def test_the_grader_asks_again_for_an_answer_too_large_to_read(answer: str) -> None:
    grade = grade_numeric_answer(answer, expected_value=12.0, expected_unit="GB", tolerance=0.1)
    assert not grade.correct
    assert grade.given_value is None
    assert grade.message.startswith(f"Could not read {answer!r} as a number")
    assert "inf" not in grade.message and "nan" not in grade.message
    assert unreadable_answer(answer, expected_value=12.0, expected_unit="GB") == grade.message


def test_the_grader_refuses_a_value_that_overflows_in_the_expected_unit() -> None:
    # 1e308 s is a float; in milliseconds it would be 1e311, which is not.
    grade = grade_numeric_answer("1e308 s", expected_value=5.0, expected_unit="ms", tolerance=0.1)
    assert grade.given_value is None
    assert grade.message.startswith("Could not read '1e308 s'")


def test_the_grader_reports_a_huge_but_finite_range_by_its_middle() -> None:
    grade = grade_numeric_answer(
        "1.5e308-1.7e308", expected_value=12.0, expected_unit="", tolerance=0.1
    )
    assert grade.given_value == pytest.approx(1.6e308)
    assert grade.message.startswith("Not quite: 1.6e308")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("Budget: 1e400 GB = 1e400 GB", "number too large: 1e400"),
        ("Scale-up: 1e300 GB * 1e300 = 5 GB", "overflow"),
    ],
)
def test_the_checker_skips_a_claim_beyond_the_float_range(line: str, reason: str) -> None:
    (verdict,) = check_claims(line)
    assert verdict.verdict is Verdict.SKIPPED
    assert verdict.computed is None
    assert reason in verdict.message


@given(exponent=st.integers(min_value=309, max_value=9999))
def test_every_literal_beyond_the_range_is_named(exponent: int) -> None:
    with pytest.raises(ExpressionSyntax, match=f"^number too large: 1e{exponent}$"):
        evaluate(f"1e{exponent} GB")


FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@given(left=FINITE, right=FINITE, op=st.sampled_from(["*", "/", "+", "-"]))
def test_arithmetic_gives_a_finite_value_or_refuses(left: float, right: float, op: str) -> None:
    try:
        value = evaluate(f"({left!r} GB) {op} ({right!r} GB)")
    except ExpressionSyntax as exc:
        assert "too large" in str(exc) or "division by zero" in str(exc)
        return
    assert math.isfinite(value.v)
