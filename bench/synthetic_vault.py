"""Generate a synthetic vault shaped like a real StaffML vault, for benchmarks.

``generate_vault(root, count, seed=0)`` writes ``questions/<track>/<id>.yaml``
(one item a file, 2.5-4 KB each, every StaffML field) plus ``taxonomy.yaml``,
``chains.yaml`` and ``decks.yaml``. Every item draws its own sentences and
numbers from a seeded RNG, so no cache keyed on repeated content can stand in
for real parsing and validation, and every item is valid: the generated vault
passes ``sysdrill check`` (benchmarks then measure the real path, not error
paths). Napkin-math lines are computed, not typed: each ``=`` holds to the 4
significant figures printed, and later lines start from the printed values.

``--style real`` writes items shaped like real StaffML questions instead (about
3.7 KB, napkin math of 10-20 claims mixing units and formatting, LaTeX on some
lines): see ``bench/real_style_vault.py``. The default ``classic`` style keeps
the earlier items (2.5-3.6 KB, about 3 simple claims each).

Usage: ``python bench/synthetic_vault.py OUT_DIR [COUNT] [--seed N] [--style classic|real]``.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["TOPICS", "generate_item", "generate_vault"]

TRACK_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("cloud", 40),
    ("edge", 20),
    ("mobile", 20),
    ("tinyml", 15),
    ("global", 5),
)

# Level -> zones whose affinity fits that level, and zone -> Bloom levels allowed.
LEVEL_ZONES: dict[str, tuple[str, ...]] = {
    "L1": ("recall", "fluency"),
    "L2": ("recall", "fluency", "implement"),
    "L3": ("implement", "analyze", "diagnosis"),
    "L4": ("analyze", "diagnosis", "optimization", "specification"),
    "L5": ("evaluation", "design", "optimization", "specification", "diagnosis"),
    "L6+": ("mastery", "design", "realization", "evaluation"),
}
ZONE_BLOOMS: dict[str, tuple[str, ...]] = {
    "recall": ("remember", "understand"),
    "fluency": ("remember", "understand", "apply"),
    "implement": ("apply", "analyze", "create"),
    "analyze": ("apply", "analyze"),
    "diagnosis": ("apply", "analyze", "evaluate"),
    "evaluation": ("analyze", "evaluate"),
    "design": ("apply", "analyze", "evaluate", "create"),
    "specification": ("apply", "analyze", "evaluate", "create"),
    "optimization": ("apply", "analyze", "evaluate", "create"),
    "realization": ("apply", "analyze", "evaluate", "create"),
    "mastery": ("analyze", "evaluate", "create"),
}
LEVELS = tuple(LEVEL_ZONES)
MIN_ITEM_BYTES = 2560
"""Smallest item file written, in bytes (real StaffML items run 2.5-4 KB)."""

TOPICS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # topic id -> (competency area, description, prerequisites)
    "training-compute": ("compute", "Total FLOPs and wall-clock time of a training run", ()),
    "roofline-analysis": ("compute", "Compute- versus memory-bound kernels", ()),
    "mixed-precision": ("precision", "Half-precision formats and loss scaling", ()),
    "batch-sizing": ("optimization", "Micro-batches, accumulation and global batch", ()),
    "data-parallelism": (
        "networking",
        "Gradient synchronisation across replicas",
        ("batch-sizing",),
    ),
    "zero-sharding": (
        "memory",
        "Sharding optimizer states, gradients and weights",
        ("data-parallelism",),
    ),
    "pipeline-parallelism": (
        "parallelism",
        "Stages, micro-batches and bubbles",
        ("data-parallelism",),
    ),
    "tensor-parallelism": (
        "parallelism",
        "Splitting layers across devices",
        ("roofline-analysis",),
    ),
    "checkpointing": ("reliability", "Saving and restoring training state", ("zero-sharding",)),
    "kv-cache": ("memory", "Key/value cache memory during decoding", ("roofline-analysis",)),
}

_ORGS = (
    "a search company",
    "a robotics start-up",
    "a video platform",
    "a bank's research group",
    "a speech team",
    "a recommendation team",
    "a university lab",
    "a drug-discovery group",
    "a translation service",
    "an autonomous-driving team",
    "a code-assistant team",
    "a medical-imaging group",
    "a retail forecasting team",
    "a climate-modelling lab",
)
_PRESSURES = (
    "The launch date is fixed and the budget review is next week.",
    "Leadership wants a number before approving more hardware.",
    "A previous attempt at this run stalled and nobody wrote down why.",
    "The cluster is shared with two other teams, so idle time is visible to everyone.",
    "The on-call engineer suspects the network, but nobody has measured it.",
    "The vendor quoted peak figures that nobody on the team has reproduced.",
    "Power and cooling caps on the site rule out simply adding more machines.",
    "The same configuration must also run on the smaller staging cluster.",
    "A reviewer asked for a back-of-the-envelope estimate before any profiling.",
    "Two engineers disagree about which resource is the real bottleneck.",
)
_CLOSERS = (
    "Measure the real figure with a profiler before committing to the estimate.",
    "State the assumption that moves the answer most and how to check it.",
    "Compare the estimate with a short benchmark of one step.",
    "Re-run the estimate if the model or cluster size changes.",
    "Keep the arithmetic in the design document so reviewers can audit it.",
    "Track the estimate against production telemetry after the change ships.",
)
_CONSEQUENCES = (
    "the team buys hardware it does not need",
    "the run misses its deadline by days",
    "the job crashes with out-of-memory errors mid-run",
    "accelerators sit idle while the bill keeps growing",
    "the fix targets the wrong subsystem and nothing improves",
    "the estimate is off by an order of magnitude",
)


_CONTEXT: tuple[Callable[[random.Random], str], ...] = (
    lambda r: (
        f"Last quarter similar jobs used {r.randint(2, 900) * 100} device-hours and "
        f"{r.randint(2, 40)} of them were restarted at least once."
    ),
    lambda r: (
        f"The monitoring dashboard shows {r.randint(20, 95)} % average utilisation over the "
        f"past {r.randint(2, 30)} days."
    ),
    lambda r: (
        f"The previous version of this workload ran on {r.randint(2, 64)} machines for "
        f"{r.randint(3, 200)} hours without incident."
    ),
    lambda r: (
        f"A colleague measured a {r.randint(5, 60)} % slowdown when {r.randint(2, 12)} jobs "
        "shared the same rack."
    ),
    lambda r: (
        f"The team's budget allows about {r.randint(10, 900)} thousand dollars of compute "
        "this quarter."
    ),
    lambda r: (
        f"Profiling {r.randint(10, 500)} steps showed a spread of {r.randint(2, 30)} % between "
        "the fastest and slowest ranks."
    ),
)
_RATIONALE_TAILS = (
    "Interview pressure rewards a fast answer over a checked one.",
    "The formula they remember was derived for a different setting.",
    "Vendor material rarely states which case its figures assume.",
    "Small test runs hide the effect, which only appears at full scale.",
    "The number looks plausible, so nobody re-derives it.",
)
_RESOURCES = (
    ("Roofline model overview", "https://en.wikipedia.org/wiki/Roofline_model"),
    ("Mixed-precision training", "https://arxiv.org/abs/1710.03740"),
    ("ZeRO memory optimizations", "https://arxiv.org/abs/1910.02054"),
    ("GPipe pipeline parallelism", "https://arxiv.org/abs/1811.06965"),
    ("Megatron-LM tensor parallelism", "https://arxiv.org/abs/1909.08053"),
    ("Scaling laws for language models", "https://arxiv.org/abs/2001.08361"),
)


class _Shown(float):
    """A number rounded for display that remembers how it was printed."""

    text: str = ""


def fmt(value: float) -> str:
    """Format a number with 4 significant figures, plainly or as ``1.23e+09``."""
    if isinstance(value, _Shown):
        return value.text
    if value == 0:
        return "0"
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e7:
        digits = max(0, 3 - math.floor(math.log10(magnitude)))
        text = f"{value:.{digits}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        if "." not in text and value != round(value):
            # A whole number claims exactness; show the rounding instead.
            text = f"{value:.1f}"
        return text
    mantissa, exponent = f"{value:.3e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def num(value: float) -> float:
    """The value as printed by :func:`fmt` (so later lines start from it)."""
    text = fmt(value)
    shown = _Shown(text)
    shown.text = text
    return shown


@dataclass
class Draft:
    """The topic-specific parts of one item."""

    topic: str
    phase: str
    title: str
    scenario: list[str]
    question: str
    solution: list[str]
    pitfall: str
    rationale: str
    assumptions: list[str]
    calculations: list[str]
    conclusion: str
    options: list[str] = field(default_factory=list)


def _dp_allreduce(rng: random.Random, hw: str) -> Draft:
    params_b = (
        rng.choice((1.3, 2.7, 6.7, 7, 8, 13, 20, 30, 34, 40, 65, 70)) + rng.randint(0, 9) / 10
    )
    gpus = rng.choice((8, 16, 32, 48, 64, 96, 128, 256, 512))
    bw = rng.choice((25, 50, 100, 150, 200, 300, 400, 450)) + rng.randint(0, 20)
    grad_gb = num(params_b * 2)
    traffic = num(2 * (gpus - 1) / gpus * grad_gb)
    time_ms = num(traffic / bw * 1000)
    step_ms = rng.randint(300, 3000)
    share = num(time_ms / step_ms * 100)
    return Draft(
        topic="data-parallelism",
        phase="training",
        title=f"Ring All-Reduce Cost for a {fmt(params_b)}B Model on {gpus} {hw}s",
        scenario=[
            f"You run plain data-parallel training of a {fmt(params_b)}B-parameter transformer "
            f"on {gpus} {hw} accelerators with BF16 gradients.",
            f"Each accelerator reaches the others at about {bw} GB/s of bus bandwidth, and "
            f"one optimizer step takes {step_ms} ms of compute.",
        ],
        question=(
            f"How long does one ring all-reduce of the gradients take on {gpus} devices, "
            f"and what share of a {step_ms} ms step is it?"
        ),
        solution=[
            f"A ring all-reduce moves 2(N-1)/N times the gradient volume through every link. "
            f"With {fmt(grad_gb)} GB of BF16 gradients across {gpus} devices, each device "
            f"sends and receives about {fmt(traffic)} GB, which at {bw} GB/s takes "
            f"{fmt(time_ms)} ms.",
            f"That is roughly {fmt(share)} % of the {step_ms} ms compute time; overlapping the "
            "reduction with the backward pass in buckets hides most of it when the share is small.",
        ],
        pitfall="Dividing the gradient volume by the number of devices to get per-link traffic.",
        rationale=(
            "Candidates picture each device sending only its own shard and forget the "
            "reduce-scatter and all-gather phases both cross every link."
        ),
        assumptions=[
            f"{fmt(params_b)}e9 parameters, 2 bytes per BF16 gradient.",
            f"{gpus} devices in one ring, {bw} GB/s per device.",
            f"Compute time per step: {step_ms} ms.",
        ],
        calculations=[
            f"Gradient volume: {fmt(params_b)}e9 * 2 B = {fmt(grad_gb)} GB.",
            f"Traffic per device: 2 * ({gpus} - 1) / {gpus} * {fmt(grad_gb)} GB"
            f" = {fmt(traffic)} GB.",
            f"All-reduce time: {fmt(traffic)} GB / ({bw} GB/s) = {fmt(time_ms)} ms.",
            f"Percent of compute time: {fmt(time_ms)} ms / ({step_ms} ms) * 100 = {fmt(share)}.",
        ],
        conclusion=f"Communication is about {fmt(share)} % of the step before any overlap.",
    )


def _zero_memory(rng: random.Random, hw: str) -> Draft:
    params_b = num(rng.choice((1.5, 3, 7, 13, 22, 30, 65, 70, 110, 175)) + rng.randint(0, 9) / 10)
    gpus = rng.choice((8, 16, 32, 64, 128, 256, 512, 1024))
    hbm = rng.choice((24, 32, 40, 48, 64, 80, 96, 141, 192))
    states = num(params_b * 16)
    per_gpu = num(states / gpus)
    headroom = num(hbm - per_gpu)
    fits = "fits" if per_gpu < hbm else "does not fit"
    return Draft(
        topic="zero-sharding",
        phase="training",
        title=f"ZeRO-3 Memory for {fmt(params_b)}B Parameters on {gpus} {hbm} GB {hw}s",
        scenario=[
            f"A {fmt(params_b)}B-parameter model is trained with Adam in mixed precision on "
            f"{gpus} {hw} devices, each with {hbm} GB of memory.",
            "The team considers fully sharded data parallelism (ZeRO stage 3) so that weights, "
            "gradients and optimizer states are all split across ranks.",
        ],
        question=(
            f"How much memory do the model states take per device under ZeRO-3 on {gpus} "
            f"devices, and how much of the {hbm} GB is left for activations?"
        ),
        solution=[
            "Mixed-precision Adam keeps about 16 bytes per parameter: BF16 weights and "
            "gradients plus FP32 master weights, momentum and variance.",
            f"That is {fmt(states)} GB in total; ZeRO-3 divides it evenly, leaving "
            f"{fmt(per_gpu)} GB per device, so the model state {fits} and {fmt(headroom)} GB "
            "remain for activations, buffers and fragmentation.",
        ],
        pitfall="Counting only the 2-byte weights when sizing memory per device.",
        rationale=(
            "Inference habits carry over; the optimizer's FP32 copies are invisible until "
            "the first step allocates them."
        ),
        assumptions=[
            f"{fmt(params_b)}e9 parameters, 16 bytes each for weights, gradients and Adam state.",
            f"{gpus} devices with {hbm} GB each; activations not counted.",
        ],
        calculations=[
            f"Model states: {fmt(params_b)}e9 * 16 B = {fmt(states)} GB.",
            f"Per device: {fmt(states)} GB / {gpus} = {fmt(per_gpu)} GB.",
            f"Headroom: {hbm} GB - {fmt(per_gpu)} GB = {fmt(headroom)} GB.",
        ],
        conclusion=f"The sharded state {fits}, with {fmt(headroom)} GB left per device.",
    )


def _pipeline_bubble(rng: random.Random, hw: str) -> Draft:
    stages = rng.choice((2, 4, 6, 8, 12, 16, 24, 32))
    micro = rng.choice((4, 8, 12, 16, 24, 32, 48, 64, 128))
    step_ms = rng.randint(800, 9000)
    bubble = num((stages - 1) / (micro + stages - 1))
    idle_ms = num(bubble * step_ms)
    return Draft(
        topic="pipeline-parallelism",
        phase="training",
        title=f"Pipeline Bubble with {stages} Stages and {micro} Micro-Batches",
        scenario=[
            f"A model is split into {stages} pipeline stages across {hw} devices using a "
            f"one-forward-one-backward schedule with {micro} micro-batches per step.",
            f"A full step takes {step_ms} ms and utilisation looks lower than the profile of a "
            "single stage suggests.",
        ],
        question=(
            f"What fraction of each {step_ms} ms step is pipeline bubble with {stages} stages and "
            f"{micro} micro-batches, and how would you shrink it?"
        ),
        solution=[
            f"The bubble fraction (p - 1) / (m + p - 1) is {fmt(bubble)} for {stages} stages "
            f"and {micro} micro-batches, about {fmt(idle_ms)} ms of idle time per step.",
            "More micro-batches per step, interleaved virtual stages, or fewer stages with more "
            "tensor parallelism all shrink it.",
        ],
        pitfall="Assuming every stage is busy the whole step once the pipeline is full.",
        rationale="The fill and drain phases look short on a diagram but repeat every step.",
        assumptions=[
            f"{stages} stages (p), {micro} micro-batches (m), equal stage times.",
            f"Step time {step_ms} ms.",
        ],
        calculations=[
            f"Bubble fraction: ({stages} - 1) / ({micro} + {stages} - 1) = {fmt(bubble)}.",
            f"Idle time: {fmt(bubble)} * {step_ms} ms = {fmt(idle_ms)} ms.",
        ],
        conclusion=f"About {fmt(idle_ms)} ms of every step is bubble.",
    )


def _kv_cache(rng: random.Random, hw: str) -> Draft:
    layers = rng.choice((16, 24, 28, 32, 40, 48, 60, 80, 96))
    heads = rng.choice((1, 2, 4, 8, 16, 32))
    head_dim = rng.choice((64, 80, 96, 128, 256))
    seq = rng.choice((1024, 2048, 4096, 8192, 16384, 32768))
    batch = rng.randint(1, 64)
    per_token = 2 * layers * heads * head_dim * 2
    total_gb = num(per_token * seq * batch / 1e9)
    return Draft(
        topic="kv-cache",
        phase="inference",
        title=f"KV Cache for Batch {batch} at {seq} Tokens on {hw}",
        scenario=[
            f"A decoder with {layers} layers, {heads} key/value heads of dimension {head_dim} "
            f"serves requests on {hw} hardware in FP16.",
            f"The service wants to hold {batch} concurrent sequences of up to {seq} tokens.",
        ],
        question=(
            f"How much memory does the KV cache need for {batch} sequences of {seq} tokens, "
            "and what limits concurrency?"
        ),
        solution=[
            f"Each token stores a key and a value per layer and head: {per_token} bytes. "
            f"Over {seq} tokens and {batch} sequences that is {fmt(total_gb)} GB.",
            "Concurrency is bounded by the memory left after weights; paged allocation and "
            "fewer KV heads raise it.",
        ],
        pitfall="Sizing the cache from the number of query heads rather than key/value heads.",
        rationale="Grouped-query attention shares KV heads, which multi-head formulas ignore.",
        assumptions=[
            f"{layers} layers, {heads} KV heads, head dimension {head_dim}, 2 bytes per value.",
            f"{batch} sequences of {seq} tokens.",
        ],
        calculations=[
            f"Per token: 2 * {layers} * {heads} * {head_dim} * 2 B = {per_token} B.",
            f"Total: {per_token} B * {seq} * {batch} = {fmt(total_gb)} GB.",
        ],
        conclusion=f"The cache needs about {fmt(total_gb)} GB.",
    )


def _roofline(rng: random.Random, hw: str) -> Draft:
    peak = rng.choice((65, 125, 197, 312, 400, 495, 756, 989)) + rng.randint(0, 30)
    bw = num(rng.choice((0.9, 1.6, 2.0, 2.4, 3.35, 4.8)) + rng.randint(0, 9) / 100)
    ridge = num(peak / bw)
    intensity = rng.choice((4, 8, 16, 32, 64, 128, 256, 512, 1024)) + rng.randint(0, 9)
    attainable = num(min(peak, intensity * bw))
    bound = "memory-bound" if intensity < ridge else "compute-bound"
    return Draft(
        topic="roofline-analysis",
        phase="both",
        title=f"Roofline Ridge of a {peak} TFLOP/s {hw} at {fmt(bw)} TB/s",
        scenario=[
            f"A {hw} accelerator peaks at {peak} TFLOP/s in BF16 and streams {fmt(bw)} TB/s from "
            "memory.",
            f"A fused kernel performs {intensity} FLOPs for every byte it reads.",
        ],
        question=(
            f"Is a kernel with arithmetic intensity {intensity} FLOP/B compute- or memory-bound "
            f"on this device, and what throughput can it reach?"
        ),
        solution=[
            f"The ridge point, peak over bandwidth, is {fmt(ridge)} FLOP/B. The kernel sits "
            f"{'below' if intensity < ridge else 'above'} it, so it is {bound}.",
            f"Attainable throughput is the lower of the two roofs, {fmt(attainable)} TFLOP/s.",
        ],
        pitfall="Quoting peak FLOP/s for a kernel without checking its arithmetic intensity.",
        rationale="Datasheets lead with compute peaks; bandwidth ceilings are easy to miss.",
        assumptions=[
            f"Peak {peak} TFLOP/s, bandwidth {fmt(bw)} TB/s.",
            f"Kernel intensity {intensity} FLOP/B.",
        ],
        calculations=[
            f"Ridge point: {peak} TFLOP/s / ({fmt(bw)} TB/s) = {fmt(ridge)} FLOP/B.",
            f"Memory roof: {intensity} FLOP/B * {fmt(bw)} TB/s = {fmt(intensity * bw)} TFLOP/s.",
        ],
        conclusion=f"The kernel is {bound} at about {fmt(attainable)} TFLOP/s.",
    )


def _training_time(rng: random.Random, hw: str) -> Draft:
    params_b = num(rng.choice((0.35, 1.3, 7, 13, 34, 70, 175)) + rng.randint(0, 9) / 10)
    tokens_b = rng.choice((20, 100, 300, 1000, 2000, 15000)) + rng.randint(0, 99)
    gpus = rng.choice((64, 128, 256, 512, 1024, 2048, 4096))
    peak = rng.choice((125, 312, 400, 989))
    mfu = rng.choice((0.3, 0.35, 0.4, 0.45, 0.5, 0.55))
    total = num(6 * params_b * 1e9 * tokens_b * 1e9)
    rate = num(gpus * peak * 1e12 * mfu)
    seconds = num(total / rate)
    days = num(seconds / 86400)
    return Draft(
        topic="training-compute",
        phase="training",
        title=f"Wall-Clock Days to Train {fmt(params_b)}B Parameters on {tokens_b}B Tokens",
        scenario=[
            f"You plan to pre-train a {fmt(params_b)}B-parameter model on {tokens_b}B tokens "
            f"using {gpus} {hw} devices rated at {peak} TFLOP/s each.",
            f"Past runs on this cluster reached {fmt(mfu * 100)} % model FLOPs utilisation.",
        ],
        question=(
            f"Roughly how many days will training take on {gpus} devices at {fmt(mfu * 100)} % MFU?"
        ),
        solution=[
            f"Training costs about 6 FLOPs per parameter per token: {fmt(total)} FLOPs. The "
            f"cluster sustains {fmt(rate)} FLOP/s, so the run takes {fmt(seconds)} s, about "
            f"{fmt(days)} days.",
            "Add margin for restarts, evaluation and data-loader stalls.",
        ],
        pitfall="Using the datasheet peak instead of measured utilisation.",
        rationale="Peak figures assume perfect kernels and no communication.",
        assumptions=[
            f"{fmt(params_b)}e9 parameters, {tokens_b}e9 tokens, 6 FLOPs per parameter-token.",
            f"{gpus} devices, {peak} TFLOP/s peak, MFU {mfu}.",
        ],
        calculations=[
            f"Total compute: 6 FLOP * {fmt(params_b)}e9 * {tokens_b}e9 = {fmt(total)} FLOP.",
            f"Cluster rate: {gpus} * {peak}e12 FLOP/s * {mfu} = {fmt(rate)} FLOP/s.",
            f"Time: {fmt(total)} FLOP / ({fmt(rate)} FLOP/s) = {fmt(seconds)} s.",
            f"In days: {fmt(seconds)} s / (86400 s/day) = {fmt(days)} days.",
        ],
        conclusion=f"Plan for about {fmt(days)} days of training.",
    )


def _batch_sizing(rng: random.Random, hw: str) -> Draft:
    gpus = rng.choice((8, 16, 32, 64, 128, 256))
    micro = rng.choice((1, 2, 4, 8))
    accum = rng.choice((1, 2, 4, 8, 16))
    gbs = gpus * micro * accum
    seq = rng.choice((512, 1024, 2048, 4096, 8192))
    tokens = gbs * seq
    return Draft(
        topic="batch-sizing",
        phase="training",
        title=f"Gradient Accumulation for a Global Batch of {gbs} on {gpus} {hw}s",
        scenario=[
            f"A run on {gpus} {hw} devices fits a micro-batch of {micro} sequences of {seq} "
            "tokens per device.",
            f"The recipe calls for a global batch of {gbs} sequences per optimizer step.",
        ],
        question=(
            f"How many accumulation steps reach a global batch of {gbs} on {gpus} devices, "
            "and how many tokens does each step see?"
        ),
        solution=[
            f"The global batch is devices times micro-batch times accumulation, so {gbs} "
            f"sequences over {gpus} devices at micro-batch {micro} need {accum} "
            "accumulation steps.",
            f"Each optimizer step then covers {tokens} tokens.",
        ],
        pitfall="Raising the micro-batch to reach the global batch instead of accumulating.",
        rationale="The memory cost of a larger micro-batch is invisible in the recipe.",
        assumptions=[f"{gpus} devices, micro-batch {micro}, sequence length {seq}."],
        calculations=[
            f"Accumulation steps: {gbs} / ({gpus} * {micro}) = {accum}.",
            f"Tokens per step: {gbs} * {seq} = {tokens}.",
        ],
        conclusion=f"Use {accum} accumulation steps; each step sees {tokens} tokens.",
    )


def _checkpointing(rng: random.Random, hw: str) -> Draft:
    params_b = num(rng.choice((1.3, 7, 13, 34, 70, 175, 405)) + rng.randint(0, 9) / 10)
    write = rng.choice((2, 5, 10, 20, 40, 80)) + rng.randint(0, 9)
    size = num(params_b * 12)
    seconds = num(size / write)
    interval = rng.choice((10, 15, 20, 30, 60))
    share = num(seconds / (interval * 60) * 100)
    return Draft(
        topic="checkpointing",
        phase="training",
        title=f"Checkpoint Stall for {fmt(params_b)}B Parameters at {write} GB/s",
        scenario=[
            f"A {fmt(params_b)}B-parameter model trains on {hw} devices and saves FP32 weights "
            f"and Adam moments every {interval} minutes.",
            f"The shared file system sustains {write} GB/s of aggregate writes.",
        ],
        question=(
            f"How long does each synchronous checkpoint stall training, and what share of a "
            f"{interval}-minute interval is lost?"
        ),
        solution=[
            f"FP32 weights, momentum and variance take 12 bytes per parameter: {fmt(size)} GB. "
            f"At {write} GB/s a blocking save takes {fmt(seconds)} s.",
            f"That is {fmt(share)} % of each interval; asynchronous saves to host memory "
            "hide most of it.",
        ],
        pitfall="Sizing the checkpoint from the BF16 weights alone.",
        rationale="Resuming needs optimizer state, which is most of the bytes.",
        assumptions=[
            f"{fmt(params_b)}e9 parameters, 12 bytes each, {write} GB/s writes.",
            f"One checkpoint every {interval} minutes.",
        ],
        calculations=[
            f"Checkpoint size: {fmt(params_b)}e9 * 12 B = {fmt(size)} GB.",
            f"Write time: {fmt(size)} GB / ({write} GB/s) = {fmt(seconds)} s.",
            f"Percent of interval: {fmt(seconds)} s / ({interval * 60} s) * 100 = {fmt(share)}.",
        ],
        conclusion=f"Each save stalls about {fmt(seconds)} s, {fmt(share)} % of the interval.",
    )


_TEMPLATES: tuple[Callable[[random.Random, str], Draft], ...] = (
    _dp_allreduce,
    _zero_memory,
    _pipeline_bubble,
    _kv_cache,
    _roofline,
    _training_time,
    _batch_sizing,
    _checkpointing,
)
_HARDWARE: dict[str, tuple[str, ...]] = {
    "cloud": ("A100", "H100", "H200", "MI300X", "TPU v5e", "L40S", "B200"),
    "edge": ("Jetson Orin", "edge server", "L4", "Jetson Xavier"),
    "mobile": ("phone NPU", "tablet GPU", "mobile SoC"),
    "tinyml": ("microcontroller", "Cortex-M7 board", "low-power NPU"),
    "global": ("accelerator", "GPU", "TPU"),
}


class _LiteralDumper(yaml.CSafeDumper if hasattr(yaml, "CSafeDumper") else yaml.SafeDumper):  # type: ignore[misc]
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralDumper.add_representer(str, _represent_str)


def _date(rng: random.Random) -> str:
    return f"2026-{rng.randint(1, 9):02d}-{rng.randint(1, 28):02d}"


def generate_item(rng: random.Random, track: str, item_id: str) -> dict[str, Any]:
    """One valid item as a mapping, drawn from ``rng``."""
    hw = rng.choice(_HARDWARE[track])
    draft = rng.choice(_TEMPLATES)(rng, hw)
    level = rng.choice(LEVELS)
    zone = rng.choice(LEVEL_ZONES[level])
    bloom = rng.choice(ZONE_BLOOMS[zone])
    org = rng.choice(_ORGS)
    scenario = " ".join(
        [
            f"You work with {org}.",
            *draft.scenario,
            *(make(rng) for make in rng.sample(_CONTEXT, 3)),
            *rng.sample(_PRESSURES, 3),
        ]
    )
    solution = "\n\n".join([" ".join(draft.solution), " ".join(rng.sample(_CLOSERS, 2))])
    consequence = rng.choice(_CONSEQUENCES)
    mistake = (
        f"**The Pitfall:** {draft.pitfall}\n"
        f"**The Rationale:** {draft.rationale} {rng.choice(_RATIONALE_TAILS)}\n"
        f"**The Consequence:** The estimate is wrong and {consequence}.\n"
    )
    napkin = "\n".join(
        [
            "**Assumptions & Constraints:**",
            *(f"- {line}" for line in draft.assumptions),
            "**Calculations:**",
            *(f"- {line}" for line in draft.calculations),
            "**Conclusion & Interpretation:**",
            f"- {draft.conclusion}",
            "",
        ]
    )
    details: dict[str, Any] = {
        "realistic_solution": solution + "\n",
        "common_mistake": mistake,
        "napkin_math": napkin,
        "resources": [
            {"name": name, "url": url} for name, url in rng.sample(_RESOURCES, rng.randint(1, 2))
        ],
    }
    if rng.random() < 0.1:
        right = draft.conclusion.rstrip(".")
        details["options"] = [
            right,
            f"{right} (but only after doubling the estimate)",
            "It cannot be estimated without profiling",
            f"Half of that: {draft.pitfall.rstrip('.').lower()}",
        ]
        correct = rng.randrange(4)
        details["options"][0], details["options"][correct] = (
            details["options"][correct],
            details["options"][0],
        )
        details["correct_index"] = correct
    area = TOPICS[draft.topic][0]
    question = draft.question if len(draft.question) <= 200 else draft.question[:196] + "...?"
    return {
        "schema_version": "1.0",
        "id": item_id,
        "track": track,
        "level": level,
        "zone": zone,
        "topic": draft.topic,
        "competency_area": area,
        "bloom_level": bloom,
        "phase": draft.phase,
        "title": draft.title,
        "scenario": scenario,
        "question": question,
        "details": details,
        "status": "published" if rng.random() < 0.9 else "draft",
        "provenance": rng.choice(("human", "imported", "llm-then-human-edited")),
        "requires_explanation": rng.random() < 0.3,
        "expected_time_minutes": rng.randint(3, 20),
        "validated": True,
        "validation_status": "OK",
        "validation_date": _date(rng),
        "validation_model": "synthetic",
        "math_verified": True,
        "math_status": "CORRECT",
        "math_date": _date(rng),
        "math_model": "synthetic",
        "human_reviewed": {"status": "not-reviewed", "by": None, "date": None, "notes": None},
        "tags": sorted({draft.topic, track, level.lower().replace("+", "-plus")}),
        "created_at": f"{_date(rng)}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00",
    }


def _dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_LiteralDumper, sort_keys=False, allow_unicode=True, width=100000)


STYLES = ("classic", "real")
"""Item styles: the earlier short items, or items shaped like real StaffML questions."""


def generate_vault(root: Path, count: int, *, seed: int = 0, style: str = "classic") -> Any:
    """Write a synthetic vault of ``count`` valid items under ``root``.

    Args:
        root: Vault folder to create (``questions/<track>/<id>.yaml`` and the shared files).
        count: Number of item files.
        seed: RNG seed; the same seed writes the same vault.
        style: ``classic`` or ``real`` (see the module docstring).

    Returns:
        For the ``real`` style, the generator's :class:`ClaimStats` (lines,
        claims and LaTeX lines written); None for ``classic``.
    """
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; use one of {', '.join(STYLES)}")
    stats = None
    make_item: Callable[[random.Random, str, str], dict[str, Any]] = generate_item
    if style == "real":
        from real_style_vault import ClaimStats, generate_real_item

        stats = ClaimStats()

        def make_item(rng: random.Random, track: str, item_id: str) -> dict[str, Any]:
            return generate_real_item(rng, track, item_id, stats)

    rng = random.Random(seed)
    tracks = [name for name, _ in TRACK_WEIGHTS]
    weights = [weight for _, weight in TRACK_WEIGHTS]
    counters = dict.fromkeys(tracks, 1000)
    by_topic: dict[str, list[tuple[int, str]]] = {}
    ids: list[str] = []
    for _ in range(count):
        track = rng.choices(tracks, weights)[0]
        counters[track] += 1
        item_id = f"{track}-{counters[track]}"
        item = make_item(rng, track, item_id)
        text = _dump(item)
        while len(text.encode("utf-8")) < MIN_ITEM_BYTES:
            item["scenario"] += " " + rng.choice(_CONTEXT)(rng)
            text = _dump(item)
        folder = root / "questions" / track
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{item_id}.yaml").write_text(text, encoding="utf-8")
        ids.append(item_id)
        rank = LEVELS.index(item["level"])
        by_topic.setdefault(item["topic"], []).append((rank, item_id))
    taxonomy = {
        "topics": [
            {"id": topic, "area": area, "description": desc, "prerequisites": list(prereq)}
            for topic, (area, desc, prereq) in TOPICS.items()
        ]
    }
    chains = []
    for topic, members in sorted(by_topic.items()):
        # Disjoint groups of five, ordered by level so a chain never steps down.
        rng.shuffle(members)
        groups = max(1, min(len(members) // 5, len(members) // 200 + 1))
        for index in range(groups):
            group = sorted(members[index * 5 : index * 5 + 5])
            chains.append(
                {"id": f"{topic}-chain-{index + 1}", "topic": topic, "items": [i for _, i in group]}
            )
    decks = {
        "decks": [
            {
                "name": f"synthetic-{n + 1}",
                "title": f"Synthetic deck {n + 1}",
                "items": rng.sample(ids, min(len(ids), 25)),
            }
            for n in range(max(1, count // 1000))
        ]
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "taxonomy.yaml").write_text(_dump(taxonomy), encoding="utf-8")
    (root / "chains.yaml").write_text(_dump({"chains": chains}), encoding="utf-8")
    (root / "decks.yaml").write_text(_dump(decks), encoding="utf-8")
    return stats


def main() -> None:
    """Command-line entry: write a synthetic vault."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="vault folder to write")
    parser.add_argument("count", type=int, nargs="?", default=10711, help="number of items")
    parser.add_argument("--seed", type=int, default=0, help="RNG seed")
    parser.add_argument("--style", choices=STYLES, default="classic", help="item style")
    args = parser.parse_args()
    stats = generate_vault(args.out, args.count, seed=args.seed, style=args.style)
    if stats is not None:
        print(stats)


if __name__ == "__main__":
    main()
