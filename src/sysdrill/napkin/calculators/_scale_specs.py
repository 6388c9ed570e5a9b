"""Descriptions of the ZeRO, all-reduce, expert-parallel, utilisation and inference calculators."""

from __future__ import annotations

from typing import Any

from sysdrill.errors import UsageError
from sysdrill.napkin.calculators import (
    allreduce,
    dtypes,
    flops,
    inference,
    memory,
    moe,
    zero,
)
from sysdrill.napkin.calculators._params import (
    BANDWIDTH,
    GPU_MEMORY,
    LATENCY,
    MESSAGE,
    PEAK,
    RANKS,
    Q,
    count,
    with_fit,
)
from sysdrill.napkin.calculators._quantity import quantity
from sysdrill.napkin.calculators.spec import Calculator, Fill, Kind, Param

__all__ = ["SCALE_CALCULATORS"]

_OPTIONAL_PARAMS = Param(
    "params",
    Q,
    "Model parameters Ψ, e.g. 7B (or give --layers and --hidden-size).",
    unit="param",
    bare_unit="param",
    optional=True,
)
_OPTIONAL_LAYERS = Param(
    "layers", Kind.COUNT, "Transformer layers L (with --hidden-size).", optional=True
)
_OPTIONAL_HIDDEN = Param("hidden_size", Kind.COUNT, "Hidden size h (with --layers).", optional=True)
_VOCAB = Param("vocab", Kind.COUNT, "Vocabulary V (adds V·h embedding parameters).", default="0")
_STAGE = count("zero", "ZeRO stage 0-3 (0 = plain DDP).")


def _dtype(name: str, help: str) -> Param:
    return Param(name, Kind.CHOICE, help, default="bf16", choices=dtypes.DType)


def _link_param(name: str, help: str, fill: Fill) -> Param:
    if fill in (Fill.GPU_LINK_LATENCY, Fill.LINK_LATENCY):
        return Param(name, Q, help, unit="s", default="0 s", fill=fill)
    return Param(name, Q, help, unit="byte / s", fill=fill)


def _model_size(v: dict[str, Any]) -> Any:
    """Ψ from --params, or 12·L·h² (+ V·h) from --layers and --hidden-size."""
    if v["params"] is not None:
        return v["params"]
    if v["layers"] is None or v["hidden_size"] is None:
        raise UsageError("give --params, or --layers and --hidden-size (Ψ ≈ 12·L·h² + V·h)")
    return zero.transformer_parameters(
        layers=v["layers"], hidden_size=v["hidden_size"], vocab_size=v["vocab"]
    )


def _zero_communication(v: dict[str, Any]) -> Any:
    return zero.zero_communication(
        parameters=_model_size(v),
        zero_stage=v["zero"],
        data_parallel=v["gpus"],
        bytes_per_element=dtypes.bytes_per_element(v["dtype"]),
        bandwidth=v["bandwidth"],
        compute_time=v["compute_time"],
    )


def _zero_memory(v: dict[str, Any]) -> dict[str, Any]:
    psi = _model_size(v)
    largest = v["largest_layer"]
    if largest is None and v["hidden_size"] is not None:
        # One module at a time: an h×4h MLP matrix, or the V×h embedding if larger.
        h = v["hidden_size"]
        largest = quantity(max(4 * h * h, v["vocab"] * h), "param")
    estimate = zero.deepspeed_memory_estimate(
        parameters=psi,
        zero_stage=v["zero"],
        gpus_per_node=v["gpus_per_node"],
        nodes=v["nodes"],
        offload_optimizer=v["offload_optimizer"],
        offload_parameters=v["offload_params"],
        largest_layer_parameters=largest,
        zero_init=not v["no_zero_init"],
    )
    return {"parameters": psi, **with_fit(estimate, estimate.per_gpu, v["gpu_memory"])}


def _hfu(v: dict[str, Any]) -> Any:
    return flops.flops_utilization(
        tokens_per_second=v["tokens_per_second"],
        gpus=v["gpus"],
        peak_flops_per_gpu=v["peak_flops"],
        layers=v["layers"],
        hidden_size=v["hidden_size"],
        sequence_length=v["sequence_length"],
        vocab_size=v["vocab"],
        recompute=v["recompute"],
    )


def _inference_memory(v: dict[str, Any]) -> dict[str, Any]:
    result = inference.inference_memory(
        parameters=v["params"],
        layers=v["layers"],
        kv_heads=v["kv_heads"],
        head_dim=v["head_dim"],
        hidden_size=v["hidden_size"],
        sequence_length=v["sequence_length"],
        batch=v["batch"],
        weight_dtype=v["weight_dtype"],
        kv_dtype=v["kv_dtype"],
        activation_dtype=v["activation_dtype"],
        feed_forward_size=v["ffn_size"],
        tensor_parallel=v["tp"],
    )
    return with_fit(result, result.total, v["gpu_memory"])


def _hierarchical(v: dict[str, Any]) -> Any:
    return allreduce.hierarchical_allreduce_time(
        nodes=v["nodes"],
        gpus_per_node=v["gpus_per_node"],
        message=v["message"],
        intra_bandwidth=v["intra_bandwidth"],
        inter_bandwidth=v["inter_bandwidth"],
        intra_latency=v["intra_latency"],
        inter_latency=v["inter_latency"],
    )


def _moe_all_to_all(v: dict[str, Any]) -> Any:
    return moe.expert_parallel_all_to_all(
        tokens=v["tokens"],
        hidden_size=v["hidden_size"],
        top_k=v["top_k"],
        experts=v["experts"],
        expert_parallel=v["expert_parallel"],
        bytes_per_element=dtypes.bytes_per_element(v["dtype"]),
        bandwidth=v["bandwidth"],
        latency=v["latency"],
        capacity_factor=v["capacity_factor"],
        moe_layers=v["moe_layers"],
        training=not v["inference"],
    )


_ZERO_SOURCE = "Rajbhandari et al. 2020, ZeRO, §7.2-7.3 (communication analysis)"
_DEEPSPEED_SOURCE = (
    "DeepSpeed docs 'Memory Requirements' (estimate_zero2/3_model_states_mem_needs); "
    "Rajbhandari et al. 2020, ZeRO, Figure 1 for stages 0-1"
)

SCALE_CALCULATORS: tuple[Calculator, ...] = (
    Calculator(
        name="zero-communication",
        family="zero",
        summary="Per-rank traffic of DDP and ZeRO-1/2/3 per step, and step time with and "
        "without overlap.",
        formula="volume: DDP, ZeRO-1, ZeRO-2 2Ψ; ZeRO-3 3Ψ (1.5× DDP); "
        "sent = volume·(N-1)/N·bytes; no overlap: compute + sent/β; overlap: max(compute, sent/β)",
        source=_ZERO_SOURCE,
        params=(
            _OPTIONAL_PARAMS,
            _OPTIONAL_LAYERS,
            _OPTIONAL_HIDDEN,
            _VOCAB,
            _STAGE,
            count("gpus", "Data-parallel ranks N."),
            _dtype("dtype", "Format of the communicated gradients and parameters."),
            Param(
                "bandwidth",
                Q,
                "Per-rank bus bandwidth β, e.g. 50GB/s.",
                unit="byte / s",
                fill=Fill.LINK_BANDWIDTH,
                optional=True,
            ),
            Param(
                "compute_time",
                Q,
                "Forward + backward time of a step, e.g. 1.2s (with a bandwidth).",
                unit="s",
                optional=True,
            ),
        ),
        run=_zero_communication,
        example="--params 7.5B --zero 3 --gpus 64 --link infiniband-ndr --compute-time 2s",
    ),
    Calculator(
        name="zero-memory",
        family="zero",
        summary="DeepSpeed's per-GPU and per-node CPU memory for ZeRO stages 0-3, with or "
        "without CPU offload.",
        formula="Ψ ≈ 12·L·h² + V·h if not given; GPU: Z0 16Ψ; Z1 4Ψ+12Ψ/N; Z2 4Ψ+16Ψ/N, "
        "offload 2Ψ; Z3 4ℓ+18Ψ/N, optimizer offload 4ℓ+2Ψ/N, all offload 4ℓ; CPU: Z2 "
        "4ΨG·1.5 or Ψ·max(4N,16)·1.5 offloaded; Z3 4ℓG·1.5, 16Ψ·1.5/nodes, 18Ψ·1.5/nodes",
        source=_DEEPSPEED_SOURCE,
        params=(
            _OPTIONAL_PARAMS,
            _OPTIONAL_LAYERS,
            _OPTIONAL_HIDDEN,
            _VOCAB,
            _STAGE,
            count("gpus_per_node", "GPUs per node G.", default="1"),
            count("nodes", "Nodes.", default="1"),
            Param(
                "offload_optimizer",
                Kind.FLAG,
                "Optimizer states on the CPU (ZeRO-Offload).",
                default="false",
            ),
            Param(
                "offload_params", Kind.FLAG, "Parameters on the CPU too (ZeRO-3).", default="false"
            ),
            Param(
                "largest_layer",
                Q,
                "Parameters of the largest module ℓ (ZeRO-3), e.g. 100M; default max(4h², V·h).",
                unit="param",
                bare_unit="param",
                optional=True,
            ),
            Param(
                "no_zero_init",
                Kind.FLAG,
                "ZeRO-3 model built whole first (no zero.Init).",
                default="false",
            ),
            GPU_MEMORY,
        ),
        run=_zero_memory,
        example="--params 2851M --zero 2 --gpus-per-node 8 --offload-optimizer",
    ),
    Calculator(
        name="allreduce-algorithms",
        family="collectives",
        summary="One all-reduce timed by ring, double binary tree, recursive doubling and "
        "Rabenseifner's halving-doubling.",
        formula="ring 2(p-1)α + 2(p-1)/p·n/β; tree 2⌈log2 p⌉α + 2n/β; "
        "doubling ⌈log2 p⌉(α + n/β); halving-doubling 2⌈log2 p⌉α + 2(p-1)/p·n/β",
        source="Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005 §4.3; Patarasuk & Yuan "
        "2009; Sanders, Speck & Träff 2009 (NCCL double binary trees)",
        params=(RANKS, MESSAGE, BANDWIDTH, LATENCY),
        run=lambda v: allreduce.compare_allreduce(
            ranks=v["ranks"], message=v["message"], bandwidth=v["bandwidth"], latency=v["latency"]
        ),
        example="--ranks 64 --message 64KB --bandwidth 25GB/s --latency 5us",
    ),
    Calculator(
        name="hierarchical-allreduce",
        family="collectives",
        summary="Two-level all-reduce: reduce-scatter in the node, all-reduce across nodes, "
        "all-gather in the node; against one flat ring.",
        formula="2[(g-1)α_in + (g-1)/g·n/β_in] + 2(m-1)α_out + 2(m-1)/m·(n/g)/β_out; "
        "flat 2(p-1)α_out + 2(p-1)/p·n/β_out",
        source="Jia et al. 2018 (hierarchical all-reduce) §4.3; Thakur et al. 2005; "
        "Patarasuk & Yuan 2009",
        params=(
            count("nodes", "Nodes m."),
            count("gpus_per_node", "GPUs per node g."),
            MESSAGE,
            _link_param(
                "intra_bandwidth",
                "Bandwidth inside a node, e.g. 450GB/s (--gpu: its NVLink).",
                Fill.GPU_LINK_BANDWIDTH,
            ),
            _link_param(
                "inter_bandwidth",
                "Per-GPU bandwidth across nodes, e.g. 50GB/s (--link: one NIC).",
                Fill.LINK_BANDWIDTH,
            ),
            _link_param(
                "intra_latency", "Latency inside a node (default 0).", Fill.GPU_LINK_LATENCY
            ),
            _link_param("inter_latency", "Latency across nodes (default 0).", Fill.LINK_LATENCY),
        ),
        run=_hierarchical,
        example="--nodes 16 --gpus-per-node 8 --message 1GB --gpu h100-sxm --link infiniband-ndr",
    ),
    Calculator(
        name="moe-all-to-all",
        family="moe",
        summary="Expert-parallel all-to-all per MoE layer: expert capacity, bytes each rank "
        "sends and time, for training or inference.",
        formula="capacity C = ⌈T·k·c/E⌉; slots E·C (dropless T·k); n = slots·h·bytes; one "
        "all-to-all (p-1)α + (p-1)/p·n/β; 4 per layer in training (2 in inference), "
        "× MoE layers",
        source="Lepikhin et al. 2020 (GShard) §2.2-3.1; Fedus et al. 2021 (Switch "
        "Transformers) §2.2, Figure 3; Megatron Core moe_utils.get_capacity; NCCL-tests "
        "PERFORMANCE.md (all-to-all (n-1)/n)",
        params=(
            count("tokens", "Tokens T on each rank per micro-batch (batch × sequence)."),
            count("hidden_size", "Model width h."),
            count("top_k", "Experts each token is routed to k.", default="2"),
            count("experts", "Experts E per MoE layer (a multiple of --expert-parallel)."),
            count("expert_parallel", "Expert-parallel ranks p."),
            _dtype("dtype", "Format of the dispatched activations."),
            BANDWIDTH,
            LATENCY,
            Param(
                "capacity_factor",
                Kind.NUMBER,
                "Capacity factor c, e.g. 1.25 (absent: dropless routing, no padding).",
                optional=True,
            ),
            count("moe_layers", "MoE layers in the model.", default="1"),
            Param(
                "inference",
                Kind.FLAG,
                "Inference: dispatch and combine only (2 all-to-alls per layer, not 4).",
                default="false",
            ),
        ),
        run=_moe_all_to_all,
        example="--tokens 8192 --hidden-size 4096 --top-k 2 --experts 8 --expert-parallel 8 "
        "--capacity-factor 1.25 --moe-layers 32 --link nvlink-4",
    ),
    Calculator(
        name="hfu",
        family="flops",
        summary="Hardware FLOPs utilisation beside MFU, with no, selective or full "
        "activation recomputation.",
        formula="model FLOPs/token 72Lh²(1 + s/6h + V/12Lh); full recompute 96Lh²(1 + s/6h + "
        "V/16Lh); selective adds 4sh per layer: 72Lh²(1 + s/6h + s/18h + V/12Lh); "
        "MFU, HFU = tokens/s × FLOPs/token / (n·peak)",
        source="Narayanan et al. 2021 (Megatron-LM) Appendix (72 and 96 forms); Korthikanti "
        "et al. 2022 §5, §6.3 and App. A (selective recomputation reruns the forward of the s² "
        "terms, counted in hardware FLOPs); Chowdhery et al. 2022 (PaLM) "
        "App. B (MFU, HFU)",
        params=(
            Param(
                "tokens_per_second",
                Q,
                "Job throughput, e.g. 1.2M tokens/s.",
                unit="token / s",
                bare_unit="token / s",
            ),
            count("gpus", "Accelerators n."),
            PEAK,
            count("layers", "Layers L."),
            count("hidden_size", "Hidden size h."),
            count("sequence_length", "Sequence length s."),
            count("vocab", "Vocabulary V."),
            Param(
                "recompute",
                Kind.CHOICE,
                "Activation recomputation.",
                default="full",
                choices=memory.Recompute,
            ),
        ),
        run=_hfu,
        example="--tokens-per-second 150000 --gpus 1024 --gpu a100-80gb --layers 96 "
        "--hidden-size 12288 --sequence-length 2048 --vocab 51200 --recompute selective",
    ),
    Calculator(
        name="inference-memory",
        family="inference",
        summary="Serving memory per GPU: weights + KV cache + prefill activations, by "
        "precision and batch.",
        formula="weights N·bytes_w/t; KV 2·L·kv_heads·head_dim·s·b·bytes_kv/t; "
        "activations b·s·(h + f/t)·bytes_a",
        source="Pope et al. 2022, Efficiently Scaling Transformer Inference §2-3; "
        "Ainslie et al. 2023 (GQA)",
        params=(
            Param("params", Q, "Model parameters N, e.g. 70B.", unit="param", bare_unit="param"),
            count("layers", "Layers L."),
            count("kv_heads", "Key/value heads (attention heads for MHA)."),
            count("head_dim", "Size of each head."),
            count("hidden_size", "Model width h."),
            count("sequence_length", "Prompt + generated tokens per sequence s."),
            count("batch", "Concurrent sequences b.", default="1"),
            _dtype("weight_dtype", "Weight format."),
            _dtype("kv_dtype", "KV-cache format."),
            _dtype("activation_dtype", "Activation format."),
            Param("ffn_size", Kind.COUNT, "MLP width f (default 4h).", optional=True),
            count("tp", "Tensor-parallel GPUs t.", default="1"),
            GPU_MEMORY,
        ),
        run=_inference_memory,
        example="--params 70B --layers 80 --kv-heads 8 --head-dim 128 --hidden-size 8192 "
        "--ffn-size 28672 --sequence-length 4096 --batch 16 --weight-dtype fp8 --gpu h100-sxm",
    ),
)
"""ZeRO, all-reduce, expert-parallel, utilisation and inference-memory calculators, in display
order."""
