"""Training memory against the ZeRO paper and Korthikanti et al. 2022."""

from __future__ import annotations

import math

import pytest

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.memory import (
    Optimizer,
    Precision,
    Recompute,
    activation_memory_per_layer,
    best_checkpoint_interval,
    bytes_per_parameter,
    checkpointed_activation_memory,
    fsdp_peak_memory,
    memory_fit,
    model_state_memory,
    sqrt_checkpoint_interval,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def gb(value: object) -> float:
    return float(value.to("GB").magnitude)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("optimizer", "precision", "weights", "gradients", "states"),
    [
        # ZeRO paper §3.1: mixed-precision Adam is 2 + 2 + 12 (K = 12) bytes per parameter.
        (Optimizer.ADAM, Precision.MIXED, 2, 2, 12),
        (Optimizer.ADAM, Precision.FP32, 4, 4, 8),
        # Dettmers et al. 2022: 8-bit Adam stores each moment in one byte.
        (Optimizer.ADAM_8BIT, Precision.MIXED, 2, 2, 6),
        (Optimizer.ADAM_8BIT, Precision.FP32, 4, 4, 2),
        (Optimizer.SGD_MOMENTUM, Precision.FP32, 4, 4, 4),
        (Optimizer.SGD, Precision.FP32, 4, 4, 0),
    ],
)
def test_bytes_per_parameter(
    optimizer: Optimizer, precision: Precision, weights: int, gradients: int, states: int
) -> None:
    per = bytes_per_parameter(optimizer=optimizer, precision=precision)
    assert per.weights.magnitude == weights
    assert per.gradients.magnitude == gradients
    assert per.optimizer_states.magnitude == states
    assert per.total.magnitude == weights + gradients + states
    assert str(per.total.units) == "byte / param"


def test_zero_paper_figure_1_per_gpu_memory() -> None:
    # Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N_d = 64, K = 12:
    # baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB.
    expected = {0: 120.0, 1: 31.4, 2: 16.6, 3: 1.9}
    for stage, figure in expected.items():
        result = model_state_memory(
            parameters=Q(7.5e9, "param"), zero_stage=stage, data_parallel=64
        )
        assert gb(result.total) == pytest.approx(figure, abs=0.05)


def test_zero_paper_gpt2_needs_24_gb_of_model_state() -> None:
    # ZeRO paper §3.1: GPT-2 with 1.5B parameters needs at least 24 GB in mixed-precision Adam.
    assert gb(model_state_memory(parameters=Q(1.5e9, "param")).total) == pytest.approx(24)


def test_tensor_and_pipeline_parallel_divide_model_state_first() -> None:
    plain = model_state_memory(parameters=Q(70e9, "param"), zero_stage=1, data_parallel=8)
    split = model_state_memory(
        parameters=Q(70e9, "param"),
        zero_stage=1,
        data_parallel=8,
        tensor_parallel=8,
        pipeline_parallel=4,
    )
    assert gb(split.total) == pytest.approx(gb(plain.total) / 32)
    assert split.parameters_per_model_shard.magnitude == pytest.approx(70e9 / 32)


def test_zero_stage_outside_range_is_rejected() -> None:
    with pytest.raises(UsageError, match="zero_stage must be 0, 1, 2 or 3"):
        model_state_memory(parameters=Q(1e9, "param"), zero_stage=4)


def test_fsdp_peak_adds_one_gathered_layer() -> None:
    # 70B over 80 layers on 64 GPUs: shard 16Ψ/64 = 17.5 GB, one layer of 2+2 bytes = 3.5 GB.
    peak = fsdp_peak_memory(parameters=Q(70e9, "param"), layers=80, gpus=64)
    assert gb(peak.sharded_state) == pytest.approx(17.5)
    assert gb(peak.gathered_layers) == pytest.approx(3.5)
    assert gb(peak.total) == pytest.approx(21.0)
    prefetch = fsdp_peak_memory(parameters=Q(70e9, "param"), layers=80, gpus=64, gathered_layers=2)
    assert gb(prefetch.gathered_layers) == pytest.approx(7.0)


GPT3 = {"sequence_length": 2048, "micro_batch": 1, "hidden_size": 12288, "attention_heads": 96}


def test_activation_memory_without_parallelism_is_sbh_34_plus_5as_over_h() -> None:
    # Korthikanti et al. 2022 eq. 1; for GPT-3 (a=96, s=2048, h=12288) 5as/h = 80 (§4.1).
    sbh = 2048 * 12288
    per_layer = activation_memory_per_layer(**GPT3)
    assert per_layer.to("byte").magnitude == pytest.approx(sbh * (34 + 80))


def test_activation_memory_tensor_parallel_variants() -> None:
    # Korthikanti et al. 2022, Table 2, with t = 8.
    sbh = 2048 * 12288
    tp = activation_memory_per_layer(**GPT3, tensor_parallel=8)
    assert tp.magnitude == pytest.approx(sbh * (10 + 24 / 8 + 80 / 8))
    sp = activation_memory_per_layer(**GPT3, tensor_parallel=8, sequence_parallel=True)
    assert sp.magnitude == pytest.approx(sbh * (34 + 80) / 8)
    selective = activation_memory_per_layer(
        **GPT3, tensor_parallel=8, sequence_parallel=True, recompute=Recompute.SELECTIVE
    )
    assert selective.magnitude == pytest.approx(sbh * 34 / 8)
    full = activation_memory_per_layer(**GPT3, recompute=Recompute.FULL)
    assert full.magnitude == pytest.approx(2 * sbh)


def test_selective_recompute_saves_seventy_percent_for_gpt3() -> None:
    # Korthikanti et al. 2022 §5: the attention term is 80 of 114 units for GPT-3, about 70 %.
    full = activation_memory_per_layer(**GPT3)
    selective = activation_memory_per_layer(**GPT3, recompute=Recompute.SELECTIVE)
    saved = 1 - float((selective / full).to(""))
    assert saved == pytest.approx(80 / 114)
    assert round(saved, 2) == 0.70


def test_checkpointing_every_sqrt_l_layers() -> None:
    # Chen et al. 2016: checkpoints every √L layers need O(√L) memory.
    assert sqrt_checkpoint_interval(layers=96) == 10
    assert sqrt_checkpoint_interval(layers=1) == 1
    result = checkpointed_activation_memory(
        layers=100, layer_activations=Q(1, "GB"), layer_input=Q(1, "GB"), checkpoint_every=10
    )
    assert gb(result.checkpoints) == pytest.approx(10)
    assert gb(result.recomputed_segment) == pytest.approx(10)
    assert gb(result.without_checkpointing) == pytest.approx(100)


def test_sqrt_interval_minimises_checkpointed_memory_when_input_equals_activations() -> None:
    def total(k: int) -> float:
        result = checkpointed_activation_memory(
            layers=64, layer_activations=Q(1, "GB"), layer_input=Q(1, "GB"), checkpoint_every=k
        )
        return gb(result.total)

    best = min(range(1, 65), key=total)
    assert best == sqrt_checkpoint_interval(layers=64) == math.isqrt(64)
    assert best_checkpoint_interval(
        layers=64, layer_activations=Q(1, "GB"), layer_input=Q(1, "GB")
    ) == math.isqrt(64)


def test_best_interval_grows_when_the_checkpoint_is_small_beside_the_activations() -> None:
    # 96 layers, 2.9 GB of activations and a 50 MB input each: √(96 · 50/2900) ≈ 1.3, so
    # one or two layers per segment; √L = 10 would keep 29.5 GB instead of about 7.7 GB.
    sizes = {"layer_activations": Q(2.9, "GB"), "layer_input": Q(50, "MB")}
    k = best_checkpoint_interval(layers=96, **sizes)
    assert k == 1
    best = checkpointed_activation_memory(layers=96, checkpoint_every=k, **sizes)
    sqrt_rule = checkpointed_activation_memory(layers=96, checkpoint_every=10, **sizes)
    assert gb(best.total) == pytest.approx(7.7)
    assert gb(sqrt_rule.total) == pytest.approx(29.5)


def test_memory_fit_against_one_gpu() -> None:
    # 70B under ZeRO-3 on 8 GPUs needs 16 × 70e9 / 8 = 140 GB each: not on an 80 GB H100.
    state = model_state_memory(parameters=Q(70e9, "param"), zero_stage=3, data_parallel=8)
    fit = memory_fit(required=state.total, capacity=Q(80, "GB"))
    assert not fit.fits
    assert fit.utilization == pytest.approx(1.75)
    assert gb(fit.headroom) == pytest.approx(-60)
    roomy = memory_fit(required=Q(40, "GB"), capacity=Q(80, "GB"))
    assert roomy.fits
    assert roomy.utilization == pytest.approx(0.5)
