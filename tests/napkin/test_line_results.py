"""Lines met again reuse their stored verdicts only where a fresh read agrees."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable

import pytest
from tests.napkin.conftest import NothingKept, StoredAndFresh

from sysdrill.napkin import claims
from sysdrill.napkin.claims import ClaimChecker, check_claims, doubtful_claims


def test_stored_lines_match_fresh_reads_on_the_synthetic_vault(
    stored_and_fresh: StoredAndFresh, vault_texts: Callable[[int, int], list[str]]
) -> None:
    texts = vault_texts(300, 2)
    rng = random.Random(5)
    # The texts with their lines shuffled: each line meets other definitions before it.
    shuffled = []
    for text in texts:
        lines = text.splitlines()
        rng.shuffle(lines)
        shuffled.append("\n".join(lines))
    stored, fresh = stored_and_fresh(texts + shuffled + texts, "_LINES")
    assert len(stored) > 1000
    assert stored == fresh


@pytest.mark.parametrize(
    "text",
    [
        # The same line reads another value of N.
        "N = 8\nx: N * 2 = 16\nN = 9\nx: N * 2 = 16",
        # A name defined on the line is unknown the first time, known the second.
        "x: N * 2 = 16\nN = 8\nx: N * 2 = 16",
        # A glued setting defines a value when the line is met again.
        "TP=8, PP=4\nTP * PP = 32\nTP=8, PP=4\nTP * PP = 32",
        # The same line at other line numbers.
        "a: 2 x 3 = 6\n\na: 2 x 3 = 6\na: 2 x 3 = 7\na: 2 x 3 = 7",
    ],
)
def test_a_stored_line_gives_what_a_fresh_read_gives(
    stored_and_fresh: StoredAndFresh, text: str
) -> None:
    stored, fresh = stored_and_fresh([text, text], "_LINES")
    assert stored == fresh


def test_a_stored_line_replays_its_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims, "_LINES", {})
    ClaimChecker().check_line("B = 32", 1)
    checker = ClaimChecker()
    checker.check_line("B = 32", 4)
    (verdict,) = checker.check_line("x: B * 2 = 65", 5)
    assert (verdict.line, verdict.verdict.value, verdict.computed) == (5, "wrong", 64)


def test_a_line_with_other_values_before_it_is_read_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(claims, "_LINES", {})
    first = check_claims("N = 8\nx: N * 2 = 16")
    second = check_claims("N = 9\nx: N * 2 = 16")
    assert [v.verdict.value for v in first] == ["skipped", "ok"]
    assert [v.verdict.value for v in second] == ["skipped", "wrong"]
    assert re.search(r"18", second[1].message)


def test_a_renumbered_verdict_differs_only_in_its_line() -> None:
    (verdict,) = ClaimChecker().check_line("a: 2 x 3 = 7", 1)
    assert dataclasses.replace(verdict, line=9) == claims._renumbered(verdict, 9)


@pytest.mark.parametrize("kept", [True, False])
def test_doubtful_claims_are_the_verdicts_that_are_neither_ok_nor_skipped(
    monkeypatch: pytest.MonkeyPatch, corpus_lines: list[str], kept: bool
) -> None:
    # Each corpus line twice, the second time at another line number: with stored
    # lines kept, the second is a lookup whose doubts carry the new number.
    text = "\n".join(line for line in corpus_lines for _ in range(2))
    monkeypatch.setattr(claims, "_LINES", {} if kept else NothingKept())
    expected = [
        v for v in check_claims(text) if v.verdict.value not in ("ok", "skipped") or v.unsure
    ]
    monkeypatch.setattr(claims, "_LINES", {} if kept else NothingKept())
    doubts = doubtful_claims(text)
    assert doubts == expected
    kinds = {v.verdict.value for v in doubts}
    assert {"wrong", "unit-mismatch", "prefix-ambiguous"} <= kinds
    # Abstentions (issue 27) are doubts too: skipped, and marked unsure.
    assert kinds <= {"wrong", "unit-mismatch", "prefix-ambiguous", "skipped"}
    assert all(v.unsure for v in doubts if v.verdict.value == "skipped")
    assert len({v.line for v in doubts}) > 100
