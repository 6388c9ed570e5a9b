"""Descriptions of the numerics, scaling, inference and reliability calculators."""

from __future__ import annotations

from typing import Any

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators import inference, numerics, reliability, scaling
from sysdrill.napkin.calculators._params import (
    ELEMENT,
    FORMAT,
    GPU_MEMORY,
    LAYERS,
    PARAMS,
    SEQ,
    Q,
    count,
    fields,
    with_fit,
)
from sysdrill.napkin.calculators.spec import Calculator, Kind, Param

__all__ = ["OPERATIONS_CALCULATORS"]


def _checkpoint_size(v: dict[str, Any]) -> dict[str, Any]:
    size = reliability.checkpoint_size(
        parameters=v["params"], bytes_per_parameter=v["bytes_per_param"]
    )
    out: dict[str, Any] = {"size": size}
    if v["bandwidth"] is not None:
        out["write_time"] = reliability.checkpoint_write_time(size=size, bandwidth=v["bandwidth"])
    return out


def _checkpoint_interval(v: dict[str, Any]) -> Any:
    mtbf = v["mtbf"]
    if v["devices"] > 1:
        mtbf = reliability.cluster_mtbf(device_mtbf=mtbf, devices=v["devices"])
    result = reliability.checkpoint_interval(checkpoint_time=v["checkpoint_time"], mtbf=mtbf)
    return {"job_mtbf": mtbf, **dict(fields(result))}


def _lr_scaling(v: dict[str, Any]) -> dict[str, Any]:
    peak = scaling.scaled_learning_rate(
        base_learning_rate=v["base_lr"], base_batch=v["base_batch"], batch=v["batch"]
    )
    out: dict[str, Any] = {"scaled_learning_rate": peak}
    warmup = v["warmup_steps"] or 0
    if v["warmup_epochs"] is not None:
        if v["dataset_size"] is None:
            raise UsageError("--warmup-epochs needs --dataset-size to count steps per epoch")
        if v["warmup_steps"] is not None:
            raise UsageError("give --warmup-steps or --warmup-epochs, not both")
        warmup = scaling.warmup_steps_for_epochs(
            warmup_epochs=v["warmup_epochs"], dataset_size=v["dataset_size"], batch=v["batch"]
        )
        out["warmup_steps"] = warmup
    if v["step"] is not None:
        out["learning_rate_at_step"] = scaling.warmup_learning_rate(
            step=v["step"],
            peak_learning_rate=peak,
            warmup_steps=warmup,
            initial_learning_rate=v["base_lr"],
        )
    return out


def _noise_scale(v: dict[str, Any]) -> dict[str, Any]:
    if v["min_steps"] is not None and v["min_examples"] is not None:
        noise = scaling.critical_batch_from_minimums(
            min_steps=v["min_steps"], min_examples=v["min_examples"]
        )
    elif v["variance_trace"] is not None and v["gradient_norm_sq"] is not None:
        noise = scaling.gradient_noise_scale(
            gradient_variance_trace=v["variance_trace"],
            gradient_norm_squared=v["gradient_norm_sq"],
        )
    else:
        raise UsageError(
            "noise-scale needs --variance-trace and --gradient-norm-sq, "
            "or --min-steps and --min-examples"
        )
    out: dict[str, Any] = {"critical_batch": noise}
    if v["batch"] is not None:
        out.update(fields(scaling.batch_tradeoff(batch=v["batch"], noise_scale=noise)))
    return out


def _kv_cache(v: dict[str, Any]) -> Any:
    cache = inference.kv_cache_size(
        layers=v["layers"],
        kv_heads=v["kv_heads"],
        head_dim=v["head_dim"],
        sequence_length=v["sequence_length"],
        batch=v["batch"],
        bytes_per_element=v["bytes_per_element"],
    )
    return with_fit(cache, cache.total, v["gpu_memory"])


OPERATIONS_CALCULATORS: tuple[Calculator, ...] = (
    # numerics ------------------------------------------------------------------------------
    Calculator(
        name="number-format",
        family="numerics",
        summary="Bits, max, min normal, min subnormal and epsilon of a float format.",
        formula="max = (2 - 2^-m)·2^bias (E4M3: 448); min normal 2^(1-bias); eps 2^-m",
        source="IEEE 754-2019; OCP OFP8 1.0 and Micikevicius et al. 2022 for FP8",
        params=(FORMAT,),
        run=lambda v: numerics.format_info(v["format"]),
        example="--format bf16",
    ),
    Calculator(
        name="round-value",
        family="numerics",
        summary="Store a value in a format: rounded value, overflow or underflow.",
        formula="round to nearest, ties to even; beyond max overflows; below min subnormal/2 is 0",
        source="IEEE 754-2019 §4.3",
        params=(Param("value", Kind.NUMBER, "The value, e.g. 70000."), FORMAT),
        run=lambda v: numerics.round_to_format(value=v["value"], fmt=v["format"]),
        example="--value 70000 --format fp16",
    ),
    Calculator(
        name="loss-scale",
        family="numerics",
        summary="What a loss scale does to a small gradient in a format.",
        formula="store(x·S) / S instead of store(x)",
        source="Micikevicius et al. 2018, Mixed Precision Training §3.2",
        params=(
            Param("value", Kind.NUMBER, "Gradient value, e.g. 1e-8."),
            Param("scale", Kind.NUMBER, "Loss scale S, e.g. 1024."),
            FORMAT,
        ),
        run=lambda v: numerics.apply_loss_scale(
            value=v["value"], scale=v["scale"], fmt=v["format"]
        ),
        example="--value 1e-8 --scale 1024",
    ),
    # scaling -------------------------------------------------------------------------------
    Calculator(
        name="amdahl",
        family="scaling",
        summary="Amdahl speedup, efficiency and limit.",
        formula="S = 1/((1-p) + p/N); limit 1/(1-p)",
        source="Amdahl 1967",
        params=(
            Param("parallel_fraction", Kind.NUMBER, "Parallel share p, e.g. 95%.", percent=True),
            count("workers", "Workers N."),
        ),
        run=lambda v: scaling.amdahl_speedup(
            parallel_fraction=v["parallel_fraction"], workers=v["workers"]
        ),
        example="--parallel-fraction 95% --workers 64",
    ),
    Calculator(
        name="gustafson",
        family="scaling",
        summary="Gustafson scaled speedup.",
        formula="S = (1-p) + p·N",
        source="Gustafson 1988, Reevaluating Amdahl's Law",
        params=(
            Param("parallel_fraction", Kind.NUMBER, "Parallel share p, e.g. 95%.", percent=True),
            count("workers", "Workers N."),
        ),
        run=lambda v: scaling.gustafson_speedup(
            parallel_fraction=v["parallel_fraction"], workers=v["workers"]
        ),
        output_name="speedup",
        example="--parallel-fraction 95% --workers 64",
    ),
    Calculator(
        name="global-batch",
        family="scaling",
        summary="Global batch from data-parallel ranks, micro-batch and accumulation.",
        formula="B = dp × micro-batch × accumulation steps",
        source="Goyal et al. 2017 (batch definitions); Narayanan et al. 2021",
        params=(
            count("dp", "Data-parallel ranks."),
            count("micro_batch", "Samples per rank per pass."),
            count("accumulation", "Gradient-accumulation steps.", default="1"),
        ),
        run=lambda v: scaling.global_batch_size(
            data_parallel=v["dp"],
            micro_batch=v["micro_batch"],
            accumulation_steps=v["accumulation"],
        ),
        output_name="global_batch",
        example="--dp 64 --micro-batch 4 --accumulation 8",
    ),
    Calculator(
        name="lr-scaling",
        family="scaling",
        summary="Linear learning-rate scaling with gradual warmup (in steps or epochs).",
        formula="η = η0·B/B0; warmup w = ⌈epochs·dataset/B⌉ steps; η_t = η0 + (η - η0)·t/w",
        source="Goyal et al. 2017, Accurate, Large Minibatch SGD, §2.1-2.2 and §5.1",
        params=(
            Param("base_lr", Kind.NUMBER, "Learning rate η0 at the base batch."),
            count("base_batch", "Base batch B0."),
            count("batch", "New batch B."),
            Param("warmup_steps", Kind.COUNT, "Warmup steps w (default 0).", optional=True),
            Param("warmup_epochs", Kind.NUMBER, "Warmup in epochs (Goyal: 5).", optional=True),
            Param(
                "dataset_size",
                Kind.COUNT,
                "Examples per epoch, for --warmup-epochs (ImageNet 1281167).",
                optional=True,
            ),
            Param("step", Kind.COUNT, "Step to report the warmed-up rate at.", optional=True),
        ),
        run=_lr_scaling,
        example="--base-lr 0.1 --base-batch 256 --batch 8192 --warmup-epochs 5 "
        "--dataset-size 1281167 --step 391",
    ),
    Calculator(
        name="noise-scale",
        family="scaling",
        summary="Critical batch from the gradient noise scale (or E_min/S_min), and the "
        "steps/examples trade-off.",
        formula="B_crit ≈ B_noise = tr(Σ)/|G|², or B_crit = E_min/S_min; "
        "S/S_min = 1 + B_noise/B; E/E_min = 1 + B/B_noise",
        source="McCandlish et al. 2018, An Empirical Model of Large-Batch Training, §2.2, eq. 2.11",
        params=(
            Param(
                "variance_trace",
                Kind.NUMBER,
                "tr(Σ), per-example gradient variance.",
                optional=True,
            ),
            Param(
                "gradient_norm_sq", Kind.NUMBER, "|G|², squared true-gradient norm.", optional=True
            ),
            Param(
                "min_steps", Kind.NUMBER, "S_min, fewest steps to the target loss.", optional=True
            ),
            Param(
                "min_examples",
                Kind.NUMBER,
                "E_min, fewest examples to the target loss.",
                optional=True,
            ),
            Param("batch", Kind.NUMBER, "Batch B to evaluate.", optional=True),
        ),
        run=_noise_scale,
        example="--variance-trace 2000 --gradient-norm-sq 0.5 --batch 1024",
    ),
    # inference -----------------------------------------------------------------------------
    Calculator(
        name="kv-cache",
        family="inference",
        summary="KV-cache size for MHA or GQA.",
        formula="bytes = 2·layers·kv_heads·head_dim·seq·batch·bytes",
        source="Ainslie et al. 2023 (GQA); Touvron et al. 2023 (Llama 2)",
        params=(
            LAYERS,
            count("kv_heads", "Key/value heads (= heads for MHA)."),
            count("head_dim", "Dimension per head."),
            SEQ,
            count("batch", "Concurrent sequences.", default="1"),
            ELEMENT,
            GPU_MEMORY,
        ),
        run=_kv_cache,
        example="--layers 80 --kv-heads 8 --head-dim 128 --sequence-length 4096 --batch 32"
        " --gpu h100-sxm",
    ),
    # reliability ---------------------------------------------------------------------------
    Calculator(
        name="checkpoint-size",
        family="reliability",
        summary="Checkpoint size and, with a bandwidth, its write time.",
        formula="size = N·bytes/param (14 for mixed Adam); time = size/bandwidth",
        source="Rajbhandari et al. 2020 (state per parameter)",
        params=(
            PARAMS,
            Param(
                "bytes_per_param",
                Q,
                "Saved bytes per parameter.",
                unit="byte / param",
                bare_unit="byte / param",
                default="14",
            ),
            Param("bandwidth", Q, "Write bandwidth, e.g. 10GB/s.", unit="byte / s", optional=True),
        ),
        run=_checkpoint_size,
        example="--params 70B --bandwidth 10GB/s",
    ),
    Calculator(
        name="cluster-mtbf",
        family="reliability",
        summary="Mean time between failures of a cluster of devices.",
        formula="MTBF_cluster = MTBF_device / N",
        source="exponential failure model (Young 1974; Daly 2006)",
        params=(
            Param("device_mtbf", Q, "MTBF of one device, e.g. 50000 hours.", unit="s"),
            count("devices", "Devices N."),
        ),
        run=lambda v: reliability.cluster_mtbf(device_mtbf=v["device_mtbf"], devices=v["devices"]),
        output_name="cluster_mtbf",
        example="--device-mtbf 50000h --devices 16384",
    ),
    Calculator(
        name="checkpoint-interval",
        family="reliability",
        summary="Optimal checkpoint interval (Young and Daly).",
        formula="τ = √(2·δ·M); Daly: √(2δM)·(1 + ⅓√(δ/2M) + δ/(18M)) - δ",
        source="Young 1974; Daly 2006",
        params=(
            Param("checkpoint_time", Q, "Time to write a checkpoint δ, e.g. 5min.", unit="s"),
            Param("mtbf", Q, "MTBF of the job, or of one device with --devices.", unit="s"),
            count("devices", "Devices sharing the job (divides --mtbf).", default="1"),
        ),
        run=_checkpoint_interval,
        example="--checkpoint-time 5min --mtbf 24h",
    ),
    Calculator(
        name="lost-work",
        family="reliability",
        summary="Expected work lost to failures over a run.",
        formula="lost = (T/M)·(τ/2 + R)",
        source="Young 1974 (first order)",
        params=(
            Param("run_time", Q, "Run length T, e.g. 30 days.", unit="s"),
            Param("mtbf", Q, "MTBF of the job M.", unit="s"),
            Param("checkpoint_interval", Q, "Time between checkpoints τ.", unit="s"),
            Param("restart_time", Q, "Restart time R.", unit="s", default="0 s"),
        ),
        run=lambda v: reliability.expected_lost_work(
            run_time=v["run_time"],
            mtbf=v["mtbf"],
            checkpoint_interval=v["checkpoint_interval"],
            restart_time=v["restart_time"],
        ),
        example="--run-time 30day --mtbf 3h --checkpoint-interval 30min",
    ),
)
"""Numerics, scaling, inference and reliability calculators, in display order."""
