"""Training compute, wall time, GPU-hours and cost, MFU, and compute-optimal sizing.

Training a dense transformer of ``N`` parameters on ``D`` tokens costs about
``6·N·D`` FLOPs: 2 per parameter per token forward, 4 backward (Kaplan et al.
2020, "Scaling Laws for Neural Language Models", §2.1). Compute-optimal training
uses about 20 tokens per parameter (Hoffmann et al. 2022, "Training
Compute-Optimal Large Language Models", the Chinchilla paper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators._quantity import (
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_fraction,
    require_positive,
)

__all__ = [
    "CHINCHILLA_TOKENS_PER_PARAMETER",
    "ComputeOptimalModel",
    "SpotCost",
    "TrainingTime",
    "chinchilla_optimal_model",
    "chinchilla_optimal_tokens",
    "model_flops_utilization",
    "spot_training_cost",
    "training_cost",
    "training_flops",
    "training_flops_per_token",
    "training_time",
]

CHINCHILLA_TOKENS_PER_PARAMETER = 20.0
"""Hoffmann et al. 2022: compute-optimal models see about 20 tokens per parameter."""


def _flops_per_param_token() -> Quantity:
    return quantity(6, "FLOP / param / token")


def training_flops(*, parameters: Quantity, tokens: Quantity) -> Quantity:
    """Training compute ``C = 6·N·D`` (FLOP), Kaplan et al. 2020 §2.1.

    Args:
        parameters: Model size ``N`` (param).
        tokens: Training tokens ``D`` (token).
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    d = require_positive(as_unit(tokens, "token", name="tokens"), name="tokens")
    return (_flops_per_param_token() * n * d).to("FLOP")


def training_flops_per_token(
    *, parameters: Quantity, layers: int, context_length: int, attention_dim: int
) -> Quantity:
    """Training FLOPs per token with the attention term: ``6·N + 6·L·n_ctx·d_attn``.

    Kaplan et al. 2020, Table 1: the forward pass costs ``2N + 2·L·n_ctx·d_attn``
    per token, and training about three forward passes.

    Args:
        parameters: Non-embedding parameters ``N`` (param).
        layers: Layers ``L``.
        context_length: Tokens of context ``n_ctx``.
        attention_dim: Attention width ``d_attn`` (usually the hidden size).
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    attention = 6 * (
        require_count(layers, name="layers")
        * require_count(context_length, name="context_length")
        * require_count(attention_dim, name="attention_dim")
    )
    dense = (_flops_per_param_token() * n).to("FLOP / token")
    return dense + quantity(attention, "FLOP / token")


@dataclass(frozen=True)
class TrainingTime:
    """How long a training run takes (wall time in s, GPU time in GPU·hour)."""

    wall_time: Quantity
    gpu_hours: Quantity


def training_time(
    *, flops: Quantity, gpus: int, peak_flops_per_gpu: Quantity, mfu: float
) -> TrainingTime:
    """Wall time ``C / (n·peak·MFU)`` and GPU-hours ``n·time`` of a training run.

    Args:
        flops: Total training compute ``C`` (FLOP), e.g. from :func:`training_flops`.
        gpus: Accelerators ``n``.
        peak_flops_per_gpu: Dense peak of one accelerator at the training precision (FLOP/s).
        mfu: Model FLOPs utilisation in (0, 1] (Chowdhery et al. 2022, PaLM, App. B).
    """
    c = require_positive(as_unit(flops, "FLOP", name="flops"), name="flops")
    n = require_count(gpus, name="gpus")
    peak = require_positive(
        as_unit(peak_flops_per_gpu, "FLOP / s", name="peak_flops_per_gpu"),
        name="peak_flops_per_gpu",
    )
    u = require_fraction(mfu, name="mfu", allow_zero=False)
    wall = (c / (peak * n * u)).to("s")
    return TrainingTime(wall_time=wall, gpu_hours=(quantity(n, "GPU") * wall).to("GPU * hour"))


def training_cost(*, gpu_hours: Quantity, price_per_gpu_hour: Quantity) -> Quantity:
    """Cost ``GPU-hours × price`` (USD).

    Args:
        gpu_hours: Accelerator time (GPU·hour).
        price_per_gpu_hour: Price of one accelerator for one hour (USD/GPU/hour).
    """
    hours = as_unit(gpu_hours, "GPU * hour", name="gpu_hours")
    price = as_unit(price_per_gpu_hour, "USD / GPU / hour", name="price_per_gpu_hour")
    return (hours * price).to("USD")


@dataclass(frozen=True)
class SpotCost:
    """On-demand against spot pricing for the same work.

    Attributes:
        lost_work_per_preemption: Expected redone work plus restart, ``τ/2 + R`` (s).
        spot_wall_time: Useful time plus all lost work (s).
        on_demand_cost: ``n·T·p_od`` (USD).
        spot_cost: ``n·(T + k·(τ/2 + R))·p_spot`` (USD).
        break_even_preemptions: Preemptions at which spot costs as much as on demand.
    """

    lost_work_per_preemption: Quantity
    spot_wall_time: Quantity
    on_demand_cost: Quantity
    spot_cost: Quantity
    break_even_preemptions: float


def spot_training_cost(
    *,
    gpus: int,
    work_time: Quantity,
    on_demand_price: Quantity,
    spot_price: Quantity,
    preemptions: int,
    checkpoint_interval: Quantity,
    restart_time: Quantity,
) -> SpotCost:
    """Cost of a run on spot instances that are preempted ``k`` times.

    A preemption loses on average half a checkpoint interval of work plus the
    restart time (the first-order model of Young 1974 and Daly 2006). Spot
    breaks even with on demand at ``k* = (p_od/p_spot − 1)·T/(τ/2 + R)``.

    Args:
        gpus: Accelerators ``n``.
        work_time: Wall time of the run without interruptions ``T`` (s).
        on_demand_price: On-demand price (USD/GPU/hour).
        spot_price: Spot price (USD/GPU/hour).
        preemptions: Expected preemptions over the run ``k``.
        checkpoint_interval: Time between checkpoints ``τ`` (s).
        restart_time: Time to get back to training after a preemption ``R`` (s).
    """
    n = require_count(gpus, name="gpus")
    k = require_count(preemptions, name="preemptions", minimum=0)
    work = require_positive(as_unit(work_time, "hour", name="work_time"), name="work_time")
    p_od = require_positive(
        as_unit(on_demand_price, "USD / GPU / hour", name="on_demand_price"), name="on_demand_price"
    )
    p_spot = require_positive(
        as_unit(spot_price, "USD / GPU / hour", name="spot_price"), name="spot_price"
    )
    tau = as_unit(checkpoint_interval, "hour", name="checkpoint_interval")
    restart = as_unit(restart_time, "hour", name="restart_time")
    lost = tau / 2 + restart
    spot_wall = work + lost * k
    gpu = quantity(n, "GPU")
    ratio = float((p_od / p_spot).to(""))
    break_even = math.inf if lost.magnitude == 0 else (ratio - 1) * float((work / lost).to(""))
    return SpotCost(
        lost_work_per_preemption=lost.to("s"),
        spot_wall_time=spot_wall.to("s"),
        on_demand_cost=(gpu * work * p_od).to("USD"),
        spot_cost=(gpu * spot_wall * p_spot).to("USD"),
        break_even_preemptions=break_even,
    )


def model_flops_utilization(
    *,
    tokens_per_second: Quantity,
    gpus: int,
    peak_flops_per_gpu: Quantity,
    parameters: Quantity | None = None,
    flops_per_token: Quantity | None = None,
) -> float:
    """MFU: achieved model FLOP/s over the cluster's peak (Chowdhery et al. 2022, PaLM, App. B).

    ``MFU = tokens/s × FLOPs/token / (n × peak)``, where FLOPs/token is ``6N``
    unless given (use :func:`training_flops_per_token` to count attention).

    Args:
        tokens_per_second: Measured training throughput of the whole job (token/s).
        gpus: Accelerators ``n``.
        peak_flops_per_gpu: Dense peak of one accelerator (FLOP/s).
        parameters: Model size ``N`` (param), used when ``flops_per_token`` is None.
        flops_per_token: Training FLOPs per token (FLOP/token).

    Raises:
        UsageError: neither ``parameters`` nor ``flops_per_token`` is given.
    """
    if flops_per_token is None:
        if parameters is None:
            raise UsageError("give parameters or flops_per_token to compute MFU")
        n_params = require_positive(
            as_unit(parameters, "param", name="parameters"), name="parameters"
        )
        per_token = (_flops_per_param_token() * n_params).to("FLOP / token")
    else:
        per_token = as_unit(flops_per_token, "FLOP / token", name="flops_per_token")
    rate = require_positive(
        as_unit(tokens_per_second, "token / s", name="tokens_per_second"), name="tokens_per_second"
    )
    n = require_count(gpus, name="gpus")
    peak = require_positive(
        as_unit(peak_flops_per_gpu, "FLOP / s", name="peak_flops_per_gpu"),
        name="peak_flops_per_gpu",
    )
    return float((rate * per_token / (peak * n)).to(""))


def chinchilla_optimal_tokens(
    *, parameters: Quantity, tokens_per_parameter: float = CHINCHILLA_TOKENS_PER_PARAMETER
) -> Quantity:
    """Compute-optimal training tokens ``D ≈ 20·N`` (Hoffmann et al. 2022; 70B → 1.4T tokens).

    Args:
        parameters: Model size ``N`` (param).
        tokens_per_parameter: Tokens per parameter (20 in the Chinchilla paper).
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    return quantity(n.magnitude * tokens_per_parameter, "token")


@dataclass(frozen=True)
class ComputeOptimalModel:
    """Chinchilla-optimal model size (param) and training tokens (token) for a budget."""

    parameters: Quantity
    tokens: Quantity


def chinchilla_optimal_model(
    *, compute: Quantity, tokens_per_parameter: float = CHINCHILLA_TOKENS_PER_PARAMETER
) -> ComputeOptimalModel:
    """Model size and tokens for a compute budget with ``C = 6·N·D`` and ``D = r·N``.

    ``N = √(C / (6·r))`` and ``D = r·N`` (Hoffmann et al. 2022 with Kaplan's 6ND).

    Args:
        compute: Training budget ``C`` (FLOP).
        tokens_per_parameter: ``r``, 20 in the Chinchilla paper.
    """
    c = require_positive(as_unit(compute, "FLOP", name="compute"), name="compute")
    n = math.sqrt(c.magnitude / (6 * tokens_per_parameter))
    return ComputeOptimalModel(
        parameters=quantity(n, "param"), tokens=quantity(n * tokens_per_parameter, "token")
    )
