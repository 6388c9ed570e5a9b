"""The napkin accuracy corpus (tests/data/napkin) and its scorer (bench/napkin_accuracy.py).

The corpus is checked for format and labelling; the scorer's line-level maths is
proved on a hand-made confusion; and the checker must meet issue 11's targets on
both splits (precision >= 98 %, recall >= 95 %, at most 5 % of claim lines skipped).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_scorer() -> ModuleType:
    name = "napkin_accuracy"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "napkin_accuracy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


acc = _load_scorer()

TARGETS = {
    # split: (precision floor, recall floor, skip-share ceiling): issue 11's targets.
    "main": (0.98, 0.95, 0.05),
    "heldout": (0.98, 0.95, 0.05),
}


def _all_rows() -> dict[str, list[Any]]:
    return {name: acc.load_corpus(path) for name, path in acc.SPLITS.items()}


def test_both_splits_are_well_formed_and_share_no_id() -> None:
    splits = _all_rows()
    for rows in splits.values():
        assert acc.corpus_problems(rows) == []
    ids = [row.id for rows in splits.values() for row in rows]
    assert len(ids) == len(set(ids))


def test_corpus_is_large_with_the_planned_label_mix_and_a_fifth_held_out() -> None:
    splits = _all_rows()
    rows = [row for split in splits.values() for row in split]
    assert len(rows) >= 700
    shares = {label: n / len(rows) for label, n in Counter(r.label for r in rows).items()}
    assert 0.35 <= shares["right"] <= 0.50
    assert 0.20 <= shares["wrong"] <= 0.30
    assert 0.25 <= shares["not-a-claim"] <= 0.40
    assert 0.15 <= len(splits["heldout"]) / len(rows) <= 0.25


def test_every_category_is_in_both_splits_with_all_three_labels_in_the_main_one() -> None:
    splits = _all_rows()
    for rows in splits.values():
        assert {row.category for row in rows} == set(acc.CATEGORIES)
    labels: dict[str, set[str]] = {}
    for row in splits["main"]:
        labels.setdefault(row.category, set()).add(row.label)
    for category, found in labels.items():
        assert found == ({"not-a-claim"} if category == "prose" else set(acc.LABELS)), category


def _row(
    id: str,
    label: str,
    line: str,
    *,
    category: str = "labels",
    true_value: str = "",
    block: str = "",
) -> Any:
    return acc.Row(id, category, label, true_value, block, line, "")


def test_corpus_problems_names_each_labelling_fault() -> None:
    rows = [
        _row("a-1", "wrong", "2 * 3 = 7"),
        _row("a-1", "right", "2 * 3 = 6"),
        _row("a-2", "right", "2 * 3 = 6", category="nonsense"),
        _row("a-3", "maybe", "2 * 3 = 6"),
        _row("a-4", "right", "2 * 3 = 6", true_value="6"),
        _row("a-5", "not-a-claim", "Let B = 2", block="b1"),
        _row("a-6", "right", "B * 3 = 6"),
        _row("a-7", "right", "B * 4 = 8", block="b1"),
    ]
    problems = acc.corpus_problems(rows)
    assert problems == [
        "a-1: a wrong line needs its true value",
        "a-1: id missing or used twice",
        "a-2: unknown category 'nonsense'",
        "a-3: unknown label 'maybe'",
        "a-4: only wrong lines carry a true value",
        "a-7: block 'b1' is not contiguous",
    ]


def test_load_corpus_rejects_a_bad_header_and_a_short_row(tmp_path: Path) -> None:
    header = "\t".join(acc.FIELDS)
    bad_header = tmp_path / "bad_header.tsv"
    bad_header.write_text("# comment\nid\tlabel\tline\n", "utf-8")
    with pytest.raises(acc.CorpusError, match="header"):
        acc.load_corpus(bad_header)
    short = tmp_path / "short.tsv"
    short.write_text(f"{header}\nx-1\tlabels\tright\t2 * 3 = 6\n", "utf-8")
    with pytest.raises(acc.CorpusError, match="short.tsv:2: 4 fields"):
        acc.load_corpus(short)


@pytest.mark.parametrize(
    ("label", "verdicts", "outcome"),
    [
        ("wrong", ["ok", "wrong"], "caught"),
        ("wrong", ["prefix-ambiguous"], "caught"),
        ("wrong", ["unit-mismatch"], "caught"),
        ("wrong", ["ok", "skipped"], "missed"),
        ("wrong", ["skipped"], "missed-skipped"),
        ("wrong", [], "missed-skipped"),
        ("right", ["ok", "ok"], "clean"),
        ("right", ["ok", "unit-mismatch"], "false-alarm"),
        ("right", ["skipped"], "skipped"),
        ("not-a-claim", [], "clean"),
        ("not-a-claim", ["ok"], "clean"),
        ("not-a-claim", ["wrong"], "false-alarm"),
    ],
)
def test_line_outcome(label: str, verdicts: list[str], outcome: str) -> None:
    assert acc.line_outcome(label, verdicts) == outcome


@dataclass(frozen=True)
class FakeVerdict:
    line: int
    verdict: str
    lhs: str = "l"
    relation: str = "="
    rhs: str = "r"
    computed: float | None = None
    unit: str = ""


def test_scoring_maths_on_a_known_confusion() -> None:
    # Four wrong lines (three caught, one by a prefix note only; one skipped), five
    # right lines (one false alarm, one skipped) and two non-claims (one false alarm).
    plan = {
        "w1": ["wrong"],
        "w2": ["ok", "unit-mismatch"],
        "w3": ["prefix-ambiguous"],
        "w4": ["skipped"],
        "r1": ["ok"],
        "r2": ["ok"],
        "r3": ["ok", "ok"],
        "r4": ["wrong"],
        "r5": [],
        "n1": [],
        "n2": ["unit-mismatch"],
    }
    labels = {"w": "wrong", "r": "right", "n": "not-a-claim"}
    rows = [
        _row(
            key,
            labels[key[0]],
            key,
            category="time" if key == "w1" else "labels",
            true_value="x" if key.startswith("w") else "",
        )
        for key in plan
    ]

    def check(text: str) -> list[FakeVerdict]:
        return [FakeVerdict(1, name) for name in plan[text]]

    score = acc.score_rows(rows, acc.verdicts_by_row(rows, check))
    overall = score.overall
    assert (overall.caught, overall.false_alarms, overall.wrong_lines) == (3, 2, 4)
    assert overall.precision == pytest.approx(3 / 5)
    assert overall.recall == pytest.approx(3 / 4)
    assert overall.skip_share == pytest.approx(2 / 9)
    assert overall.false_alarm_rate == pytest.approx(2 / 7)
    assert overall.prefix_only == 1
    assert score.categories["time"].recall == 1.0
    assert score.categories["time"].precision == 1.0
    assert score.categories["labels"].recall == pytest.approx(2 / 3)
    assert [(m["id"], m["outcome"]) for m in score.misclassified] == [
        ("w4", "missed-skipped"),
        ("r4", "false-alarm"),
        ("r5", "skipped"),
        ("n2", "false-alarm"),
    ]


def test_a_split_without_flags_or_wrong_lines_has_no_precision_or_recall() -> None:
    rows = [_row("n1", "not-a-claim", "Let B = 32")]
    score = acc.score_rows(rows, {"n1": []})
    overall = score.overall
    assert (overall.precision, overall.recall, overall.skip_share) == (None, None, None)
    assert overall.false_alarm_rate == 0.0


def test_rows_of_one_block_are_checked_as_one_text() -> None:
    rows = [
        _row("d1", "not-a-claim", "Let B = 32", block="b1"),
        _row("d2", "wrong", "B × 4 = 129", block="b1", true_value="128"),
        _row("d3", "right", "B × 4 = 128"),
    ]
    seen: list[str] = []

    def check(text: str) -> list[FakeVerdict]:
        seen.append(text)
        return [FakeVerdict(2, "wrong")] if "\n" in text else []

    found = acc.verdicts_by_row(rows, check)
    assert seen == ["Let B = 32\nB × 4 = 129", "B × 4 = 128"]
    assert [v.verdict for v in found["d2"]] == ["wrong"]
    assert found["d1"] == [] and found["d3"] == []


def test_the_real_checker_uses_a_definition_from_the_row_before() -> None:
    from sysdrill.napkin.claims import check_claims

    rows = [
        _row("d1", "not-a-claim", "Let B = 32", block="b1"),
        _row("d2", "wrong", "B × 4 = 129", block="b1", true_value="128"),
    ]
    score = acc.score_rows(rows, acc.verdicts_by_row(rows, check_claims))
    assert score.overall.caught == 1


def test_json_output_carries_the_figures_of_each_split(capsys: pytest.CaptureFixture[str]) -> None:
    assert acc.main(["--json", "--split", "heldout"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["heldout"]
    expected = acc.score_split(acc.SPLITS["heldout"]).to_dict()
    assert data["heldout"]["overall"] == expected["overall"]
    assert set(data["heldout"]["categories"]) == set(acc.CATEGORIES)


def test_verbose_output_lists_each_misclassified_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert acc.main(["--verbose", "--split", "heldout"]) == 0
    out = capsys.readouterr().out
    score = acc.score_split(acc.SPLITS["heldout"])
    assert f"-- misclassified ({len(score.misclassified)})" in out
    for item in score.misclassified:
        assert item["id"] in out


@pytest.mark.parametrize("split", sorted(TARGETS))
def test_checker_meets_the_accuracy_targets(split: str) -> None:
    precision, recall, skip_share = TARGETS[split]
    overall = acc.score_split(acc.SPLITS[split]).overall
    assert overall.precision is not None and overall.precision >= precision
    assert overall.recall is not None and overall.recall >= recall
    assert overall.skip_share is not None and overall.skip_share <= skip_share
