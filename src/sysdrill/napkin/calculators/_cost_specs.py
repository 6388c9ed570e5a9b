"""Descriptions of the compute, cost and roofline calculators."""

from __future__ import annotations

from typing import Any

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators import (
    compute_cost,
    flops,
    roofline,
)
from sysdrill.napkin.calculators._params import (
    ELEMENT,
    LAYERS,
    MEM_BW,
    PARAMS,
    PEAK,
    PRICE,
    Q,
    count,
    fields,
)
from sysdrill.napkin.calculators._quantity import Percent
from sysdrill.napkin.calculators.spec import Calculator, Kind, Param

__all__ = ["COST_CALCULATORS"]


def _training_time(v: dict[str, Any]) -> dict[str, Any]:
    flops = v["flops"]
    if flops is None:
        if v["params"] is None or v["tokens"] is None:
            raise UsageError("training-time needs --flops, or --params and --tokens")
        flops = compute_cost.training_flops(parameters=v["params"], tokens=v["tokens"])
    timing = compute_cost.training_time(
        flops=flops, gpus=v["gpus"], peak_flops_per_gpu=v["peak_flops"], mfu=v["mfu"]
    )
    out: dict[str, Any] = {"flops": flops, **dict(fields(timing))}
    if v["price"] is not None:
        out["cost"] = compute_cost.training_cost(
            gpu_hours=timing.gpu_hours, price_per_gpu_hour=v["price"]
        )
    return out


def _mfu(v: dict[str, Any]) -> dict[str, Any]:
    value = compute_cost.model_flops_utilization(
        tokens_per_second=v["tokens_per_second"],
        gpus=v["gpus"],
        peak_flops_per_gpu=v["peak_flops"],
        parameters=v["params"],
        flops_per_token=v["flops_per_token"],
    )
    return {"mfu": Percent(value)}


def _roofline(v: dict[str, Any]) -> Any:
    return roofline.roofline(
        intensity=v["intensity"], peak_flops=v["peak_flops"], bandwidth=v["bandwidth"]
    )


COST_CALCULATORS: tuple[Calculator, ...] = (
    # compute and cost ----------------------------------------------------------------------
    Calculator(
        name="training-flops",
        family="compute_cost",
        summary="Training compute of a dense transformer.",
        formula="C = 6·N·D",
        source="Kaplan et al. 2020 §2.1; Hoffmann et al. 2022",
        params=(
            PARAMS,
            Param("tokens", Q, "Training tokens D, e.g. 1.4T.", unit="token", bare_unit="token"),
        ),
        run=lambda v: compute_cost.training_flops(parameters=v["params"], tokens=v["tokens"]),
        output_name="flops",
        example="--params 175B --tokens 300B",
    ),
    Calculator(
        name="flops-per-token",
        family="compute_cost",
        summary="Training FLOPs per token: 6N, and the Kaplan, PaLM and Chinchilla forms "
        "with the attention term.",
        formula="6N;  Kaplan 6N + 6·L·T·d_attn;  PaLM 6N + 12·L·d_attn·T;  Chinchilla "
        "3·[4TVd + L(6T·d·d_attn + 4T²·d_attn + 2T·d_attn·d + 4T·d·f)]/T",
        source="Kaplan et al. 2020 §2.1, Table 1; Chowdhery et al. 2022 (PaLM) Appendix B; "
        "Hoffmann et al. 2022 (Chinchilla) Appendix F",
        params=(
            PARAMS,
            LAYERS,
            count("context", "Sequence length T (n_ctx)."),
            count("attention_dim", "Attention width d_attn = heads × head size (usually h)."),
            Param(
                "hidden_size",
                Kind.COUNT,
                "Model width d (Chinchilla; default d_attn).",
                optional=True,
            ),
            Param("ffn_size", Kind.COUNT, "MLP width f (Chinchilla; default 4d).", optional=True),
            Param(
                "vocab", Kind.COUNT, "Vocabulary V (needed for the Chinchilla form).", optional=True
            ),
        ),
        run=lambda v: flops.flops_per_token_forms(
            parameters=v["params"],
            layers=v["layers"],
            sequence_length=v["context"],
            attention_dim=v["attention_dim"],
            hidden_size=v["hidden_size"],
            feed_forward_size=v["ffn_size"],
            vocab_size=v["vocab"],
        ),
        example="--params 175B --layers 96 --context 2048 --attention-dim 12288 --vocab 50257",
    ),
    Calculator(
        name="training-time",
        family="compute_cost",
        summary="Wall time, GPU-hours and cost of a run at a given MFU.",
        formula="T = C / (n·peak·MFU); GPU-hours = n·T; cost = GPU-hours × price",
        source="Kaplan et al. 2020 (C = 6ND); Chowdhery et al. 2022 (MFU)",
        params=(
            Param(
                "flops",
                Q,
                "Training compute C, e.g. 3.15e23 FLOP.",
                unit="FLOP",
                bare_unit="FLOP",
                optional=True,
            ),
            Param(
                "params",
                Q,
                "Model parameters (with --tokens).",
                unit="param",
                bare_unit="param",
                optional=True,
            ),
            Param(
                "tokens",
                Q,
                "Training tokens (with --params).",
                unit="token",
                bare_unit="token",
                optional=True,
            ),
            count("gpus", "Accelerators n."),
            PEAK,
            Param("mfu", Kind.NUMBER, "Model FLOPs utilisation, e.g. 40%.", percent=True),
            Param(
                "price",
                Q,
                "Price per GPU-hour, e.g. $2.50/GPU-hour.",
                unit=PRICE,
                bare_unit=PRICE,
                optional=True,
            ),
        ),
        run=_training_time,
        example="--params 70B --tokens 1.4T --gpus 1024 --gpu h100-sxm --mfu 40% --price 2.50",
    ),
    Calculator(
        name="training-cost",
        family="compute_cost",
        summary="Cost of GPU time.",
        formula="cost = GPU-hours × price",
        source="definition",
        params=(
            Param(
                "gpu_hours",
                Q,
                "GPU time, e.g. 1000 GPU-hours.",
                unit="GPU * hour",
                bare_unit="GPU * hour",
            ),
            Param(
                "price",
                Q,
                "Price per GPU-hour, e.g. $2.50/GPU-hour.",
                unit=PRICE,
                bare_unit=PRICE,
            ),
        ),
        run=lambda v: compute_cost.training_cost(
            gpu_hours=v["gpu_hours"], price_per_gpu_hour=v["price"]
        ),
        output_name="cost",
        example="--gpu-hours 100000 --price 2.50",
    ),
    Calculator(
        name="spot-cost",
        family="compute_cost",
        summary="Spot against on-demand cost with preemptions; break-even preemption count.",
        formula="lost = τ/2 + R; spot = n·(T + k·lost)·p_spot; k* = (p_od/p_spot - 1)·T/lost",
        source="Young 1974 / Daly 2006 first-order lost work",
        params=(
            count("gpus", "Accelerators n."),
            Param("work_time", Q, "Uninterrupted wall time T, e.g. 100h.", unit="s"),
            Param("on_demand_price", Q, "On-demand $/GPU-hour.", unit=PRICE, bare_unit=PRICE),
            Param("spot_price", Q, "Spot $/GPU-hour.", unit=PRICE, bare_unit=PRICE),
            count("preemptions", "Expected preemptions k.", default="0"),
            Param(
                "checkpoint_interval", Q, "Time between checkpoints τ.", unit="s", default="1 hour"
            ),
            Param(
                "restart_time",
                Q,
                "Time to resume after a preemption R.",
                unit="s",
                default="10 min",
            ),
        ),
        run=lambda v: compute_cost.spot_training_cost(
            gpus=v["gpus"],
            work_time=v["work_time"],
            on_demand_price=v["on_demand_price"],
            spot_price=v["spot_price"],
            preemptions=v["preemptions"],
            checkpoint_interval=v["checkpoint_interval"],
            restart_time=v["restart_time"],
        ),
        example="--gpus 64 --work-time 100h --on-demand-price 4 --spot-price 1.5 --preemptions 20",
    ),
    Calculator(
        name="mfu",
        family="compute_cost",
        summary="Model FLOPs utilisation from measured training throughput.",
        formula="MFU = tokens/s × 6N / (n × peak)",
        source="Chowdhery et al. 2022 (PaLM), Appendix B",
        params=(
            Param(
                "tokens_per_second",
                Q,
                "Job throughput, e.g. 238.3K tokens/s.",
                unit="token / s",
                bare_unit="token / s",
            ),
            count("gpus", "Accelerators n."),
            PEAK,
            Param(
                "params", Q, "Model parameters N.", unit="param", bare_unit="param", optional=True
            ),
            Param(
                "flops_per_token",
                Q,
                "FLOPs per token instead of 6N.",
                unit="FLOP / token",
                bare_unit="FLOP / token",
                optional=True,
            ),
        ),
        run=_mfu,
        example="--tokens-per-second 238300 --gpus 6144 --peak-flops 275TFLOP/s --params 540B",
    ),
    Calculator(
        name="chinchilla-tokens",
        family="compute_cost",
        summary="Compute-optimal training tokens for a model size.",
        formula="D ≈ 20·N",
        source="Hoffmann et al. 2022 (Chinchilla)",
        params=(
            PARAMS,
            Param("tokens_per_param", Kind.NUMBER, "Tokens per parameter.", default="20"),
        ),
        run=lambda v: compute_cost.chinchilla_optimal_tokens(
            parameters=v["params"], tokens_per_parameter=v["tokens_per_param"]
        ),
        output_name="tokens",
        example="--params 70B",
    ),
    Calculator(
        name="chinchilla-model",
        family="compute_cost",
        summary="Compute-optimal model size and tokens for a FLOP budget.",
        formula="N = √(C/(6·20)), D = 20·N",
        source="Hoffmann et al. 2022 (Chinchilla); Kaplan et al. 2020 (C = 6ND)",
        params=(
            Param("compute", Q, "Budget C, e.g. 5.76e23 FLOP.", unit="FLOP", bare_unit="FLOP"),
            Param("tokens_per_param", Kind.NUMBER, "Tokens per parameter.", default="20"),
        ),
        run=lambda v: compute_cost.chinchilla_optimal_model(
            compute=v["compute"], tokens_per_parameter=v["tokens_per_param"]
        ),
        example="--compute 5.76e23",
    ),
    # roofline ------------------------------------------------------------------------------
    Calculator(
        name="roofline",
        family="roofline",
        summary="Attainable FLOP/s and the compute- or memory-bound verdict.",
        formula="attainable = min(π, I·β); ridge = π/β",
        source="Williams, Waterman & Patterson 2009 (Roofline)",
        params=(
            Param(
                "intensity",
                Q,
                "Arithmetic intensity I, e.g. 100 FLOP/B.",
                unit="FLOP / byte",
                bare_unit="FLOP / byte",
            ),
            PEAK,
            MEM_BW,
        ),
        run=_roofline,
        example="--gpu a100-80gb --intensity 64",
    ),
    Calculator(
        name="ridge-point",
        family="roofline",
        summary="Arithmetic intensity where compute and memory roofs meet.",
        formula="ridge = π/β",
        source="Williams, Waterman & Patterson 2009 (Roofline)",
        params=(PEAK, MEM_BW),
        run=lambda v: roofline.ridge_point(peak_flops=v["peak_flops"], bandwidth=v["bandwidth"]),
        output_name="ridge_point",
        example="--gpu h100-sxm",
    ),
    Calculator(
        name="gemm-intensity",
        family="roofline",
        summary="Arithmetic intensity of a matrix multiply C(m×n) = A(m×k)·B(k×n).",
        formula="I = 2mnk / (bytes·(mk + kn + mn))",
        source="Williams et al. 2009; NVIDIA Matrix Multiplication Background guide",
        params=(
            count("m", "Rows of A and C."),
            count("n", "Columns of B and C."),
            count("k", "Inner dimension."),
            ELEMENT,
        ),
        run=lambda v: roofline.gemm_intensity(
            m=v["m"], n=v["n"], k=v["k"], bytes_per_element=v["bytes_per_element"]
        ),
        output_name="intensity",
        example="--m 4096 --n 4096 --k 4096",
    ),
    Calculator(
        name="elementwise-intensity",
        family="roofline",
        summary="Arithmetic intensity of an element-wise kernel.",
        formula="I = flops / (bytes·(inputs + outputs))",
        source="Williams et al. 2009",
        params=(
            Param("flops_per_element", Kind.NUMBER, "FLOPs per element.", default="1"),
            count("inputs", "Tensors read.", default="2"),
            count("outputs", "Tensors written.", default="1"),
            ELEMENT,
        ),
        run=lambda v: roofline.elementwise_intensity(
            flops_per_element=v["flops_per_element"],
            inputs=v["inputs"],
            outputs=v["outputs"],
            bytes_per_element=v["bytes_per_element"],
        ),
        output_name="intensity",
        example="--flops-per-element 1",
    ),
)
"""Compute, cost and roofline calculators, in display order."""
