"""What real napkin text does (issue 27), each pattern with our own example sentences.

Silent when unsure: a claim is wrong only when both sides were understood, the units
agree and the difference exceeds the written precision; a documented rule resolves a
doubt; anything else abstains (``skipped`` with ``unsure``, the info ``napkin-unsure``).
"""

from __future__ import annotations

import pytest

from sysdrill.napkin import Verdict, check_claims
from sysdrill.napkin.results import ClaimVerdict


def last(line: str) -> ClaimVerdict:
    """The verdict on the last link of a one-line text."""
    return check_claims(line)[-1]


def kinds(line: str) -> list[str]:
    return [v.verdict.value + ("?" if v.unsure else "") for v in check_claims(line)]


@pytest.mark.parametrize(
    "line",
    [
        "Object storage: 2,000 GB x $0.03 = $60/month.",
        "Writes: 9,000 * 3 KB = 27 MB/day.",
        "Video: 20 MB * 30 = 600 MB/s.",
        "Solar: 25W * 5h * 0.8 = 100 Wh/day.",
        "Power bill: 40W * 10,000h / 1000 * $0.20 = $80.",
        "DRAM energy: 4 accesses * 2 bytes * 100 pJ = 800 pJ.",
        "Lease: $4/hour = $2,880/month.",
        "Budget: $150K/month × 12 = $1.8M/year.",
    ],
)
def test_implicit_per_unit_prices_and_per_period_totals_hold(line: str) -> None:
    assert last(line).verdict is Verdict.OK


def test_a_wrong_per_period_total_is_wrong() -> None:
    verdict = last("Logs: 50K jobs × 10K steps × 20 metrics × 4 bytes = 40 TB/month.")
    assert verdict.verdict is Verdict.WRONG
    assert verdict.computed == pytest.approx(0.04, rel=1e-3)


def test_labelled_operands_in_parentheses_are_summed() -> None:
    assert kinds("Memory: weights (14 GB) + KV cache (6 GB) = 20 GB.") == ["ok"]
    assert kinds("Memory: weights (14 GB) + KV cache (6 GB) = 21 GB.") == ["wrong"]
    assert kinds("Step: total (150 ms) - compute (110 ms) = 40 ms.") == ["ok"]


def test_a_single_parenthesis_after_a_label_claims_nothing() -> None:
    assert kinds("- Long prompt (4096) = 90 s.") == ["skipped"]
    assert kinds("- Model A (400M params) vs model B (20M params) = 20x compute.") == ["skipped"]


def test_b_is_bytes_when_it_multiplies_a_count_and_billions_before_params() -> None:
    assert kinds("Buffer: 250K x 4B = 1 MB.") == ["ok"]
    assert kinds("Buffer: 250K x 4B = 2 MB.") == ["wrong"]
    assert kinds("Payload: 10M QPS × 4 × 256B = 10.24 GB/s.") == ["ok"]
    assert kinds("Weights: 7B params × 2 bytes = 14 GB.") == ["ok"]
    assert kinds("Weights: 7B × 2 = 15 GB.") == ["wrong"]


def test_counted_nouns_that_are_different_things_claim_nothing() -> None:
    assert "wrong" not in kinds("Shrink: 32 nodes (256 GPUs) -> 8 nodes (64 GPUs).")
    assert kinds("Decode cost (24B weights = 96 G-ops).") == ["skipped"]


@pytest.mark.parametrize(
    "line",
    [
        "Ratio: 700 MB / 300 MB = 2.33x.",
        "Speedup: 4.55x / 4x = 1.13x better.",  # 1.1375 truncated
        "Share: 50 ms / 60,000 ms = 0.08%.",  # 0.0833 truncated
        "Speedup: 100% / 33% = 3x.",
        "Ratio ~2x: 700 MB / 300 MB ~ 2x.",
        "Workers: 1,000 / 333 = 4 workers.",  # whole machines, rounded up
        "Per 1M tokens: $3.50 / 7.2M tokens = $0.49/1M tokens.",
        "Time: 768,000-1,152,000 GFLOPs / 100 GFLOPS = 2.1-3.2 hours.",
    ],
)
def test_rounding_and_truncation_as_authors_write_them_hold(line: str) -> None:
    assert last(line).verdict is Verdict.OK


def test_rounding_does_not_excuse_a_prefix_slip() -> None:
    assert last("Pages: 512 MB * 2 = 1 GiB.").verdict is Verdict.PREFIX_AMBIGUOUS


def test_a_mac_is_two_flops_only_when_the_line_speaks_of_both() -> None:
    assert last("Latency: 6M / 120 MMACs/sec = 50 ms.").verdict is Verdict.OK
    assert last("Peak: 200 MHz * 2 = 400 million MACs/sec.").verdict is Verdict.OK
    assert last("MobileNet: 300M MACs = 0.3 GFLOPs.").verdict is Verdict.WRONG
    assert last("Conv: 4.1 GMACs × 2 = 8.2 GFLOPs.").verdict is Verdict.OK


def test_solving_for_an_unknown_is_not_a_claim_about_a_defined_name() -> None:
    verdicts = check_claims("M = 4\nBubble: 3 / (M + 3) < 0.1, so M > 27.")
    assert all(v.verdict is not Verdict.WRONG for v in verdicts)


def test_results_after_arrows_and_pipes_are_checked() -> None:
    assert kinds("Cost: 4 × 25 → 100 | memory: 2 × 8 GB = 16 GB") == ["ok", "ok"]
    assert kinds("Cost: 4 × 25 → 110") == ["wrong"]


def test_percentages_of_a_total() -> None:
    assert last("Usable: 45% of 80 GB = 36 GB.").verdict is Verdict.OK
    assert last("Share: (1.8 / 36) * 100 = 5%.").verdict is Verdict.OK


def test_si_suffixes_on_bare_numbers() -> None:
    assert last("Time: 0.5G / 200T = 2.5e-6.").verdict is Verdict.OK
    assert last("Total: 10 billion x 300 B = 3 TB.").verdict is Verdict.OK
    assert last("Capex: 100 * $40,000 = $4 million.").verdict is Verdict.OK


def test_kb_gb_tb_and_milliwatt_second_conversions() -> None:
    assert last("Total: 12,000 GB = 12 TB.").verdict is Verdict.OK
    assert last("Store: 3,000,000 KB = 3 GB.").verdict is Verdict.OK
    assert last("Energy: 36,000 mW·s = 10 mWh.").verdict is Verdict.OK


def test_energy_written_as_power_holds_per_period() -> None:
    assert last("Yearly: 0.5 J × 52 weeks = 26 J/year.").verdict is Verdict.OK
    assert last("Annual: 5 kW * 8,760 hours/year = 43,800 kWh.").verdict is Verdict.OK


def test_a_result_in_another_unit_than_computed_is_wrong_even_if_the_numbers_match() -> None:
    verdict = last("Burst: 50 mW x 200 s = 10 mWs.")
    assert verdict.verdict is Verdict.WRONG
    assert last("Burst: 50 mW x 200 s = 10,000 mWs.").verdict is Verdict.OK


def test_sixteen_gb_equal_to_sixteen_gib_is_a_prefix_doubt() -> None:
    # check reports this as a warning (napkin_rules.severity_of), not a note.
    assert last("HBM: 16 GB = 16 GiB.").verdict is Verdict.PREFIX_AMBIGUOUS


def test_latex_environments_never_crash() -> None:
    text = "$$\\begin{array}{lr} a & 2 \\times 3 = 6 \\\\ b & 4 \\end{array}$$"
    check_claims(text)
    check_claims("\\begin{aligned} x &= 2 \\\\ &= 3 \\end{aligned}")


def test_a_bare_number_far_from_a_quantity_abstains() -> None:
    verdict = last("Unfused: 3 reads + 3 writes = 60 MB.")
    assert (verdict.verdict, verdict.unsure) == (Verdict.SKIPPED, True)
    assert last("Decode: 16 / 2,000 = 0.8 ms.").verdict is Verdict.WRONG


def test_a_right_side_that_goes_on_computing_is_checked_on_its_first_term() -> None:
    assert kinds("Layer = 3 * 3 * 4 * 16 filters = 576 weights + 16 biases = 592") == [
        "skipped",
        "ok",
        "ok",
    ]


def test_a_ratio_colon_reads_as_a_quotient() -> None:
    assert kinds("Ratio = (0.5 * 4) : (0.4 * 1) = 2.0 : 0.4 = 5 : 1") == ["skipped", "ok", "ok"]


def test_a_bound_is_not_a_left_side() -> None:
    assert "wrong" not in kinds("Latency = 30 ms + <1 ms = ~30 ms.")


def test_a_month_of_thirty_days_holds() -> None:
    assert last("Rent: $2/hour = $1,440/month.").verdict is Verdict.OK


# -- session 2 of issue 27: patterns met on real text, our own sentences -------------


def test_a_latex_thin_space_before_a_micro_unit_keeps_the_operand() -> None:
    assert last(
        r"Crossover: $16 \times 4\,\mu s \times 25\text{ GB/s} = 1.6\text{ MB}$"
    ).verdict is (Verdict.OK)
    assert last(
        r"Crossover: $16 \times 4\,\mu s \times 25\text{ GB/s} = 1.6\text{ KB}$"
    ).verdict is (Verdict.WRONG)


def test_a_size_with_1024_and_1000_mixed_across_prefix_steps_is_a_prefix_note() -> None:
    # 480 KB * 2048 = 983.04 MB decimal; 983.04 / 1.024 = 960 with one 1024 step.
    assert kinds("Cache: 480 KB * 2048 = 0.96 GB.") == ["prefix-ambiguous"]
    # Same prefix on both sides: no step to mix, so 21 GB is wrong.
    assert kinds("Pool: 15 GB + 5 GB = 21 GB.") == ["wrong"]


def test_a_result_per_a_counted_thing_divides_that_count_out() -> None:
    assert last("Logging: 500 jobs * 4K steps * 5 ms = 20 s/job.").verdict is Verdict.OK
    assert last("Eval: 40 runs × 1,000 batches × 3 ms = 3 s per run.").verdict is Verdict.OK
    assert last("Eval: 40 runs × 1,000 batches × 3 ms = 5 s per run.").verdict is Verdict.WRONG


def test_an_equation_solved_for_a_suffix_letter_is_not_arithmetic() -> None:
    verdicts = check_claims("3. 120.5K = 400.2 + 8.1K -> 112.4K = 400.2 -> K ~ 280.")
    assert {v.verdict for v in verdicts} == {Verdict.SKIPPED}
    assert "solved for K" in verdicts[0].message


def test_a_counted_value_equated_to_a_quantity_states_a_conversion() -> None:
    assert kinds("Spread 900 users over 12 pods = ~75 users/pod = 60 GB per pod.")[-1] == (
        "skipped"
    )


def test_a_rate_and_duration_on_the_left_are_not_a_single_periods_total() -> None:
    # 3 ms * 50% * 2K QPS = 3 (concurrent calls), not 3 calls/s: no error.
    assert "wrong" not in kinds("Scorer: 3 ms * 50% of 2K QPS = 1000 calls/s.")
    assert last("Stream: 2.5 KB/s * 3600 seconds ≈ 9 MB/hour.").verdict is Verdict.OK


def test_labelled_bare_numbers_describing_a_shape_abstain_against_a_count() -> None:
    assert kinds("Before: $2048 \\times 2048$ matmul = 8.6G FLOPs.") == ["skipped?"]
    assert kinds("Cost: $2 \\times 2048^2 = 8.4$ GFLOPs.") == ["wrong"]


def test_a_count_of_things_then_a_computation_about_them_claims_no_equality() -> None:
    assert "wrong" not in kinds("Two lanes at 3.1 mA: 2 lanes = 3.1 + 3.1 = 6.2 mA.")


def test_operands_written_with_their_full_magnitude_carry_their_prefixes() -> None:
    # 6.0e12 / 400e12 = 0.015 s = 15 ms: written as 15 µs it is 1000x off.
    assert last("Step: 6.0e12 / 400e12 = 15 microseconds.").verdict is Verdict.WRONG
    assert last("Step: 6.0e12 / 400e12 = 15 ms.").verdict is Verdict.OK
    # A bare 51.2 may be in MB/s: the prefix is not written, so it abstains.
    assert kinds("Per minute: 51.2 × 60 = ~3.1 GB.") == ["skipped?"]


def test_names_glued_by_plus_in_parentheses_are_a_label() -> None:
    assert last("Cache: 200 tokens * 16 layers * 2 (K+V) * 2 bytes = 25.6 KB.").verdict is (
        Verdict.WRONG
    )
    assert last("Cache: 200 tokens * 16 layers * 2 (K+V) * 2 bytes = 12.8 KB.").verdict is (
        Verdict.OK
    )


def test_a_price_per_a_written_count_is_the_price_of_that_many() -> None:
    assert last("Unit price: $1.20 / 2.5 = $0.48/1M tokens.").verdict is Verdict.OK


def test_a_rate_against_a_total_per_an_unwritten_period_abstains() -> None:
    assert kinds("Polling: 1 sample / 20 ms = ~8 samples per batch.") == ["skipped?"]
    assert kinds("Link: 3 GB/s * 4 = 12 GB") == ["unit-mismatch"]


@pytest.mark.parametrize(
    "line",
    [
        "Frame: 1280x720x3 = 2.76 MB.",
        "Weights: 2048 x 2048 FP16 = 8.39 MB.",
        "Model: 3B INT4 = 1.5 GB.",
        "Student: 1B parameters at BF16 = 2 GB.",
        "Tiny: 125,000 INT8 parameters = 125 KB.",
        "Peak: Max(6GB, 5GB) = 6GB.",
        "Charge: 15 mA * 40 ms = 0.6 mC.",
        "Capacitor: 0.6 mC / 1.5 V = 0.4 mF.",
        "Radio: 4 ms * 25 mA = 0.1 mAs.",
        "Rack: 2,000 * 500W = 1 Megawatts.",
        "Budget: 2,000 A100-hours × 300W = 600 kWh.",
        "Server: $12,000 / 48 months = $250/mo.",
        "Compute bound: 2 TB/s × 100 Ops/Byte = 200 TOPS.",
        "Balance: 400 TFLOPs / 4 TB/s = 100 FLOPs/Byte.",
        "Rescale: 50,000 GOPs / 1,000 = 50 TOPS.",
        "Shards: 512 images (2MB each) per step = ~1GB.",
        "Switches: 200 ports @ ~$1k each = $200K.",
        "Upload: 4MB sent at 20GB/s = 200 microseconds.",
        "Pack: 100 mAh at 3V = 1080 Joules.",
    ],
)
def test_notations_met_on_real_text_are_understood(line: str) -> None:
    assert last(line).verdict is Verdict.OK


def test_a_left_side_without_a_number_is_a_label() -> None:
    assert kinds("Ops/image/pass = 2 * 3B * 100 = 6e11 ops.")[0] == "skipped"


def test_a_number_squared_may_carry_a_unit_left_unwritten() -> None:
    assert kinds("Stored: 0.5 * 4 mF * (2.0^2 - 1.0^2) = 6 mJ.") == ["skipped?"]
