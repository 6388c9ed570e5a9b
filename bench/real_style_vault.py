r"""Items shaped like real StaffML questions, for the real-sized vault bench (issue 11).

Real StaffML question files run about 3.7 KB, and their ``napkin_math`` holds
10-20 claims that mix units, rates and formatting: Markdown bold around labels
and results, inline code spans, ``$...$`` LaTeX (``\times``, ``\approx``,
``\frac{a}{b}``, ``\text{GB}``), ``×``, ``≈`` and ``→``, parentheticals
("(bf16)", "(per GPU)") and per-unit rates (``$2.10/GPU-hour``,
``ms/token``). :func:`generate_real_item` writes such an item from templates of
our own: every sentence is recombined from the pieces below, no vault text is
copied.

Every claim is computed, not typed, and holds to the precision it is printed
with (exact products are written in full; rounded results carry ``≈`` and
three significant figures), so ``sysdrill check`` on a vault of these items must
report no napkin finding at all: each one would be a false alarm.

LaTeX share: in the labelled corpus ``tests/data/napkin/corpus.tsv`` 8 of 662
lines hold a backslash (1.2 %), in ``heldout.tsv`` 7 of 161 (4.3 %), and the
two StaffML questions in the shared seeds none of their 20 napkin lines: 15 of
843 lines in all (1.8 %). :data:`LATEX_SHARE` writes 5 % of claim lines in
LaTeX, above every measured split, so the LaTeX path is not under-weighted.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import synthetic_vault as base

__all__ = ["LATEX_SHARE", "ClaimStats", "generate_real_item"]

LATEX_SHARE = 0.05
"""Share of claim lines written as ``$...$`` LaTeX (measured share: 1.8 %, see above)."""


@dataclass(frozen=True, slots=True)
class _Accelerator:
    name: str
    memory_gb: int
    bandwidth_tbs: float
    tflops: int
    watts: int
    price_hour: float


_ACCELERATORS = (
    _Accelerator("A100 40GB", 40, 1.555, 312, 400, 1.6),
    _Accelerator("A100 80GB", 80, 2.039, 312, 400, 2.1),
    _Accelerator("H100", 80, 3.35, 989, 700, 2.5),
    _Accelerator("H200", 141, 4.8, 989, 700, 3.2),
    _Accelerator("MI300X", 192, 5.3, 1307, 750, 3.0),
    _Accelerator("L4", 24, 0.3, 121, 72, 0.8),
    _Accelerator("V100", 32, 0.9, 125, 300, 0.9),
)
_DTYPES = (("bf16", 2), ("fp16", 2), ("fp32", 4), ("FP8", 1), ("int8", 1))
_PARAMS_B = (1.3, 2.7, 7, 8, 13, 14, 30, 34, 40, 65, 70, 175, 405)


def sig3(value: float) -> str:
    """``value`` rounded to three significant figures, with thousands separators."""
    if value == 0:
        return "0"
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    rounded = round(value, digits)
    if digits == 0:
        return f"{int(rounded):,}"
    return f"{rounded:,.{digits}f}"


def exact(value: float) -> str:
    """An exact value in full (``327,680``, ``17.5``), trailing zeros dropped."""
    if value == int(value):
        return f"{int(value):,}"
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text


def _result(value: float, unit: str = "") -> tuple[str, str]:
    """The relation and the printed result: ``=`` and the value in full when it is
    exact to four decimals, else ``≈`` and three significant figures."""
    tail = unit if unit in ("", "%") else f" {unit}"
    if value < 1e7 and abs(round(value, 4) - value) <= 1e-9 * max(1.0, abs(value)):
        return "=", exact(value) + tail
    return "≈", sig3(value) + tail


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim: its label, the expression and its printed result."""

    label: str
    left: str
    unit: str
    value: float
    note: str = ""
    shown: str = ""
    """The right-hand side as written, when not the value in full (``8.4e22 FLOPs``)."""

    def _right(self) -> tuple[str, str]:
        return ("=", self.shown) if self.shown else _result(self.value, self.unit)

    def plain(self) -> str:
        relation, right = self._right()
        return f"{self.left} {relation} {right}"

    def latex(self) -> str:
        r"""The claim as ``$...$`` LaTeX: ``\times``, ``\approx``, ``\text{ GB}``, ``{,}``."""
        relation, right = self._right()
        left = self.left
        fraction = left.split(" / ")
        if len(fraction) == 2 and "(" not in left and "×" not in left:
            left = "\\frac{" + fraction[0] + "}{" + fraction[1] + "}"
        body = f"{left} {relation} {right}"
        body = body.replace("×", "\\times").replace("≈", "\\approx")
        body = body.replace(",", "{,}")
        for unit in sorted(
            {word for word in body.split() if word.isalpha() and len(word) > 1}, key=len
        ):
            body = body.replace(f" {unit}", f"\\text{{ {unit}}}")
        return f"${body}$"


Maker = Callable[[random.Random, _Accelerator], Claim]


def _params(rng: random.Random) -> float:
    return rng.choice(_PARAMS_B)


def _weights(rng: random.Random, hw: _Accelerator) -> Claim:
    params = _params(rng)
    dtype, size = rng.choice(_DTYPES)
    return Claim(f"Weights ({dtype})", f"{exact(params)}B params × {size} B", "GB", params * size)


def _training_state(rng: random.Random, hw: _Accelerator) -> Claim:
    params = _params(rng)
    label = "Training state (Adam, mixed precision)"
    return Claim(label, f"{exact(params)}B × 16 B/param", "GB", params * 16)


def _shard(rng: random.Random, hw: _Accelerator) -> Claim:
    total = _params(rng) * 16
    gpus = rng.choice((8, 16, 32, 64, 128, 256))
    return Claim(
        "ZeRO-3 shard", f"{exact(total)} GB / {gpus} GPUs", "GB", total / gpus, "(per GPU)"
    )


def _kv_token(rng: random.Random, hw: _Accelerator) -> Claim:
    layers = rng.choice((24, 32, 40, 48, 60, 80, 96, 126))
    heads = rng.choice((8, 16, 32))
    dim = rng.choice((64, 128))
    return Claim(
        "KV cache per token",
        f"2 × {layers} layers × {heads} × {dim} × 2 B",
        "B",
        2 * layers * heads * dim * 2,
    )


def _kv_sequence(rng: random.Random, hw: _Accelerator) -> Claim:
    per_token = 2 * rng.choice((32, 40, 80)) * rng.choice((8, 32)) * 128 * 2
    tokens = rng.choice((2048, 4096, 8192, 32_768, 131_072))
    return Claim(
        "KV cache per sequence",
        f"{tokens:,} tokens × {per_token:,} B",
        "GB",
        tokens * per_token / 1e9,
    )


def _memory_time(rng: random.Random, hw: _Accelerator) -> Claim:
    size = rng.choice((14, 16, 26, 60, 80, 140, 350)) + rng.randint(0, 9) / 10
    return Claim(
        f"Weight read on {hw.name} ({hw.bandwidth_tbs} TB/s)",
        f"{exact(size)} GB / {hw.bandwidth_tbs} TB/s",
        "ms",
        size / hw.bandwidth_tbs,
        "→ memory-bound decode",
    )


def _training_flops(rng: random.Random, hw: _Accelerator) -> Claim:
    params = rng.choice((1, 2, 3, 7, 8, 13, 70))
    tokens = rng.choice((1, 2, 3, 4, 15))
    product = 6 * params * tokens  # exact: the mantissa before 10^21
    power = 21 + len(str(product)) - 1
    mantissa = exact(product / 10 ** (len(str(product)) - 1))
    spelled = rng.choice(
        (f"{mantissa}e{power}", f"{mantissa} × 10^{power}", f"{mantissa}×10^{power}")
    )
    return Claim(
        "Training compute (6ND)",
        f"6 × {params}B × {tokens}T tokens",
        "FLOPs",
        product * 1e21,
        shown=f"{spelled} FLOPs",
    )


def _cluster(rng: random.Random, hw: _Accelerator) -> Claim:
    nodes = rng.choice((2, 4, 8, 16, 32, 64, 128))
    return Claim(f"Cluster ({hw.name} nodes)", f"{nodes} nodes × 8 GPUs", "GPUs", nodes * 8)


def _cluster_flops(rng: random.Random, hw: _Accelerator) -> Claim:
    gpus = rng.choice((8, 64, 256, 512, 1024))
    mfu = rng.choice((30, 35, 40, 45, 50))
    return Claim(
        "Sustained compute",
        f"{gpus} × {hw.tflops} TFLOPS × {mfu}%",
        "PFLOPS",
        gpus * hw.tflops * mfu / 100 / 1000,
        f"({mfu}% MFU)",
    )


def _cost(rng: random.Random, hw: _Accelerator) -> Claim:
    hours = rng.randint(2, 400) * 100
    return Claim(
        "Cost", f"{hours:,} GPU-hours × ${hw.price_hour:.2f}/GPU-hour", "", hours * hw.price_hour
    )


def _energy(rng: random.Random, hw: _Accelerator) -> Claim:
    hours = rng.choice((1, 8, 24, 168))
    return Claim(
        f"{hw.name} ({hw.watts} W)", f"{hw.watts} W × {hours} h", "kWh", hw.watts * hours / 1000
    )


def _utilisation(rng: random.Random, hw: _Accelerator) -> Claim:
    achieved = rng.randint(40, 95) * hw.tflops // 100
    return Claim(
        "Utilisation",
        f"{achieved} TFLOPS / {hw.tflops} TFLOPS",
        "%",
        achieved / hw.tflops * 100,
    )


def _accumulation(rng: random.Random, hw: _Accelerator) -> Claim:
    gpus = rng.choice((16, 32, 64, 128))
    micro = rng.choice((1, 2, 4))
    steps = rng.choice((2, 4, 8))
    return Claim(
        "Gradient accumulation",
        f"{gpus * micro * steps} / ({gpus} × {micro})",
        "steps",
        steps,
    )


def _tokens_per_step(rng: random.Random, hw: _Accelerator) -> Claim:
    batch = rng.choice((256, 512, 1024, 2048))
    seq = rng.choice((2048, 4096, 8192))
    return Claim("`tokens_per_step`", f"{batch} × {seq:,} tokens", "tokens", batch * seq)


def _power_of_two(rng: random.Random, hw: _Accelerator) -> Claim:
    power = rng.randint(10, 24)
    return Claim("Loss-scale factor", f"2^{power}", "", 2**power)


def _link(rng: random.Random, hw: _Accelerator) -> Claim:
    gbps = rng.choice((100, 200, 400, 800))
    return Claim("InfiniBand link", f"{gbps} Gbps", "GB/s", gbps / 8, "(per direction)")


def _allreduce(rng: random.Random, hw: _Accelerator) -> Claim:
    gpus = rng.choice((8, 16, 32, 64))
    grads = rng.choice((2.6, 14, 16, 26, 140))
    return Claim(
        "Ring all-reduce traffic",
        f"2 × ({gpus} - 1) / {gpus} × {exact(grads)} GB",
        "GB",
        2 * (gpus - 1) / gpus * grads,
    )


def _ridge(rng: random.Random, hw: _Accelerator) -> Claim:
    return Claim(
        f"Ridge point ({hw.name})",
        f"{hw.tflops} TFLOPS / {hw.bandwidth_tbs} TB/s",
        "FLOPs/byte",
        hw.tflops / hw.bandwidth_tbs,
    )


def _decode_latency(rng: random.Random, hw: _Accelerator) -> Claim:
    tokens = rng.choice((128, 256, 512, 1024))
    per_token = rng.choice((8, 12, 20, 25, 40))
    return Claim(
        "Generation time",
        f"{tokens} tokens × {per_token} ms/token",
        "s",
        tokens * per_token / 1000,
    )


def _daily_requests(rng: random.Random, hw: _Accelerator) -> Claim:
    rate = rng.choice((5, 20, 50, 120, 300))
    return Claim(
        "Daily load", f"{rate} req/s × 86,400 s", "requests", rate * 86_400, "(no diurnal peak)"
    )


def _node_throughput(rng: random.Random, hw: _Accelerator) -> Claim:
    per_gpu = rng.randint(5, 60) * 100
    return Claim(
        "Node throughput", f"8 × {per_gpu:,} tokens/s", "tokens/s", 8 * per_gpu, "per node"
    )


def _bubble(rng: random.Random, hw: _Accelerator) -> Claim:
    stages = rng.choice((2, 4, 8, 16))
    micro = rng.choice((8, 16, 32, 64))
    return Claim(
        "Pipeline bubble",
        f"({stages} - 1) / ({micro} + {stages} - 1)",
        "%",
        (stages - 1) / (micro + stages - 1) * 100,
    )


MAKERS: tuple[Maker, ...] = (
    _weights,
    _training_state,
    _shard,
    _kv_token,
    _kv_sequence,
    _memory_time,
    _training_flops,
    _cluster,
    _cluster_flops,
    _cost,
    _energy,
    _utilisation,
    _accumulation,
    _tokens_per_step,
    _power_of_two,
    _link,
    _allreduce,
    _ridge,
    _decode_latency,
    _daily_requests,
    _node_throughput,
    _bubble,
)
"""Claim templates; each draws its numbers and computes its result."""


@dataclass(slots=True)
class ClaimStats:
    """What the generator wrote: napkin lines, claims among them, LaTeX claim lines."""

    napkin_lines: int = 0
    claims: int = 0
    latex_lines: int = 0


def _money(claim: Claim) -> str:
    return f"{claim.left} = ${claim.value:,.0f}" if claim.value == int(claim.value) else ""


_ANNOTATIONS = ("(bf16)", "(dense)", "(peak)", "(per GPU)", "(measured)", "(from above)")
_TIMES = (" × ", " × ", " × ", " * ", " x ", "×", "*")
"""How authors write a product: mostly a spaced ``×``, sometimes ``*``, ``x`` or tight."""


def _handwritten(rng: random.Random, body: str, times: str) -> str:
    """The left side as one author writes it: their times sign, perhaps a note inside."""
    cut = max(body.find(" = "), body.find(" ≈ "))
    left, right = (body[:cut], body[cut:]) if cut > 0 else (body, "")
    if " × " in left and rng.random() < 0.3:
        at = rng.choice([i for i in range(len(left)) if left.startswith(" × ", i)])
        left = f"{left[:at]} {rng.choice(_ANNOTATIONS)}{left[at:]}"
    return left.replace(" × ", times) + right


def _claim_line(
    rng: random.Random, claim: Claim, stats: ClaimStats, *, plain: bool = False, times: str = " × "
) -> str:
    """One claim written in a style drawn at random (bold, code, LaTeX, label, note);
    ``plain`` leaves out bold and code (for a line that is bold already)."""
    stats.claims += 1
    if claim.left.endswith("/GPU-hour"):
        body = _money(claim) or f"{claim.left} ≈ ${sig3(claim.value)}"
        body = _handwritten(rng, body, times)
    elif rng.random() < LATEX_SHARE and "`" not in claim.label and "^" not in claim.left:
        stats.latex_lines += 1
        body = claim.latex()
    else:
        body = _handwritten(rng, claim.plain(), times)
        style = 1.0 if plain else rng.random()
        if style < 0.08:
            body = f"`{body}`"
        elif style < 0.16:
            body = f"**{body}**"
    note = f" {claim.note}" if claim.note else ""
    label = claim.label
    if not plain and rng.random() < 0.3:
        label = f"**{label}:**"
    else:
        label = f"{label}:"
    return f"{label} {body}{note}."


_ASSUMPTIONS = (
    "Weights and gradients in bf16, optimizer state in fp32.",
    "No activation recomputation; activations are not counted.",
    "Interconnect runs at its quoted bandwidth with no contention.",
    "Sustained utilisation is well below the datasheet peak.",
    "Sequence length and batch stay fixed for the whole run.",
    "Prices are on-demand list prices, before any discount.",
    "The scheduler keeps every node busy between checkpoints.",
)
_CONCLUSIONS = (
    "The memory term dominates, so the fix is sharding before buying more compute.",
    "Bandwidth, not FLOPs, bounds the step; batching more requests raises utilisation.",
    "The estimate is within a factor of two of the measured figure, good enough to plan with.",
    "Communication is small next to compute once it overlaps the backward pass.",
    "The budget covers the run only if utilisation stays above the assumed share.",
)


def napkin_block(rng: random.Random, hw: _Accelerator, stats: ClaimStats) -> str:
    """A ``napkin_math`` block of 10-20 claims under the three canonical headings."""
    count = rng.randint(10, 20)
    makers = [rng.choice(MAKERS) for _ in range(count)]
    claims = [make(rng, hw) for make in makers]
    times = rng.choice(_TIMES)
    numbered = rng.random() < 0.4
    head = ("1. " if numbered else "", "2. " if numbered else "", "3. " if numbered else "")
    setup = rng.randint(2, min(4, count - 6))
    lines = [f"{head[0]}**Assumptions & Constraints:**"]
    lines += [f"- {text}" for text in rng.sample(_ASSUMPTIONS, 2)]
    lines += [f"- {_claim_line(rng, claim, stats, times=times)}" for claim in claims[:setup]]
    lines.append(f"{head[1]}**Calculations:**")
    lines += [f"- {_claim_line(rng, claim, stats, times=times)}" for claim in claims[setup:-1]]
    lines.append(f"{head[2]}**Conclusion & Interpretation:**")
    lines.append(f"- **Result: {_claim_line(rng, claims[-1], stats, plain=True, times=times)}**")
    lines.append(f"- {rng.choice(_CONCLUSIONS)}")
    stats.napkin_lines += len(lines)
    return "\n".join(lines) + "\n"


def generate_real_item(
    rng: random.Random, track: str, item_id: str, stats: ClaimStats
) -> dict[str, Any]:
    """One valid item shaped like a real StaffML question, drawn from ``rng``.

    The metadata, scenario, solution and mistake come from the classic
    generator; ``napkin_math`` is replaced by a real-style block and the
    solution gains a claim of its own, as real solutions state their key sum.
    """
    item = base.generate_item(rng, track, item_id)
    hw = rng.choice(_ACCELERATORS)
    details = item["details"]
    # Real StaffML questions carry no resources or tags; their bytes go to napkin math.
    del details["resources"], item["tags"]
    details["napkin_math"] = napkin_block(rng, hw, stats)
    key = rng.choice(MAKERS)(rng, hw)
    stats.claims += 1
    details["realistic_solution"] = (
        details["realistic_solution"].rstrip("\n")
        + f" In numbers: {key.plain()}, which settles the estimate.\n"
    )
    return item
