"""Finding and judging claims: chains, tolerances, names, variables, suggestions."""

from __future__ import annotations

import pytest

from sysdrill.napkin import Verdict, check_claims
from sysdrill.napkin.claims import ClaimChecker


def verdicts(text: str) -> list[tuple[str, str]]:
    return [(v.claim, v.verdict.value) for v in check_claims(text)]


def judged(text: str) -> list[tuple[str, str]]:
    return [pair for pair in verdicts(text) if pair[1] != "skipped"]


def test_chain_in_prose_checks_each_numeric_link() -> None:
    result = check_claims("- At 16 nodes: Required Per-GPU Batch = 2048 / 128 = 16.")
    assert [(v.claim, v.verdict) for v in result] == [
        ("Batch = 2048 / 128", Verdict.SKIPPED),
        ("2048 / 128 = 16", Verdict.OK),
    ]
    assert result[1].line == 1
    assert result[1].computed == 16


def test_wrong_claim_carries_the_computed_value_and_a_corrected_line() -> None:
    (skip, wrong) = check_claims("text\n- Per-GPU Batch = 2048 / 128 = 15.")
    assert skip.verdict is Verdict.SKIPPED
    assert wrong.verdict is Verdict.WRONG
    assert wrong.line == 2
    assert wrong.computed == 16
    assert wrong.claimed == 15
    assert wrong.message == "expected 16 from 2048 / 128; the line says 15"
    assert wrong.suggestion == "- Per-GPU Batch = 2048 / 128 = 16."


def test_wrong_claim_with_units_suggests_the_value_in_the_written_unit() -> None:
    (wrong,) = check_claims("100 MB / 50 GB/s = 3 ms")
    assert wrong.verdict is Verdict.WRONG
    assert wrong.unit == "ms"
    assert wrong.computed == pytest.approx(2)
    assert wrong.suggestion == "100 MB / 50 GB/s = 2 ms"


def test_equals_holds_within_half_a_percent() -> None:
    assert judged("1000 / 3.01 = 332.5") == [("1000 / 3.01 = 332.5", "ok")]
    assert judged("1000 / 3.1 = 330.0") == [("1000 / 3.1 = 330.0", "wrong")]


def test_integers_written_in_full_must_match_exactly() -> None:
    assert judged("1,000 * 1,000 = 1,000,001") == [("1,000 * 1,000 = 1,000,001", "wrong")]
    assert judged("2^10 = 1024") == [("2^10 = 1024", "ok")]
    assert judged("2^10 = 1000") == [("2^10 = 1000", "wrong")]


def test_a_rounded_right_side_is_accepted_but_not_a_one_digit_one() -> None:
    assert judged("70 / 32 = 2.2") == [("70 / 32 = 2.2", "ok")]
    assert judged("1 / 3 = 0.3") == [("1 / 3 = 0.3", "wrong")]


def test_approximately_holds_within_five_percent() -> None:
    assert judged("3/19 ≈ 16%") == [("3/19 ≈ 16%", "ok")]
    assert judged("3/19 ≈ 25%") == [("3/19 ≈ 25%", "wrong")]
    assert judged("440 MB * 32 ~ 14 GB") == [("440 MB * 32 ~ 14 GB", "ok")]


def test_equals_then_tilde_is_one_approximate_relation() -> None:
    (verdict,) = [v for v in check_claims("2/layer: 40 * 0.25 GB = ~10 GB") if v.claimed]
    assert verdict.relation == "≈"
    assert verdict.verdict is Verdict.OK


@pytest.mark.parametrize(
    "line",
    [
        "Power is ~5-7 W at the edge.",
        "An H100 = 80 GB of HBM3.",
        "Llama-2-70B = 70B parameters.",
        "Mixtral 8x22B = 141B parameters.",
        "PCIe Gen4 x16 = 32 GB/s per direction.",
        "TP=8 × PP=4 × DP=8 = 256 GPUs.",
        "L3 = the implement level.",
        "Model state = 16N bytes.",
        "Speedup = 1 / (s + (1 - s)/N)",
    ],
)
def test_names_ranges_comparisons_and_symbols_are_never_wrong(line: str) -> None:
    assert judged(line) == []


def test_comparisons_are_checked_for_their_direction() -> None:
    assert judged("7B × 16 bytes > 80 GB, so it does not fit.") == [("7B × 16 bytes > 80 GB", "ok")]
    (verdict,) = [
        v for v in check_claims("70B × 2 B = 140 GB < 80 GB, so it fits.") if v.relation == "<"
    ]
    assert verdict.verdict is Verdict.WRONG
    assert verdict.message == "140 GB is more than 80 GB, not < it"
    assert verdict.suggestion == "70B × 2 B = 140 GB > 80 GB, so it fits."
    assert judged("Comm 70 ms < compute 30 ms, so overlap hides it.") == [
        ("70 ms < 30 ms", "wrong")
    ]


def test_arrows_state_results_after_computed_left_sides() -> None:
    assert judged("4 nodes × 8 GPUs -> 24 GPUs.") == [("4 nodes × 8 GPUs → 24 GPUs", "wrong")]
    assert judged("2048 / 128 ⇒ 16 per GPU.") == [("2048 / 128 → 16", "ok")]
    # A single value before an arrow is a change ("28 GB → 14 GB"), not arithmetic.
    assert judged("Half precision: 28 GB → 14 GB.") == []


def test_ranges_are_checked_at_both_ends() -> None:
    assert judged("7B–13B × 2 B = 14–26 GB.") == [("7B-13B × 2 B = 14-26 GB", "ok")]
    (verdict,) = check_claims("100–200 ms × 10 steps = 1–3 s.")
    assert verdict.verdict is Verdict.WRONG
    assert verdict.message.startswith("at the high end of the range")
    assert judged("4 to 8 nodes × 8 GPUs = 32 to 64 GPUs.") == [
        ("4-8 nodes × 8 GPUs = 32-64 GPUs", "ok")
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Two replicas × 8 GPUs = 24 GPUs.", "wrong"),
        ("A dozen nodes × 8 GPUs = 96 GPUs.", "ok"),
        ("Three quarters of 80 GB = 60 GB.", "ok"),
        ("One-third of 96 layers = 24 layers.", "wrong"),
        ("1/8 of 70B params = 8.75B params.", "ok"),
    ],
)
def test_number_words_and_fractions_of_are_read(line: str, expected: str) -> None:
    assert [kind for _, kind in judged(line)] == [expected]


@pytest.mark.parametrize(
    "line",
    [
        "1,200 GPU-hours × $2.10 = $2,520.",
        "30 days × 24 h = 720 h per month.",
        "2.46e6 s / 86,400 = 28.5 days.",
        "10M requests/day ÷ 86,400 s = 116 requests/s.",
        "500 TB × $0.023/GB/month = $11,500 per month.",
        "1 year = 8,760 hours.",
        "4.1 GMACs × 2 = 8.2 GFLOPs per image.",
        "76.1% − 75.3% = 0.8 pp",
        "14 GB @ 3.35 TB/s = 4.2 ms",
        "~~12 GB~~ 70B × 2 B = 140 GB",
        "80 GB / 2 B per param = 40B params",
        "3,5 GB × 2 = 7 GB",
    ],
)
def test_implicit_rates_conventions_and_notation_hold(line: str) -> None:
    assert [kind for _, kind in judged(line)] == ["ok"]


@pytest.mark.parametrize(
    "line",
    ["1 node = 8 GPUs", "1 epoch = 1.28M images", "$/token = $2.50/h", "Five nines = 99.999%"],
)
def test_stated_conversions_are_not_flagged(line: str) -> None:
    assert all(kind == "ok" for _, kind in judged(line))


def test_implicit_rate_that_does_not_hold_says_what_it_computed() -> None:
    (verdict,) = check_claims("1,200 GPU-hours × $2.10 = $3,150")
    assert verdict.verdict is Verdict.UNIT_MISMATCH
    assert verdict.message.endswith(
        "read per GPU-hours, the left side is $2,520 and the line says $3,150"
    )


def test_mac_conversion_written_as_times_two_is_not_applied_twice() -> None:
    (verdict,) = check_claims("4.1 GMACs × 2 = 16.4 GFLOPs")
    assert verdict.verdict is Verdict.WRONG
    (stated,) = check_claims("300M MACs = 0.3 GFLOPs")
    assert stated.verdict is Verdict.WRONG


def test_values_defined_on_earlier_lines_are_used_later() -> None:
    text = "N = 8\nThe ring sends 2 * (N - 1) = 14 chunks."
    assert judged(text) == [("2 * (N - 1) = 14 chunks", "ok")]
    assert judged("N = 8\n2 * (N - 1) = 16") == [("2 * (N - 1) = 16", "wrong")]


def test_glued_settings_define_values_for_the_rest_of_the_line() -> None:
    line = "P=4, M=16: bubble = (P-1)/(M+P-1) = 3/19 ≈ 16%."
    assert judged(line) == [("(P-1)/(M+P-1) = 3/19", "ok"), ("3/19 ≈ 16%", "ok")]


def test_units_that_differ_with_a_per_unit_reading_that_fails_are_a_unit_mismatch() -> None:
    # Silent when unsure (issue 27): a mismatch is reported only when a reading
    # exists (here per GPU-hour) and fails.
    (verdict,) = check_claims("1,500 GPU-hours × $2.10 = $2,520")
    assert verdict.verdict is Verdict.UNIT_MISMATCH
    assert verdict.message.startswith("the left side is in $·GPU·s but the right side is in $")


def test_units_that_differ_with_no_reading_abstain() -> None:
    (verdict,) = check_claims("2 ms * 3 = 9 GB")
    assert (verdict.verdict, verdict.unsure) == (Verdict.SKIPPED, True)
    assert verdict.message == "not judged: the left side is in s but the right side is in B"


def test_a_right_number_in_a_unit_of_another_kind_is_a_unit_mismatch() -> None:
    (verdict,) = check_claims("2 ms * 3 = 6 GB")
    assert verdict.verdict is Verdict.UNIT_MISMATCH


def test_prefix_ambiguous_is_a_note_with_both_readings() -> None:
    (verdict,) = check_claims("1 GB = 1024 MB")
    assert verdict.verdict is Verdict.PREFIX_AMBIGUOUS
    assert verdict.computed == pytest.approx(1000)
    assert verdict.claimed == 1024


def test_counts_written_on_one_side_are_compared_by_value() -> None:
    assert judged("128 GPUs * 4 * 4 = 2048") == [("128 GPUs * 4 * 4 = 2048", "ok")]
    assert judged("128 GPUs * 4 * 4 = 3000") == [("128 GPUs * 4 * 4 = 3000", "wrong")]
    assert judged("At 16 nodes = 2048 / 512") == []


def test_units_on_one_side_accept_base_or_written_readings() -> None:
    assert judged("3B × 16 = 48 GB") == [("3B × 16 = 48 GB", "ok")]
    assert judged("312 × 0.45 = 140.4 TFLOP/s") == [("312 × 0.45 = 140.4 TFLOP/s", "ok")]
    assert judged("7 × 24 = 148 hours") == [("7 × 24 = 148 hours", "wrong")]
    assert judged("7B = 112 GB") == []


def test_parenthetical_labels_are_ignored() -> None:
    line = "Total = 128 GPUs * 4 (Micro-Batch) * 4 (Accumulation) = 2048."
    assert judged(line) == [("128 GPUs * 4 (Micro-Batch) * 4 = 2048", "ok")]


def test_bullet_dashes_inside_a_line_are_not_minus_signs() -> None:
    assert judged("fits, 32 GB left. - 3B × 16 = 48 GB model state") == [("3B × 16 = 48 GB", "ok")]


def test_flops_written_for_flop_per_second_is_not_a_unit_mismatch() -> None:
    (verdict,) = check_claims("312 TFLOPs = 312 TFLOP/s")
    assert verdict.verdict is Verdict.OK
    (other,) = check_claims("2 * 156 TFLOPs = 312 TFLOP/s * 1")
    assert other.verdict is not Verdict.UNIT_MISMATCH


def test_lines_without_claims_give_no_verdicts() -> None:
    assert check_claims("No numbers here = none.\nJust 42 things.") == []


def test_very_long_lines_are_skipped_whole() -> None:
    assert check_claims("1 + 1 = 2 " * 1000) == []


def test_checker_remembers_values_only_within_one_block() -> None:
    first = ClaimChecker()
    first.check_line("N = 8", 1)
    assert "N" in first.variables
    assert "N" not in ClaimChecker().variables


def test_verdict_to_dict_has_the_json_shape() -> None:
    (verdict,) = check_claims("2 * 3 = 7")
    data = verdict.to_dict()
    assert data["verdict"] == "wrong"
    assert data["claim"] == "2 * 3 = 7"
    assert data["computed"] == 6
    assert set(data) >= {"line", "column", "relation", "lhs", "rhs", "suggestion"}


@pytest.mark.parametrize(
    "line",
    [
        "(1+" * 600 + " = 5",
        "(" * 500 + "1+" * 300 + " = 5",
        "1=" * 900 + "1",
        "a " * 900 + "= 5",
        "1+" * 900 + "1 = 901",
    ],
)
def test_hostile_lines_are_judged_without_crashing(line: str) -> None:
    verdicts = check_claims(line)
    assert all(v.verdict in (Verdict.OK, Verdict.SKIPPED) for v in verdicts)


@pytest.mark.parametrize("exponent", ["1e308 * 10", "1e308 * 10 - 1e308 * 10"])
def test_a_unit_raised_to_an_infinite_or_nan_power_is_skipped(exponent: str) -> None:
    (verdict,) = check_claims(f"x: 2 GB ^ ({exponent}) = 4 GB")
    assert (verdict.verdict, verdict.message) == (Verdict.SKIPPED, "not numeric (overflow)")


@pytest.mark.parametrize(
    "line", ["a = 6e610", "5e400 GB / 2 = 2.5e400 GB", "1e308 * 10 = 5", "x = 1e-500 s / 0 = 3"]
)
def test_numbers_beyond_floats_are_skipped_not_a_crash(line: str) -> None:
    verdicts = check_claims(line)
    assert verdicts and all(v.verdict is Verdict.SKIPPED for v in verdicts)
