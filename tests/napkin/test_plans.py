"""Claim plans reused by shape give exactly the verdicts of a fresh read."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tests.napkin.conftest import NothingKept as _NoPlans
from tests.napkin.conftest import StoredAndFresh

from sysdrill.napkin import claims
from sysdrill.napkin.claims import ClaimChecker, _chunks, check_claims
from sysdrill.napkin.lexer import Token, digits_change, normalize, refill, shape_of, tokenize
from sysdrill.napkin.parser import Parser, chain_of, evaluate_chain
from sysdrill.napkin.values import Value


def verdict_rows(lines: list[str]) -> list[tuple[object, ...]]:
    rows = []
    for line in lines:
        for v in ClaimChecker().check_line(line, 1):
            rows.append((v.column, v.claim, v.verdict, v.computed, v.message, v.suggestion))
    return rows


def test_reused_plans_match_fresh_reads_on_the_corpus(
    monkeypatch: pytest.MonkeyPatch, corpus_lines: list[str]
) -> None:
    lines = corpus_lines
    # Same shapes with other numbers, so that most lines hit a stored plan.
    variants = [line.replace("2", "3").replace("4", "7") for line in lines]
    monkeypatch.setattr(claims, "_LINES", _NoPlans())
    monkeypatch.setattr(claims, "_PLANS", {})
    reused = verdict_rows(lines + variants + lines)
    monkeypatch.setattr(claims, "_PLANS", _NoPlans())
    fresh = verdict_rows(lines + variants + lines)
    assert reused == fresh


def test_a_reused_plan_reads_the_new_numbers_and_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(claims, "_LINES", _NoPlans())
    monkeypatch.setattr(claims, "_PLANS", {})
    (first,) = ClaimChecker().check_line("x: 2048 / 128 = 16", 1)
    (second,) = ClaimChecker().check_line("x: 4096 / 256 = 15", 1)
    (third,) = ClaimChecker().check_line("x: 20480 / 128 = 16", 1)
    (fourth,) = ClaimChecker().check_line("x: 99999 / 128 = 16", 1)
    assert len(claims._PLANS) == 2
    assert first.verdict.value == "ok"
    assert (second.verdict.value, second.computed, second.suggestion) == (
        "wrong",
        16,
        "x: 4096 / 256 = 16",
    )
    assert (third.verdict.value, third.column, third.suggestion) == (
        "wrong",
        16,
        "x: 20480 / 128 = 160",
    )
    assert (fourth.lhs, fourth.rhs, fourth.column) == ("99999 / 128", "16", 16)


def _other_digits(text: str, seed: int) -> str:
    """The same shapes with random digits: zeros, rising and falling ranges, overflow."""
    rng = random.Random(seed)
    return re.sub(r"\d", lambda _: rng.choice("0123456789"), text)


def test_reused_plans_match_fresh_reads_on_the_synthetic_vault(
    stored_and_fresh: StoredAndFresh, vault_texts: Callable[[int, int], list[str]]
) -> None:
    texts = vault_texts(400, 0)
    # Each text, its shapes with other numbers, and the text again.
    texts += [_other_digits(text, seed) for seed, text in enumerate(texts)] + texts
    reused, fresh = stored_and_fresh(texts, "_PLANS")
    assert len(reused) > 1000
    assert reused == fresh


@pytest.mark.parametrize(
    "lines",
    [
        # A division by zero in the new numbers.
        ["x: 2048 GB / (128 GB/s) = 16 s", "x: 2048 GB / (0 GB/s) = 16 s"],
        # A rising range (5-7) and a falling difference (7-5) read differently.
        ["x: 7-5 W = 2 W", "x: 5-7 W = 2 W", "x: 9-1 W = 8 W"],
        # min/max compare their arguments.
        ["x: max(2, 8) = 8", "x: max(9, 3) = 9", "x: min(4, 1) = 1"],
        # Names whose digits the shape does not pin down.
        ["x: log10(1000) = 3", "x: log11(1000) = 3", "x: log10(100) = 2"],
        # A defined value is part of the plan's key.
        ["N = 8\nx: N * 2 = 16", "N = 9\nx: N * 2 = 16"],
        # Overflow in the new numbers.
        ["x: 10^3 = 1000", "x: 10^400 = 1000", "x: 2^10 = 1024"],
    ],
)
def test_plans_reused_where_the_numbers_change_the_reading_match_fresh_reads(
    stored_and_fresh: StoredAndFresh, lines: list[str]
) -> None:
    reused, fresh = stored_and_fresh(lines * 3, "_PLANS")
    assert reused == fresh


def test_reusing_a_plan_leaves_the_stored_plan_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims, "_LINES", _NoPlans())
    monkeypatch.setattr(claims, "_PLANS", {})
    check_claims("x: 2048 GB / (128 GB/s) = 16 s")
    (stored,) = claims._PLANS.values()
    before = tuple(stored.tokens)
    (verdict,) = check_claims("so: 4096 GB / (256 GB/s) = 15 s")
    assert (verdict.verdict.value, verdict.computed, verdict.column) == ("wrong", 16, 26)
    assert claims._PLANS == {next(iter(claims._PLANS)): stored}
    assert stored.tokens == before
    assert [t.text for t in stored.tokens if t.kind.value == "num"] == ["2048", "128", "16"]


def test_refill_gives_the_tokens_a_fresh_tokenize_gives(corpus_lines: list[str]) -> None:
    def fields(tokens: list[Token]) -> list[tuple[object, ...]]:
        return [
            (t.kind, t.text, t.start, t.end, t.space_before, t.value, t.alt, t.exact)
            + (t.ulp, t.sig, t.unit)
            for t in tokens
        ]

    checked = 0
    for seed, line in enumerate(corpus_lines):
        other = "x:" + _other_digits(line, seed)
        norm, other_norm = normalize(line), normalize(other)
        for (start, end), (o_start, o_end) in zip(_chunks(norm), _chunks(other_norm), strict=False):
            chunk, other_chunk = norm[start:end], other_norm[o_start:o_end]
            if shape_of(chunk) != shape_of(other_chunk):
                continue
            tokens = tokenize(chunk, start)
            refilled = refill(tokens, other_chunk, o_start, o_start - start, digits_change(tokens))
            assert fields(refilled) == fields(tokenize(other_chunk, o_start))
            assert fields(tokens) == fields(tokenize(chunk, start))
            checked += 1
    assert checked > 100


def test_shape_masks_numbers_but_not_digits_inside_names() -> None:
    assert shape_of("2048 / 128 = 16") == shape_of("4096 / 256 = 32")
    assert shape_of("log2(8) = 3") != shape_of("log3(8) = 3")
    assert shape_of("4,8") != shape_of("4,800")


@pytest.mark.parametrize(
    ("text", "simple"),
    [
        ("36864 B * 8192 * 8", True),
        ("2.416 GB", True),
        ("2048 / 128", True),
        ("100MB × 3", True),
        ("50 GB/s * 2", True),
        ("312 TFLOP/s / (1.55 TB/s)", True),
        ("4.5e21 FLOP / (1.2e13 FLOP/s)", True),
        ("123.4 ms / (1234 ms) * 100", True),
        ("12 FLOP/B * 1.55 TB/s", True),
        ("1e6 s / (86400 s/day)", True),
        ("312 / (16 * 2)", True),
        ("(2 * 3)", True),
        ("100MB/s × 3", True),
        ("2 GB×h / (4 h)", True),
        ("1 + 2", True),
        ("(1 + 2) * 3", True),
        ("9 GB - 1.5 GB + 2 GB", True),
        ("(46 - 2) / (46 + 16 - 2)", True),
        ("4 * (46 - 2) / 46 * 12.5 GB", True),
        ("1 + 2 * 3", False),
        ("2 * 3 - 1", False),
        ("5-7 W", False),
        ("2048/128", False),
        ("((2 * 3))", False),
        ("(2 * 3) GB", False),
        ("(2 * 3", False),
        ("2 * 3)", False),
        ("5 m/s^2 * 2", False),
        ("2 GB^2", False),
        ("8 GB/2", False),
        ("80 layers * 8", False),
        ("45%", False),
        ("N * 2", False),
    ],
)
def test_only_plain_chains_of_literals_skip_the_parser(text: str, simple: bool) -> None:
    tokens = tokenize(normalize(text))
    chain = chain_of(tokens, 0, len(tokens))
    assert (chain is not None) is simple
    if chain is not None:
        parsed, stop = Parser(tokens, {}).parse(0, len(tokens))
        assert stop == len(tokens)
        assert _fields(evaluate_chain(tokens, chain)) == _fields(parsed)


def _fields(value: Value) -> tuple[str, ...]:
    # As text, so that a NaN (a division by zero, mixed units) equals itself.
    return tuple(repr(getattr(value, name)) for name in Value.__slots__)


_NUMBERS = st.sampled_from(["0", "2", "7", "16", "1.5", "0.25", "65,536", "4.5e21", "1e-3", "70B"])
_UNITS = st.sampled_from(["", " GB", " GiB", "MB", " s", " ms", " FLOP/s", " TB/s", " s/day"])
_OPERATORS = st.sampled_from([" * ", " × ", " / ", " + ", " - ", "/", "-", " ^ "])


@st.composite
def _sides(draw: st.DrawFn, depth: int = 0) -> str:
    operands = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.booleans()):
            operands.append(f"({draw(_sides(depth + 1))})")
        else:
            operands.append(draw(_NUMBERS) + draw(_UNITS))
    text = operands[0]
    for operand in operands[1:]:
        text += draw(_OPERATORS) + operand
    return text


@settings(max_examples=200, deadline=None)
@given(_sides())
def test_a_side_folded_as_a_chain_has_the_value_the_parser_gives(text: str) -> None:
    tokens = tokenize(normalize(text))
    chain = chain_of(tokens, 0, len(tokens))
    assume(chain is not None)
    assert chain is not None
    for reverse in (False, True):
        parsed, stop = Parser(tokens, {}, reverse=reverse).parse(0, len(tokens))
        assert stop == len(tokens)
        assert _fields(evaluate_chain(tokens, chain, reverse=reverse)) == _fields(parsed)
