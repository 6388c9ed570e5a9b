"""Compute and cost against Kaplan et al. 2020, GPT-3, Chinchilla and PaLM."""

from __future__ import annotations

import math

import pytest

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators.compute_cost import (
    chinchilla_optimal_model,
    chinchilla_optimal_tokens,
    model_flops_utilization,
    spot_training_cost,
    training_cost,
    training_flops,
    training_flops_per_token,
    training_time,
)
from sysdrill.napkin.units import get_registry

Q = get_registry().Quantity


def test_gpt3_training_compute_is_3_14e23_flops() -> None:
    # Brown et al. 2020, Table D.1: GPT-3 175B (174.6B params) on 300B tokens, 3.14e23 FLOPs.
    flops = training_flops(parameters=Q(174.6e9, "param"), tokens=Q(300e9, "token"))
    assert flops.to("FLOP").magnitude == pytest.approx(3.14e23, rel=1e-3)


def test_flops_per_token_adds_the_attention_term() -> None:
    # Kaplan et al. 2020, Table 1: 6N + 6 n_layer n_ctx d_attn per training token.
    per_token = training_flops_per_token(
        parameters=Q(175e9, "param"), layers=96, context_length=2048, attention_dim=12288
    )
    assert per_token.to("FLOP / token").magnitude == pytest.approx(
        6 * 175e9 + 6 * 96 * 2048 * 12288
    )


def test_chinchilla_70b_wants_1_4t_tokens() -> None:
    # Hoffmann et al. 2022: Chinchilla, 70B parameters on 1.4T tokens (~20 tokens/param).
    tokens = chinchilla_optimal_tokens(parameters=Q(70e9, "param"))
    assert tokens.to("token").magnitude == pytest.approx(1.4e12)


def test_chinchilla_model_for_gopher_budget() -> None:
    # Hoffmann et al. 2022: Gopher's 5.76e23 FLOPs are best spent on ~70B params, ~1.4T tokens.
    result = chinchilla_optimal_model(compute=Q(5.76e23, "FLOP"))
    assert result.parameters.magnitude == pytest.approx(69.3e9, rel=0.01)
    assert result.tokens.magnitude == pytest.approx(1.39e12, rel=0.01)
    again = training_flops(parameters=result.parameters, tokens=result.tokens)
    assert again.magnitude == pytest.approx(5.76e23)


def test_palm_540b_model_flops_utilisation() -> None:
    # Chowdhery et al. 2022 (PaLM), Appendix B: 238.3K tokens/s on 6144 TPU v4 chips at
    # 275 TFLOP/s peak gives 45.7 % MFU without the attention FLOPs.
    mfu = model_flops_utilization(
        tokens_per_second=Q(238.3e3, "token/s"),
        gpus=6144,
        peak_flops_per_gpu=Q(275, "TFLOP/s"),
        parameters=Q(540e9, "param"),
    )
    assert mfu == pytest.approx(0.457, abs=0.001)


def test_mfu_needs_parameters_or_flops_per_token() -> None:
    with pytest.raises(UsageError, match="parameters or flops_per_token"):
        model_flops_utilization(
            tokens_per_second=Q(1, "token/s"), gpus=1, peak_flops_per_gpu=Q(1, "TFLOP/s")
        )


def test_training_time_and_gpu_hours() -> None:
    # 6·70e9·1.4e12 = 5.88e23 FLOP on 1024 GPUs at 989.5 TFLOP/s and 40 % MFU.
    flops = training_flops(parameters=Q(70e9, "param"), tokens=Q(1.4e12, "token"))
    result = training_time(flops=flops, gpus=1024, peak_flops_per_gpu=Q(989.5, "TFLOP/s"), mfu=0.4)
    seconds = 5.88e23 / (1024 * 989.5e12 * 0.4)
    assert result.wall_time.to("s").magnitude == pytest.approx(seconds)
    assert result.gpu_hours.to("GPU * hour").magnitude == pytest.approx(1024 * seconds / 3600)
    cost = training_cost(gpu_hours=result.gpu_hours, price_per_gpu_hour=Q(2, "USD/GPU/hour"))
    assert cost.to("USD").magnitude == pytest.approx(2 * 1024 * seconds / 3600)


def test_mfu_must_be_a_fraction() -> None:
    with pytest.raises(UsageError, match="mfu"):
        training_time(flops=Q(1e20, "FLOP"), gpus=1, peak_flops_per_gpu=Q(1, "TFLOP/s"), mfu=40)


def test_spot_cost_and_break_even_preemptions() -> None:
    # 64 GPUs, 100 h of work, checkpoint hourly, 10 min restart: each preemption costs 40 min.
    result = spot_training_cost(
        gpus=64,
        work_time=Q(100, "hour"),
        on_demand_price=Q(4, "USD/GPU/hour"),
        spot_price=Q(1.5, "USD/GPU/hour"),
        preemptions=20,
        checkpoint_interval=Q(1, "hour"),
        restart_time=Q(10, "min"),
    )
    assert result.lost_work_per_preemption.to("min").magnitude == pytest.approx(40)
    assert result.on_demand_cost.magnitude == pytest.approx(64 * 100 * 4)
    spot_hours = 100 + 20 * 40 / 60
    assert result.spot_cost.magnitude == pytest.approx(64 * spot_hours * 1.5)
    # Break-even: (4/1.5 - 1) * 100 h / (2/3 h) = 250 preemptions.
    assert result.break_even_preemptions == pytest.approx(250)


def test_spot_break_even_is_infinite_when_preemptions_lose_nothing() -> None:
    result = spot_training_cost(
        gpus=1,
        work_time=Q(1, "hour"),
        on_demand_price=Q(2, "USD/GPU/hour"),
        spot_price=Q(1, "USD/GPU/hour"),
        preemptions=3,
        checkpoint_interval=Q(0, "s"),
        restart_time=Q(0, "s"),
    )
    assert math.isinf(result.break_even_preemptions)
