"""Expert capacity (Switch Transformers §2.2) and the all-to-all of expert parallelism."""

from __future__ import annotations

import shlex

import pytest

from sysdrill.errors import UnitMismatch, UsageError
from sysdrill.napkin.calculators._quantity import quantity
from sysdrill.napkin.calculators.moe import expert_capacity, expert_parallel_all_to_all

# Mixtral 8x7B (Jiang et al. 2024): width 4096, 8 experts, top-2, 32 MoE layers.
MIXTRAL = {"hidden_size": 4096, "top_k": 2, "experts": 8}
NVLINK4 = {"bandwidth": quantity(450e9, "byte / s"), "latency": quantity(0.5e-6, "s")}
BF16 = quantity(2, "byte")


@pytest.mark.parametrize(("factor", "capacity"), [(1.0, 2), (1.5, 3)])
def test_switch_figure_3_capacities_are_recomputed(factor: float, capacity: int) -> None:
    # Switch Transformers Figure 3: 6 tokens over 3 experts, top-1.
    assert expert_capacity(tokens=6, experts=3, top_k=1, capacity_factor=factor) == capacity


def test_top_k_multiplies_the_tokens_before_the_split() -> None:
    # Megatron Core get_capacity(num_tokens * topk, experts, factor): ⌈4096·2·1.25/8⌉.
    assert expert_capacity(tokens=4096, experts=8, top_k=2, capacity_factor=1.25) == 1280
    # A fractional share rounds up: ⌈10·1·1.0/4⌉ = 3.
    assert expert_capacity(tokens=10, experts=4, top_k=1, capacity_factor=1.0) == 3


def test_capacity_pads_the_dispatch_buffer_and_dropless_does_not() -> None:
    padded = expert_parallel_all_to_all(
        tokens=8192,
        expert_parallel=8,
        bytes_per_element=BF16,
        capacity_factor=1.25,
        **MIXTRAL,
        **NVLINK4,
    )
    dropless = expert_parallel_all_to_all(
        tokens=8192, expert_parallel=8, bytes_per_element=BF16, **MIXTRAL, **NVLINK4
    )
    assert padded.expert_capacity == 2560
    assert dropless.expert_capacity is None
    assert padded.tokens_dispatched.magnitude == 8 * 2560
    assert dropless.tokens_dispatched.magnitude == 8192 * 2
    # Two copies of each token, 4096 BF16 elements each: 16 KiB a token.
    assert dropless.buffer_per_all_to_all.magnitude == 8192 * 2 * 4096 * 2
    assert padded.buffer_per_all_to_all / dropless.buffer_per_all_to_all == pytest.approx(1.25)


def test_without_latency_the_bus_bandwidth_equals_the_link() -> None:
    # NCCL-tests: all-to-all busbw = algbw·(n-1)/n, which the link's bandwidth bounds.
    result = expert_parallel_all_to_all(
        tokens=4096,
        expert_parallel=8,
        bytes_per_element=BF16,
        bandwidth=quantity(50e9, "byte / s"),
        latency=quantity(0, "s"),
        **MIXTRAL,
    )
    algbw = result.buffer_per_all_to_all / result.all_to_all_time
    assert (algbw * 7 / 8).to("byte / s").magnitude == pytest.approx(50e9)


def test_training_runs_four_all_to_alls_a_layer_and_inference_two() -> None:
    common = {"tokens": 2048, "expert_parallel": 4, "bytes_per_element": BF16, "moe_layers": 32}
    training = expert_parallel_all_to_all(**common, **MIXTRAL, **NVLINK4)
    serving = expert_parallel_all_to_all(**common, **MIXTRAL, **NVLINK4, training=False)
    assert training.all_to_all_time == serving.all_to_all_time
    assert training.all_to_alls_per_layer == 4
    assert serving.all_to_alls_per_layer == 2
    expected_s = 32 * 4 * (3 * 0.5e-6 + 3 / 4 * 2048 * 2 * 4096 * 2 / 450e9)
    assert training.time_per_step.to("s").magnitude == pytest.approx(expected_s)
    assert serving.time_per_step == training.time_per_step / 2


def test_one_rank_sends_nothing() -> None:
    result = expert_parallel_all_to_all(
        tokens=1024, expert_parallel=1, bytes_per_element=BF16, **MIXTRAL, **NVLINK4
    )
    assert result.bytes_sent_per_rank.magnitude == 0
    assert result.all_to_all_time.magnitude == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"tokens": -5}, "tokens must be a whole number of at least 1, got -5"),
        ({"top_k": 9}, "top_k must be at most the number of experts (8), got 9"),
        ({"expert_parallel": 3}, "experts (8) must be a multiple of expert_parallel (3)"),
        ({"capacity_factor": -1.0}, "capacity_factor must be greater than zero, got -1.0"),
        ({"bandwidth": quantity(-1, "GB/s")}, "bandwidth must be greater than zero"),
        ({"latency": quantity(-1, "us")}, "latency must not be negative"),
        ({"bytes_per_element": quantity(0, "byte")}, "bytes_per_element must be greater"),
    ],
)
def test_impossible_inputs_are_refused_with_the_reason(
    change: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {
        "tokens": 1024,
        "expert_parallel": 8,
        "bytes_per_element": BF16,
        **MIXTRAL,
        **NVLINK4,
        **change,
    }
    with pytest.raises(UsageError) as caught:
        expert_parallel_all_to_all(**args)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_a_bandwidth_without_time_is_a_unit_mismatch() -> None:
    with pytest.raises(UnitMismatch):
        expert_parallel_all_to_all(
            tokens=1024,
            expert_parallel=8,
            bytes_per_element=BF16,
            bandwidth=quantity(50e9, "byte"),
            latency=quantity(0, "s"),
            **MIXTRAL,
        )


def test_cli_prints_one_error_line_for_experts_that_do_not_divide(run_cli) -> None:
    result = run_cli(
        *shlex.split(
            "calc moe-all-to-all --tokens 4096 --hidden-size 4096 --experts 8 "
            "--expert-parallel 3 --link infiniband-ndr"
        )
    )
    assert result.exit_code == 1
    assert result.stderr == "Error: experts (8) must be a multiple of expert_parallel (3)\n"


def test_cli_asks_for_a_bandwidth_when_none_is_given(run_cli) -> None:
    result = run_cli(
        *shlex.split(
            "calc moe-all-to-all --tokens 4096 --hidden-size 4096 --experts 8 --expert-parallel 8"
        )
    )
    assert result.exit_code != 0
    assert "Error: moe-all-to-all needs --bandwidth (or --link NAME)" in result.stderr
