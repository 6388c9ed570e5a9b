"""Training FLOPs per token in the published forms, and hardware beside model FLOPs utilisation.

Four counts of the same thing, labelled because interviewers ask for them by name:

- ``6N``: 2 FLOPs per parameter per token forward, 4 backward (Kaplan et al. 2020, §2.1);
- Kaplan: ``6N + 6·L·n_ctx·d_attn``, the attention scores added (Kaplan et al. 2020, Table 1);
- PaLM: ``6N + 12·L·H·Q·T`` (Chowdhery et al. 2022, "PaLM", Appendix B), the form
  PaLM's MFU uses; ``H·Q`` is the attention width and ``T`` the sequence length;
- Chinchilla: every matrix multiply of the forward pass, embeddings and softmax
  included, times 3 for training (Hoffmann et al. 2022, Appendix F).

Hardware FLOPs add what activation recomputation runs again. Full recomputation
reruns every layer's forward pass: Narayanan et al. 2021 (Appendix) count
``96·B·s·L·h²(1 + s/6h + V/16Lh)`` FLOPs per step with it against
``72·B·s·L·h²(1 + s/6h + V/12Lh)`` without. Selective recomputation reruns only
the forward of the terms quadratic in ``s``, the attention scores ``QKᵀ`` and their
product with ``V`` (Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models", §5 and §6.3 with Appendix A, where hardware FLOPs count that
rerun): ``4·s·h`` FLOPs per layer per token. Hugging Face's nanotron counts hardware
FLOPs the same way (model FLOPs plus the forward of those two products).
"""

from __future__ import annotations

from dataclasses import dataclass

from sysdrill.napkin.calculators._quantity import (
    Percent,
    Quantity,
    as_unit,
    quantity,
    require_count,
    require_positive,
)
from sysdrill.napkin.calculators.memory import Recompute

__all__ = [
    "FlopsPerToken",
    "Utilization",
    "flops_per_token_forms",
    "flops_utilization",
    "megatron_flops_per_token",
]

_PER_TOKEN = "FLOP / token"


@dataclass(frozen=True)
class FlopsPerToken:
    """Training FLOPs per token in each published form (FLOP/token).

    Attributes:
        six_n: ``6N``, attention ignored.
        kaplan: ``6N + 6·L·T·d_attn``.
        palm: ``6N + 12·L·d_attn·T``.
        chinchilla: Hoffmann et al.'s full count, when the vocabulary is known.
        attention_share: The PaLM attention term over the PaLM total.
    """

    six_n: Quantity
    kaplan: Quantity
    palm: Quantity
    chinchilla: Quantity | None
    attention_share: Percent


def flops_per_token_forms(
    *,
    parameters: Quantity,
    layers: int,
    sequence_length: int,
    attention_dim: int,
    hidden_size: int | None = None,
    feed_forward_size: int | None = None,
    vocab_size: int | None = None,
) -> FlopsPerToken:
    """Training FLOPs per token: ``6N``, Kaplan's, PaLM's and Chinchilla's forms.

    Chinchilla (Hoffmann et al. 2022, Appendix F), forward FLOPs per sequence of
    ``T`` tokens, ``d`` the model width, ``d_attn`` the attention width, ``f`` the
    MLP width, ``V`` the vocabulary: embeddings ``2TVd``; per layer the QKV
    projections ``6T·d·d_attn``, scores ``2T²·d_attn``, reduction ``2T²·d_attn``,
    output projection ``2T·d_attn·d``, MLP ``4T·d·f``; logits ``2TdV``. The
    softmax (``3·heads·T²`` per layer) is left out: it is under 0.1% at any
    usual width. Training is three forward passes (backward costs two).

    Args:
        parameters: Parameters ``N`` (param); PaLM and Kaplan count non-embedding ones.
        layers: Layers ``L``.
        sequence_length: Tokens per sequence ``T`` (``n_ctx``).
        attention_dim: Attention width ``H·Q`` (heads × head size; usually ``h``).
        hidden_size: Model width ``d`` for the Chinchilla form (default ``attention_dim``).
        feed_forward_size: MLP width ``f`` (default ``4d``).
        vocab_size: Vocabulary ``V``; without it the Chinchilla form is not computed.
    """
    n = require_positive(as_unit(parameters, "param", name="parameters"), name="parameters")
    big_l = require_count(layers, name="layers")
    t = require_count(sequence_length, name="sequence_length")
    d_attn = require_count(attention_dim, name="attention_dim")
    six_n = quantity(6 * float(n.magnitude), _PER_TOKEN)
    attention = 12 * big_l * d_attn * t
    palm = six_n + quantity(attention, _PER_TOKEN)
    chinchilla = None
    if vocab_size is not None:
        d = require_count(hidden_size or d_attn, name="hidden_size")
        f = require_count(feed_forward_size or 4 * d, name="feed_forward_size")
        v = require_count(vocab_size, name="vocab_size")
        per_layer = 6 * t * d * d_attn + 4 * t * t * d_attn + 2 * t * d_attn * d + 4 * t * d * f
        forward = 2 * t * v * d + big_l * per_layer + 2 * t * d * v
        chinchilla = quantity(3 * forward / t, _PER_TOKEN)
    return FlopsPerToken(
        six_n=six_n,
        kaplan=six_n + quantity(attention / 2, _PER_TOKEN),
        palm=palm,
        chinchilla=chinchilla,
        attention_share=Percent(attention / float(palm.magnitude)),
    )


def megatron_flops_per_token(
    *,
    layers: int,
    hidden_size: int,
    sequence_length: int,
    vocab_size: int,
    recompute: Recompute = Recompute.NONE,
) -> Quantity:
    """FLOPs per token of a GPT layer stack as Megatron-LM counts them (FLOP/token).

    Without recomputation ``72·L·h²·(1 + s/(6h) + V/(12·L·h))`` (model FLOPs,
    Narayanan et al. 2021 Appendix, divided by ``B·s``). Full recomputation runs
    every layer's forward again: ``96·L·h²·(1 + s/(6h) + V/(16·L·h))``. Selective
    recomputation runs only the two attention-score products again, ``4·s·h`` per
    layer per token: ``72·L·h²·(1 + s/(6h) + s/(18h) + V/(12·L·h))``.

    Args:
        layers: Layers ``L``.
        hidden_size: Hidden size ``h``.
        sequence_length: Sequence length ``s``.
        vocab_size: Vocabulary ``V``.
        recompute: Which recomputation the hardware performs.
    """
    big_l = require_count(layers, name="layers")
    h = require_count(hidden_size, name="hidden_size")
    s = require_count(sequence_length, name="sequence_length")
    v = require_count(vocab_size, name="vocab_size")
    base = 72 * big_l * h * h
    if recompute is Recompute.FULL:
        value = 96 * big_l * h * h * (1 + s / (6 * h) + v / (16 * big_l * h))
    elif recompute is Recompute.SELECTIVE:
        value = base * (1 + s / (6 * h) + s / (18 * h) + v / (12 * big_l * h))
    else:
        value = base * (1 + s / (6 * h) + v / (12 * big_l * h))
    return quantity(value, _PER_TOKEN)


@dataclass(frozen=True)
class Utilization:
    """Model and hardware FLOPs utilisation.

    Attributes:
        model_flops_per_token: FLOPs the model needs, recomputation excluded (FLOP/token).
        hardware_flops_per_token: FLOPs the GPUs run, recomputation included (FLOP/token).
        mfu: Model FLOP/s over peak.
        hfu: Hardware FLOP/s over peak; equal to MFU without recomputation.
    """

    model_flops_per_token: Quantity
    hardware_flops_per_token: Quantity
    mfu: Percent
    hfu: Percent


def flops_utilization(
    *,
    tokens_per_second: Quantity,
    gpus: int,
    peak_flops_per_gpu: Quantity,
    layers: int,
    hidden_size: int,
    sequence_length: int,
    vocab_size: int,
    recompute: Recompute = Recompute.NONE,
) -> Utilization:
    """MFU and HFU from measured throughput (Chowdhery et al. 2022, Appendix B; Korthikanti 2022).

    ``MFU = tokens/s × model FLOPs/token / (n × peak)`` and HFU the same with the
    hardware FLOPs of :func:`megatron_flops_per_token` for the recomputation used.

    Args:
        tokens_per_second: Throughput of the whole job (token/s).
        gpus: Accelerators ``n``.
        peak_flops_per_gpu: Dense peak of one accelerator (FLOP/s).
        layers: Layers ``L``.
        hidden_size: Hidden size ``h``.
        sequence_length: Sequence length ``s``.
        vocab_size: Vocabulary ``V``.
        recompute: Recomputation: none, selective or full.
    """
    rate = require_positive(
        as_unit(tokens_per_second, "token / s", name="tokens_per_second"), name="tokens_per_second"
    )
    n = require_count(gpus, name="gpus")
    peak = require_positive(
        as_unit(peak_flops_per_gpu, "FLOP / s", name="peak_flops_per_gpu"),
        name="peak_flops_per_gpu",
    )
    model, hardware = (
        megatron_flops_per_token(
            layers=layers,
            hidden_size=hidden_size,
            sequence_length=sequence_length,
            vocab_size=vocab_size,
            recompute=kind,
        )
        for kind in (Recompute.NONE, recompute)
    )
    cluster = peak * n
    return Utilization(
        model_flops_per_token=model,
        hardware_flops_per_token=hardware,
        mfu=Percent(float((rate * model / cluster).to(""))),
        hfu=Percent(float((rate * hardware / cluster).to(""))),
    )
