"""The 3D-parallelism planner chains the calculators into one training step."""

from __future__ import annotations

import pytest

from sysdrill.app.parallel_plan import ParallelPlanInput, plan_parallelism
from sysdrill.errors import HardwareNotFound, UsageError
from sysdrill.napkin.calculators import memory, pipeline, reliability
from sysdrill.napkin.calculators._quantity import quantity


def test_default_setup_matches_the_calculators() -> None:
    setup = ParallelPlanInput()
    plan = plan_parallelism(setup)
    assert plan.gpus == 8 * 2 * 8
    assert plan.micro_batches == 512 // 8
    state = memory.model_state_memory(
        parameters=quantity(7e9, "param"),
        zero_stage=1,
        data_parallel=8,
        tensor_parallel=8,
        pipeline_parallel=2,
    )
    assert plan.model_state_gb == pytest.approx(state.total.to("GB").magnitude)
    bubble = pipeline.pipeline_bubble(stages=2, micro_batches=64)
    assert plan.bubble_fraction == pytest.approx(float(bubble.bubble_fraction))
    interval = reliability.checkpoint_interval(
        checkpoint_time=quantity(98 / 100, "s"), mtbf=quantity(50_000 / 128, "hour")
    )
    assert plan.checkpoint_interval_young_s == pytest.approx(interval.young.magnitude)
    assert plan.step_time_s == pytest.approx(
        plan.compute_s + plan.bubble_s + plan.exposed_communication_s
    )
    assert 0 < plan.mfu < setup.kernel_efficiency


def test_more_pipeline_stages_mean_a_bigger_bubble() -> None:
    two = plan_parallelism(ParallelPlanInput(pipeline_parallel=2, data_parallel=8))
    eight = plan_parallelism(ParallelPlanInput(pipeline_parallel=8, data_parallel=8))
    assert eight.bubble_fraction > two.bubble_fraction


def test_zero_three_shards_the_weights_too() -> None:
    one = plan_parallelism(ParallelPlanInput(zero_stage=1))
    three = plan_parallelism(ParallelPlanInput(zero_stage=3))
    assert three.model_state_gb < one.model_state_gb


def test_a_70b_model_on_too_few_gpus_does_not_fit() -> None:
    plan = plan_parallelism(
        ParallelPlanInput(
            parameters_billions=70, tensor_parallel=1, pipeline_parallel=1, data_parallel=8
        )
    )
    assert not plan.fits and plan.memory_per_gpu_gb > plan.gpu_memory_gb


def test_single_gpu_has_no_communication() -> None:
    plan = plan_parallelism(
        ParallelPlanInput(
            parameters_billions=1,
            tensor_parallel=1,
            pipeline_parallel=1,
            data_parallel=1,
            global_batch_sequences=8,
        )
    )
    assert plan.exposed_communication_s == 0 and plan.bubble_fraction == 0


def test_batch_that_does_not_split_is_refused() -> None:
    with pytest.raises(UsageError, match="not a multiple"):
        plan_parallelism(ParallelPlanInput(global_batch_sequences=100, data_parallel=8))


def test_layers_that_do_not_split_over_stages_are_refused() -> None:
    with pytest.raises(UsageError, match="do not split"):
        plan_parallelism(ParallelPlanInput(layers=30, pipeline_parallel=4))


def test_unknown_accelerator_is_named() -> None:
    with pytest.raises(HardwareNotFound):
        plan_parallelism(ParallelPlanInput(accelerator="nope-9000"))
