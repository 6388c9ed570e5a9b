"""Reading typed answers as people write them (sysdrill.napkin.answers)."""

from __future__ import annotations

import pytest

from sysdrill.errors import ExpressionSyntax, UnitMismatch
from sysdrill.napkin import grade_numeric_answer
from sysdrill.napkin.answers import read_answer, typed_quantity_text


@pytest.mark.parametrize(
    ("typed", "unit", "expected", "value"),
    [
        ("about 7 GB, since fp16 is 2 bytes", "GB", 7, 7),
        ("I think ~7 GB", "GB", 7, 7),
        ("Answer: 14 GB", "GB", 14, 14),
        ("7B * 2 = 14 GB", "GB", 14, 14),
        ("~14GB (bf16)", "GB", 14, 14),
        ("140 GB of weights", "GB", 140, 140),
        ("3.6ms per token", "ms", 3.6, 3.6),
        ("1.9 seconds per step", "s", 1.9, 1.9),
        ("3.6 milliseconds", "ms", 3.6, 3.6),
        ("1.4 terabytes per second", "TB/s", 1.4, 1.4),
        ("7 GBs", "GB", 7, 7),
        ("7 gigs", "GB", 7, 7),
        ("14gb", "GB", 14, 14),
        ("1.4 TB/S", "TB/s", 1.4, 1.4),
        ("3 d", "days", 3, 3),
        ("3,6 ms", "ms", 3.6, 3.6),
        ("1 << 20", "", 1048576, 1048576),
        ("1/8 MiB", "KiB", 128, 128),
        ("1h 16m", "s", 4600, 4560),
        ("1:16:40", "s", 4600, 4600),
        ("one million", "", 1e6, 1e6),
        ("about a million per day", "requests/day", 1e6, 1e6),
        ("half a millisecond", "ms", 0.5, 0.5),
        ("sixty-four", "GPUs", 64, 64),
        ("three quarters", "%", 75, 75),
        ("0.33", "%", 33, 33),
        ("50 percent", "%", 50, 50),
        ("$1.80", "$/GPU-hour", 1.8, 1.8),
        ("1e6/day", "requests/day", 1e6, 1e6),
        ("7 GB per GPU", "GB", 7, 7),
        ("1M", "requests/day", 1e6, 1e6),
        ("128 k", "KiB", 128, 125),
    ],
)
def test_people_s_spellings_read_as_one_value(
    typed: str, unit: str, expected: float, value: float
) -> None:
    low, high = read_answer(typed, unit=unit, expected_value=expected)
    assert low == high == pytest.approx(value)


@pytest.mark.parametrize(
    "typed", ["> 14 GB", "at least 140 GB", "7 or 14 GB", "14 GB or 28 GB", "ms", "a lot", "7 GBB"]
)
def test_a_bound_alternatives_or_no_figure_give_no_value(typed: str) -> None:
    with pytest.raises(ExpressionSyntax):
        read_answer(typed, unit="GB", expected_value=14)


@pytest.mark.parametrize(
    ("typed", "unit"),
    [("170 GB", "GB/s"), ("64 nodes", "GPUs"), ("14 GB/s", "GB"), ("1.2e9 bytes", "tokens")],
)
def test_another_kind_of_quantity_stays_a_mismatch(typed: str, unit: str) -> None:
    with pytest.raises(UnitMismatch):
        read_answer(typed, unit=unit, expected_value=1)


@pytest.mark.parametrize(
    ("typed", "value"),
    [("781 steps", 781), ("about 8192 images", 8192), ("~14062 steps in all", 14062)],
)
def test_a_plain_number_may_be_followed_by_the_noun_it_counts(typed: str, value: float) -> None:
    assert read_answer(typed, unit="", expected_value=781.25) == (value, value)


def test_a_bare_figure_and_a_noun_still_need_the_unit_one_is_expected() -> None:
    with pytest.raises(ExpressionSyntax):
        read_answer("7 steps", unit="ms", expected_value=7)


def test_two_counted_values_are_read_and_graded_each() -> None:
    from dataclasses import dataclass

    from sysdrill.study.grading import grade_values, unreadable_values

    @dataclass(frozen=True)
    class Expected:
        value: float
        unit: str = ""

    expected = [Expected(781.25), Expected(14062.5)]
    for typed in ("781 and 14062 steps", "781 steps, 14062 steps"):
        assert unreadable_values(typed, expected) is None
        assert grade_values(typed, expected, tolerance=0.05).correct


def test_a_bare_fraction_is_a_percentage_only_against_one_above_one_percent() -> None:
    assert read_answer("0.5", unit="%", expected_value=50) == (50, 50)
    assert read_answer("0.5", unit="%", expected_value=0.5) == (0.5, 0.5)


def test_a_range_gives_its_two_ends_and_grades_by_middle_and_ends() -> None:
    assert read_answer("roughly 14-15 GB", unit="GB", expected_value=14) == (14, 15)

    def grade(typed: str) -> bool:
        return grade_numeric_answer(
            typed, expected_value=14, expected_unit="GB", tolerance=0.05
        ).correct

    assert grade("14-15 GB") and grade("13 to 15 GB")
    assert not grade("10-20 GB") and not grade("0-28 GB")


def test_typed_quantity_text_leaves_napkin_notation_alone() -> None:
    assert typed_quantity_text("131,072 B") == "131,072 B"
    assert typed_quantity_text("1 million requests per day") == "1e6 requests/day"
    assert typed_quantity_text("1.5 per cent") == "1.5%"
