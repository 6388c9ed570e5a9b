"""Claim plans reused by shape give exactly the verdicts of a fresh read."""

from __future__ import annotations

import pytest

from sysdrill.napkin import claims
from sysdrill.napkin.claims import ClaimChecker
from sysdrill.napkin.lexer import normalize, shape_of, tokenize
from sysdrill.napkin.parser import Parser, chain_of, evaluate_chain


class _NoPlans(dict):  # type: ignore[type-arg]
    def __setitem__(self, key: object, value: object) -> None:
        pass


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
    monkeypatch.setattr(claims, "_PLANS", {})
    reused = verdict_rows(lines + variants + lines)
    monkeypatch.setattr(claims, "_PLANS", _NoPlans())
    fresh = verdict_rows(lines + variants + lines)
    assert reused == fresh


def test_a_reused_plan_reads_the_new_numbers_and_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
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
        ("50 GB/s * 2", False),
        ("2048/128", False),
        ("1 + 2", False),
        ("(2 * 3)", False),
        ("80 layers * 8", False),
        ("45%", False),
        ("N * 2", False),
    ],
)
def test_only_plain_products_of_literals_skip_the_parser(text: str, simple: bool) -> None:
    tokens = tokenize(normalize(text))
    chain = chain_of(tokens, 0, len(tokens))
    assert (chain is not None) is simple
    if chain is not None:
        folded = evaluate_chain(tokens, chain)
        parsed, stop = Parser(tokens, {}).parse(0, len(tokens))
        assert stop == len(tokens)
        assert (folded.v, folded.w, folded.a, folded.dims, folded.exact) == (
            parsed.v,
            parsed.w,
            parsed.a,
            parsed.dims,
            parsed.exact,
        )
        assert (folded.ulp, folded.sig, folded.scale, folded.unit) == (
            parsed.ulp,
            parsed.sig,
            parsed.scale,
            parsed.unit,
        )
