"""Pipeline bubbles against GPipe (Huang et al. 2019) and Megatron-LM (Narayanan et al. 2021)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import describe
from sysdrill.napkin.calculators.pipeline import (
    BubbleMeasure,
    Schedule,
    micro_batches_for_bubble,
    pipeline_bubble,
)


def test_gpipe_bubble_fraction() -> None:
    # GPipe §2.3: bubble O((K-1)/(M+K-1)); K = 4 stages, M = 16 micro-batches -> 3/19.
    result = pipeline_bubble(stages=4, micro_batches=16, schedule=Schedule.GPIPE)
    assert result.bubble_fraction == pytest.approx(3 / 19)
    assert result.bubble_overhead == pytest.approx(3 / 16)
    assert result.micro_batches_in_flight == 16


def test_gpipe_rule_of_thumb_m_at_least_4k_keeps_bubble_under_a_fifth() -> None:
    # GPipe §2.3: the bubble is negligible when M >= 4K.
    for stages in (2, 4, 8, 16, 64):
        result = pipeline_bubble(stages=stages, micro_batches=4 * stages, schedule=Schedule.GPIPE)
        assert result.bubble_fraction < 0.2


def test_one_f_one_b_has_gpipe_bubble_but_p_micro_batches_in_flight() -> None:
    # Narayanan et al. 2021 §2.2.1: same bubble as GPipe, at most p micro-batches stashed.
    result = pipeline_bubble(stages=8, micro_batches=32, schedule=Schedule.ONE_F_ONE_B)
    gpipe = pipeline_bubble(stages=8, micro_batches=32, schedule=Schedule.GPIPE)
    assert result.bubble_fraction == gpipe.bubble_fraction
    assert result.micro_batches_in_flight == 8


def test_interleaving_divides_the_bubble_by_v() -> None:
    # Narayanan et al. 2021 §2.2.2: bubble time fraction (p-1)/m becomes (p-1)/(v·m).
    plain = pipeline_bubble(stages=8, micro_batches=32)
    interleaved = pipeline_bubble(
        stages=8, micro_batches=32, schedule=Schedule.INTERLEAVED, virtual_stages=4
    )
    assert interleaved.bubble_overhead == pytest.approx(plain.bubble_overhead / 4)
    assert interleaved.bubble_overhead == pytest.approx(7 / 128)


def test_interleaved_needs_micro_batches_divisible_by_stages() -> None:
    with pytest.raises(UsageError, match="divisible"):
        pipeline_bubble(stages=8, micro_batches=12, schedule=Schedule.INTERLEAVED, virtual_stages=2)


def test_virtual_stages_only_for_interleaved() -> None:
    with pytest.raises(UsageError, match="interleaved"):
        pipeline_bubble(stages=8, micro_batches=16, virtual_stages=2)


def test_smallest_m_for_target_bubble_at_most() -> None:
    # (P-1)/(M+P-1) <= 0.2 with P = 4 needs M >= 12.
    assert (
        micro_batches_for_bubble(stages=4, target_bubble_fraction=0.2, strictly_below=False) == 12
    )
    assert micro_batches_for_bubble(stages=1, target_bubble_fraction=0.01) == 1
    assert (
        micro_batches_for_bubble(
            stages=8,
            target_bubble_fraction=0.05,
            schedule=Schedule.INTERLEAVED,
            virtual_stages=4,
        )
        % 8
        == 0
    )


@pytest.mark.parametrize(("stages", "expected"), [(4, 28), (8, 64), (16, 136)])
def test_bubble_below_a_target_means_strictly_below_by_default(stages: int, expected: int) -> None:
    # (p-1)/(m+p-1) < 10 %: m = 9(p-1) gives exactly 10 % (27, 63, 135), so one more is needed.
    m = micro_batches_for_bubble(stages=stages, target_bubble_fraction=0.1)
    assert m == expected
    assert pipeline_bubble(stages=stages, micro_batches=m).bubble_fraction < 0.1
    assert pipeline_bubble(stages=stages, micro_batches=m - 1).bubble_fraction == pytest.approx(0.1)


def test_default_agrees_with_cloud_0104() -> None:
    # cloud-0104: 8 stages need 64 micro-batches to bring the bubble below 10 % (7/71 = 9.859 %).
    m = micro_batches_for_bubble(stages=8, target_bubble_fraction=0.1)
    assert m == 64
    assert describe(pipeline_bubble(stages=8, micro_batches=m).bubble_fraction) == "9.859%"


def test_target_must_be_a_fraction() -> None:
    with pytest.raises(UsageError, match="target_bubble_fraction"):
        micro_batches_for_bubble(stages=4, target_bubble_fraction=1.5)


@settings(deadline=None)  # tests never assert on timing
@given(
    stages=st.integers(min_value=1, max_value=128),
    target=st.floats(min_value=0.001, max_value=0.999),
)
def test_smallest_m_meets_the_target_and_one_fewer_does_not(stages: int, target: float) -> None:
    m = micro_batches_for_bubble(stages=stages, target_bubble_fraction=target, strictly_below=False)
    assert pipeline_bubble(stages=stages, micro_batches=m).bubble_fraction <= target + 1e-9
    if m > 1:
        assert pipeline_bubble(stages=stages, micro_batches=m - 1).bubble_fraction > target - 1e-9


def test_interleaved_first_stage_holds_megatron_warmup_depth() -> None:
    # Megatron-LM's interleaved warm-up on the first stage: 2(p-1) + (v-1)p micro-batch
    # chunks, plus the one in its first forward; Korthikanti et al. 2022 §4.2.3 give the
    # same peak as p(1 + (p-1)/(p·v)) whole-stage micro-batches.
    result = pipeline_bubble(
        stages=4, micro_batches=8, schedule=Schedule.INTERLEAVED, virtual_stages=2
    )
    assert result.micro_batches_in_flight == 2 * 3 + 1 * 4 + 1
    assert result.activation_micro_batches == pytest.approx(4 * (1 + 3 / (4 * 2)))


def test_bubbles_are_percentages_of_the_published_forms() -> None:
    # Narayanan et al. 2021 §2.2.1: bubble time fraction (p-1)/m; p = 8, m = 64 -> 10.9375%.
    result = pipeline_bubble(stages=8, micro_batches=64)
    assert result.bubble_overhead == pytest.approx(7 / 64)
    assert describe(result.bubble_overhead) == "10.94%"
    assert describe(result.bubble_fraction) == "9.859%"


def test_megatron_target_strictly_below_moves_past_an_exact_bound() -> None:
    # (p-1)/m < 10% with p = 8: m = 70 gives exactly 10%, so 71 is the fewest below it.
    at_most = micro_batches_for_bubble(
        stages=8, target_bubble_fraction=0.1, measure=BubbleMeasure.MEGATRON, strictly_below=False
    )
    below = micro_batches_for_bubble(
        stages=8, target_bubble_fraction=0.1, measure=BubbleMeasure.MEGATRON, strictly_below=True
    )
    assert (at_most, below) == (70, 71)
    # Off an exact bound both modes agree: 7/m < 3% needs m = 234.
    assert micro_batches_for_bubble(
        stages=8, target_bubble_fraction=0.03, measure=BubbleMeasure.MEGATRON, strictly_below=True
    ) == math.ceil(7 / 0.03)


@settings(deadline=None)  # tests never assert on timing
@given(
    stages=st.integers(min_value=2, max_value=128),
    target=st.floats(min_value=0.001, max_value=0.999),
    measure=st.sampled_from(BubbleMeasure),
)
def test_fewest_m_strictly_below_is_below_and_one_fewer_is_not(
    stages: int, target: float, measure: BubbleMeasure
) -> None:
    m = micro_batches_for_bubble(
        stages=stages, target_bubble_fraction=target, measure=measure, strictly_below=True
    )

    def bubble(count: int) -> float:
        result = pipeline_bubble(stages=stages, micro_batches=count)
        return (
            result.bubble_overhead if measure is BubbleMeasure.MEGATRON else result.bubble_fraction
        )

    assert bubble(m) < target * (1 + 1e-9)
    if m > 1:
        assert bubble(m - 1) >= target * (1 - 1e-9)
