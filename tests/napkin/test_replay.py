"""Replayed plans (recorded arithmetic, no re-parse) give exactly a fresh read's verdicts."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from sysdrill.napkin import claims, replay
from sysdrill.napkin.claims import _chunks, check_claims
from sysdrill.napkin.lexer import Token, digits_change, normalize, refill, shape_of, tokenize


class _NoPlans(dict):  # type: ignore[type-arg]
    def __setitem__(self, key: object, value: object) -> None:
        pass


def _variants(text: str, seed: int) -> str:
    """The same shapes with other digits: zeros, swapped and rising/falling ranges."""
    rng = random.Random(seed)
    return re.sub(r"\d", lambda _: rng.choice("0123456789"), text)


def _rows(texts: list[str]) -> list[tuple[object, ...]]:
    rows = []
    for text in texts:
        for v in check_claims(text):
            rows.append(
                (
                    v.line,
                    v.column,
                    v.lhs,
                    v.relation,
                    v.rhs,
                    v.verdict,
                    repr(v.computed),
                    repr(v.claimed),
                    v.unit,
                    v.message,
                    v.suggestion,
                )
            )
    return rows


def _fast_and_fresh(
    monkeypatch: pytest.MonkeyPatch, texts: list[str]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    monkeypatch.setattr(claims, "_PLANS", {})
    monkeypatch.setattr(replay, "_COMPILED", {})
    fast = _rows(texts)
    replayed = [s for s in claims._PLANS.values() if callable(s.replay)]
    assert replayed, "no plan was replayed: the test would not test the fast path"
    monkeypatch.setattr(claims, "_PLANS", _NoPlans())
    fresh = _rows(texts)
    return fast, fresh


def _texts_three_ways(texts: list[str]) -> list[str]:
    # Each text, the same shapes with other numbers, and the text again, so that
    # most spans reuse (and replay) a stored plan.
    return texts + [_variants(text, seed) for seed, text in enumerate(texts)] + texts


def test_replayed_plans_match_fresh_reads_on_the_corpus(
    monkeypatch: pytest.MonkeyPatch, corpus_lines: list[str]
) -> None:
    texts = _texts_three_ways(corpus_lines)
    fast, fresh = _fast_and_fresh(monkeypatch, texts)
    assert fast == fresh


def test_replayed_plans_match_fresh_reads_on_the_synthetic_vault(
    monkeypatch: pytest.MonkeyPatch, vault_texts: Callable[[int, int], list[str]]
) -> None:
    texts = _texts_three_ways(vault_texts(400, 0))
    fast, fresh = _fast_and_fresh(monkeypatch, texts)
    assert len(fast) > 1000
    assert fast == fresh


@pytest.mark.parametrize(
    "lines",
    [
        # A division by zero in the new numbers fails the recorded guard.
        ["x: 2048 GB / (128 GB/s) = 16 s", "x: 2048 GB / (0 GB/s) = 16 s"],
        # A rising range (5-7) and a falling difference (7-5) take other branches.
        ["x: 7-5 W = 2 W", "x: 5-7 W = 2 W", "x: 9-1 W = 8 W"],
        # min/max compare their arguments.
        ["x: max(2, 8) = 8", "x: max(9, 3) = 9", "x: min(4, 1) = 1"],
        # Names whose digits the shape does not pin down.
        ["x: log10(1000) = 3", "x: log11(1000) = 3", "x: log10(100) = 2"],
        # A defined value is read, not replayed.
        ["N = 8\nx: N * 2 = 16", "N = 9\nx: N * 2 = 16"],
        # Overflow in the new numbers.
        ["x: 10^3 = 1000", "x: 10^400 = 1000", "x: 2^10 = 1024"],
    ],
)
def test_value_dependent_branches_fall_back_to_parsing(
    monkeypatch: pytest.MonkeyPatch, lines: list[str]
) -> None:
    texts = lines * 3
    fast, fresh = _fast_and_fresh_any(monkeypatch, texts)
    assert fast == fresh


def _fast_and_fresh_any(
    monkeypatch: pytest.MonkeyPatch, texts: list[str]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    monkeypatch.setattr(claims, "_PLANS", {})
    monkeypatch.setattr(replay, "_COMPILED", {})
    fast = _rows(texts)
    monkeypatch.setattr(claims, "_PLANS", _NoPlans())
    return fast, _rows(texts)


def test_a_replayed_plan_is_compiled_once_per_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims, "_PLANS", {})
    monkeypatch.setattr(replay, "_COMPILED", {})
    check_claims("x: 2048 GB / (128 GB/s) = 16 s\nx: 4096 GB / (256 GB/s) = 16 s")
    check_claims("x: so 2048 GB / (128 GB/s) = 16 s\nx: so 4096 GB / (256 GB/s) = 16 s")
    assert len(claims._PLANS) == 2
    assert len(replay._COMPILED) == 1


def test_refill_gives_the_tokens_a_fresh_tokenize_gives(corpus_lines: list[str]) -> None:
    def fields(tokens: list[Token]) -> list[tuple[object, ...]]:
        return [
            (t.kind, t.text, t.start, t.end, t.space_before, t.value, t.alt, t.exact)
            + (t.ulp, t.sig, t.unit)
            for t in tokens
        ]

    checked = 0
    for seed, line in enumerate(corpus_lines):
        other = "x:" + _variants(line, seed)
        norm, other_norm = normalize(line), normalize(other)
        spans = list(_chunks(norm))
        other_spans = list(_chunks(other_norm))
        for (start, end), (o_start, o_end) in zip(spans, other_spans, strict=False):
            chunk, other_chunk = norm[start:end], other_norm[o_start:o_end]
            if shape_of(chunk) != shape_of(other_chunk):
                continue
            tokens = tokenize(chunk, start)
            refilled = refill(tokens, other_chunk, o_start, o_start - start, digits_change(tokens))
            assert fields(refilled) == fields(tokenize(other_chunk, o_start))
            assert fields(tokens) == fields(tokenize(chunk, start))
            checked += 1
    assert checked > 100
