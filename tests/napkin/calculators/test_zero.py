"""ZeRO communication (Rajbhandari et al. 2020 §7) and DeepSpeed's memory estimates."""

from __future__ import annotations

import pytest

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import describe, quantity
from sysdrill.napkin.calculators.zero import (
    deepspeed_memory_estimate,
    transformer_parameters,
    zero_communication,
)

GIB = 2**30


def _params(count: float) -> object:
    return quantity(count, "param")


@pytest.mark.parametrize(("stage", "psi_multiple"), [(0, 2), (1, 2), (2, 2), (3, 3)])
def test_volume_is_two_psi_for_ddp_and_stages_1_2_and_three_psi_for_stage_3(
    stage: int, psi_multiple: int
) -> None:
    # ZeRO §7.2.1 (DDP 2Ψ), §7.2.2 (P_os+g: 2Ψ) and §7.2.3 (P_os+g+p: 3Ψ, 1.5x DDP).
    result = zero_communication(
        parameters=_params(1e9),
        zero_stage=stage,
        data_parallel=8,
        bytes_per_element=quantity(2, "byte"),
    )
    assert result.volume.magnitude == pytest.approx(psi_multiple * 1e9)
    assert result.relative_to_ddp == pytest.approx(psi_multiple / 2)
    # A ring sends (N-1)/N of the volume: 7/8 · 2 bytes · kΨ.
    assert result.bytes_sent_per_rank.to("byte").magnitude == pytest.approx(
        psi_multiple * 1e9 * 2 * 7 / 8
    )


def test_stage_3_reads_as_one_and_a_half_times_ddp() -> None:
    result = zero_communication(
        parameters=_params(7.5e9),
        zero_stage=3,
        data_parallel=64,
        bytes_per_element=quantity(2, "byte"),
    )
    assert describe(result.relative_to_ddp) == "150%"


def test_overlap_hides_the_smaller_of_compute_and_communication() -> None:
    # 1B params, DDP in bf16 over 8 ranks at 50 GB/s: 3.5 GB sent, 70 ms.
    common = {
        "parameters": _params(1e9),
        "zero_stage": 0,
        "data_parallel": 8,
        "bytes_per_element": quantity(2, "byte"),
        "bandwidth": quantity(50e9, "byte / s"),
    }
    short = zero_communication(**common, compute_time=quantity(50, "ms"))
    assert short.communication_time.to("ms").magnitude == pytest.approx(70)
    assert short.step_time_without_overlap.to("ms").magnitude == pytest.approx(120)
    assert short.step_time_with_overlap.to("ms").magnitude == pytest.approx(70)
    assert short.exposed_communication.to("ms").magnitude == pytest.approx(20)
    long = zero_communication(**common, compute_time=quantity(500, "ms"))
    assert long.exposed_communication.to("ms").magnitude == pytest.approx(0)


def test_compute_time_without_bandwidth_is_refused() -> None:
    with pytest.raises(UsageError, match="bandwidth"):
        zero_communication(
            parameters=_params(1e9),
            zero_stage=1,
            data_parallel=8,
            bytes_per_element=quantity(2, "byte"),
            compute_time=quantity(1, "s"),
        )


# DeepSpeed "Memory Requirements" page: t5-small (60,506,624 params, largest layer
# 16,449,536), 1 node with 1 GPU; the page prints GiB rounded to 0.01 (as "GB").
T5_SMALL = {"parameters": _params(60_506_624), "largest_layer_parameters": _params(16_449_536)}


@pytest.mark.parametrize(
    ("offload_optimizer", "offload_parameters", "zero_init", "cpu_gib", "gpu_gib"),
    [
        (True, True, True, 1.52, 0.06),
        (True, True, False, 1.52, 0.06),
        (True, False, True, 1.35, 0.17),
        (True, False, False, 1.35, 0.17),
        (False, False, True, 0.09, 1.08),
        (False, False, False, 0.34, 1.08),
    ],
)
def test_zero_3_estimate_matches_deepspeed_t5_small_table(
    offload_optimizer: bool,
    offload_parameters: bool,
    zero_init: bool,
    cpu_gib: float,
    gpu_gib: float,
) -> None:
    result = deepspeed_memory_estimate(
        **T5_SMALL,
        zero_stage=3,
        offload_optimizer=offload_optimizer,
        offload_parameters=offload_parameters,
        zero_init=zero_init,
    )
    assert round(result.per_cpu.to("byte").magnitude / GIB, 2) == cpu_gib
    assert round(result.per_gpu.to("byte").magnitude / GIB, 2) == gpu_gib


@pytest.mark.parametrize(("offload", "gpu_gib"), [(True, 5.31), (False, 15.93)])
def test_zero_2_estimate_matches_deepspeed_3b_on_8_gpus(offload: bool, gpu_gib: float) -> None:
    # DeepSpeed docs: a 2,851M-parameter model on 1 node of 8 GPUs needs 5.31 GiB per GPU
    # with the optimizer offloaded and 15.93 GiB without; 127.48 GiB of CPU either way.
    result = deepspeed_memory_estimate(
        parameters=_params(2_851_000_000),
        zero_stage=2,
        gpus_per_node=8,
        offload_optimizer=offload,
    )
    assert result.per_gpu.to("byte").magnitude / GIB == pytest.approx(gpu_gib, abs=0.01)
    assert result.per_cpu.to("byte").magnitude / GIB == pytest.approx(127.48, rel=1e-3)


def test_stages_0_and_1_follow_the_zero_paper() -> None:
    # ZeRO Figure 1: 7.5B params, 64 GPUs: DDP 120 GB, P_os 31.4 GB.
    ddp = deepspeed_memory_estimate(parameters=_params(7.5e9), zero_stage=0, gpus_per_node=64)
    one = deepspeed_memory_estimate(parameters=_params(7.5e9), zero_stage=1, gpus_per_node=64)
    assert ddp.per_gpu.to("GB").magnitude == pytest.approx(120)
    assert one.per_gpu.to("GB").magnitude == pytest.approx(31.4, abs=0.05)


@pytest.mark.parametrize(
    ("stage", "offload_optimizer", "offload_parameters", "message"),
    [(0, True, False, "stage 1, 2 or 3"), (2, True, True, "stage 3"), (4, False, False, "0, 1")],
)
def test_unsupported_offloads_and_stages_are_refused(
    stage: int, offload_optimizer: bool, offload_parameters: bool, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        deepspeed_memory_estimate(
            parameters=_params(1e9),
            zero_stage=stage,
            offload_optimizer=offload_optimizer,
            offload_parameters=offload_parameters,
        )


def test_zero_3_needs_the_largest_layer() -> None:
    with pytest.raises(UsageError, match="largest layer"):
        deepspeed_memory_estimate(parameters=_params(1e9), zero_stage=3)


def test_twelve_l_h_squared_gives_gpt3_175b() -> None:
    # GPT-3 175B: 96 layers of width 12288 -> 12·96·12288² = 173.9B, plus a 50257×12288
    # embedding -> 174.6B (Brown et al. 2020 report 175.0B with biases and positions).
    assert transformer_parameters(layers=96, hidden_size=12288).magnitude == pytest.approx(
        173.95e9, rel=1e-3
    )
    with_embedding = transformer_parameters(layers=96, hidden_size=12288, vocab_size=50257)
    assert with_embedding.magnitude == pytest.approx(175e9, rel=0.005)
