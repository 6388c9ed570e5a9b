"""FLOPs per token (Kaplan, PaLM, Chinchilla) and MFU beside HFU."""

from __future__ import annotations

import pytest

from sysdrill.napkin.calculators._quantity import describe, quantity
from sysdrill.napkin.calculators.flops import (
    flops_per_token_forms,
    flops_utilization,
    megatron_flops_per_token,
)
from sysdrill.napkin.calculators.memory import Recompute

# PaLM 540B (Chowdhery et al. 2022, Table 1 and Appendix B): 540.35B params, 118 layers,
# 48 heads of 256, sequence 2048; 238.3K tokens/s on 6144 TPU v4 chips of 275 TFLOP/s.
PALM = {
    "parameters": quantity(540.35e9, "param"),
    "layers": 118,
    "sequence_length": 2048,
    "attention_dim": 48 * 256,
}


def test_palm_form_gives_palm_540b_its_published_46_2_percent_mfu() -> None:
    forms = flops_per_token_forms(**PALM)
    achieved = quantity(238.3e3, "token / s") * forms.palm
    mfu = float((achieved / (quantity(275e12, "FLOP / s") * 6144)).to(""))
    assert round(mfu * 100, 1) == 46.2


def test_forms_differ_only_in_the_attention_term() -> None:
    forms = flops_per_token_forms(**PALM)
    six_n = 6 * 540.35e9
    attention = 12 * 118 * 48 * 256 * 2048
    assert forms.six_n.magnitude == pytest.approx(six_n)
    assert forms.palm.magnitude == pytest.approx(six_n + attention)
    assert forms.kaplan.magnitude == pytest.approx(six_n + attention / 2)
    assert forms.chinchilla is None
    assert describe(forms.attention_share) == "1.087%"


def test_chinchilla_form_counts_every_matmul() -> None:
    # Hoffmann et al. 2022 App. F for a tiny model, counted by hand: T = 4, d = d_attn = 2,
    # f = 8, V = 10, one layer. Forward: embeddings 2·4·10·2 = 160, QKV 6·4·2·2 = 96,
    # scores + reduction 4·16·2 = 128, projection 2·4·2·2 = 32, MLP 4·4·2·8 = 256,
    # logits 160: 832 per sequence, ×3 for training, /4 tokens = 624 FLOP/token.
    forms = flops_per_token_forms(
        parameters=quantity(100, "param"),
        layers=1,
        sequence_length=4,
        attention_dim=2,
        hidden_size=2,
        feed_forward_size=8,
        vocab_size=10,
    )
    assert forms.chinchilla is not None
    assert forms.chinchilla.magnitude == pytest.approx(624)


def test_chinchilla_form_is_close_to_6n_for_gpt3() -> None:
    # Hoffmann et al. 2022 App. F: for large models the full count stays within a few
    # percent of 6N plus attention.
    forms = flops_per_token_forms(
        parameters=quantity(174.6e9, "param"),
        layers=96,
        sequence_length=2048,
        attention_dim=12288,
        vocab_size=50257,
    )
    assert forms.chinchilla is not None
    assert forms.chinchilla.magnitude / forms.palm.magnitude == pytest.approx(1.0, abs=0.03)


def test_megatron_counts_match_the_6n_rule_at_large_h() -> None:
    # 72·L·h² per token is 6·(12·L·h²): the 6N rule with N = 12Lh².
    per_token = megatron_flops_per_token(
        layers=96, hidden_size=12288, sequence_length=1, vocab_size=1
    )
    assert per_token.magnitude == pytest.approx(6 * 12 * 96 * 12288**2, rel=1e-3)


def test_full_recomputation_adds_a_forward_pass() -> None:
    # Narayanan et al. 2021: 96 B s l h² (1 + s/6h + V/16lh) against 72 B s l h² (...).
    shape = {"layers": 128, "hidden_size": 25600, "sequence_length": 2048, "vocab_size": 51200}
    full = megatron_flops_per_token(**shape, recompute=Recompute.FULL)
    h, s, v, big_l = 25600, 2048, 51200, 128
    assert full.magnitude == pytest.approx(
        96 * big_l * h * h * (1 + s / (6 * h) + v / (16 * big_l * h))
    )


def test_hfu_equals_mfu_without_recomputation_and_exceeds_it_with() -> None:
    common = {
        "tokens_per_second": quantity(150e3, "token / s"),
        "gpus": 1024,
        "peak_flops_per_gpu": quantity(312e12, "FLOP / s"),
        "layers": 96,
        "hidden_size": 12288,
        "sequence_length": 2048,
        "vocab_size": 51200,
    }
    none = flops_utilization(**common)
    selective = flops_utilization(**common, recompute=Recompute.SELECTIVE)
    full = flops_utilization(**common, recompute=Recompute.FULL)
    assert none.hfu == pytest.approx(none.mfu)
    assert none.mfu < selective.hfu < full.hfu
    # Full recomputation runs 4 passes instead of 3 on the layers: HFU ≈ 4/3 MFU.
    assert full.hfu / full.mfu == pytest.approx(4 / 3, rel=0.01)
    # Selective recomputation reruns only the attention scores: s/(18h) ≈ 0.9% more here.
    assert selective.hfu / selective.mfu == pytest.approx(1.01, abs=0.01)
    assert describe(none.mfu) == "50.54%"
