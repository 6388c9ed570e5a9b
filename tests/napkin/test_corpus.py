"""Quality of ``wrong`` verdicts on the labelled corpus (tests/napkin/corpus/claims.tsv).

Each corpus line is labelled with the verdict expected for the line as a whole:
``wrong`` if any link is wrong, else ``unit-mismatch``, ``prefix-ambiguous``, ``ok``,
or ``skipped``. Precision and recall of ``wrong`` are printed (run with ``-s``) and
recorded in docs/benchmarks.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.napkin.claims import ClaimChecker

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
CORPUS = CORPUS_DIR / "claims.tsv"
HELD_OUT = CORPUS_DIR / "heldout.tsv"
"""Claims written after the rules were settled, never used to tune them."""
LABELS = ("wrong", "unit-mismatch", "prefix-ambiguous", "ok", "skipped")


def load_corpus(path: Path = CORPUS) -> list[tuple[str, str]]:
    rows = []
    for raw in path.read_text("utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        label, text = raw.split("\t", 1)
        assert label in LABELS, raw
        rows.append((label, text))
    return rows


def line_verdict(text: str) -> str:
    kinds = {v.verdict.value for v in ClaimChecker().check_line(text, 1)}
    return next((label for label in LABELS if label in kinds), "skipped")


def test_corpus_is_large_and_covers_every_label() -> None:
    rows = load_corpus()
    assert len(rows) >= 150
    labels = {label for label, _ in rows}
    assert labels == set(LABELS)
    assert sum(label == "wrong" for label, _ in rows) >= 60


def precision_recall(rows: list[tuple[str, str]]) -> tuple[float, float, list[str]]:
    true_pos = false_pos = false_neg = 0
    misses = []
    for label, text in rows:
        got = line_verdict(text)
        if got == "wrong" and label == "wrong":
            true_pos += 1
        elif got == "wrong":
            false_pos += 1
            misses.append(f"false wrong: {text}")
        elif label == "wrong":
            false_neg += 1
            misses.append(f"missed wrong ({got}): {text}")
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 1.0
    recall = true_pos / (true_pos + false_neg)
    return precision, recall, misses


@pytest.mark.parametrize("path", [CORPUS, HELD_OUT], ids=["corpus", "held-out"])
def test_wrong_verdicts_meet_the_precision_and_recall_targets(path: Path) -> None:
    rows = load_corpus(path)
    precision, recall, misses = precision_recall(rows)
    wrong = sum(label == "wrong" for label, _ in rows)
    print(
        f"\n{path.name}: {len(rows)} lines, {wrong} wrong; "
        f"precision {precision:.1%}, recall {recall:.1%}"
    )
    print("\n".join(misses))
    assert recall >= 0.95, misses
    assert precision >= 0.98, misses


def test_every_corpus_line_gets_its_label() -> None:
    mismatched = [
        (label, line_verdict(text), text)
        for label, text in load_corpus()
        if line_verdict(text) != label
    ]
    assert mismatched == []
