"""The numeric answer grading corpus (tests/data/grading) and bench/grading_accuracy.py.

The corpus is checked for format and labelling; the scorer's figures are proved on a
hand-made confusion; and the session's grader must hold the figures reached on both
splits (issue 14 point 3): every accepted answer right, wrong answers never accepted.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


# The scorer imports its sibling napkin_accuracy.py from bench/, as a script does.
sys.path.insert(0, str(ROOT / "bench"))
import grading_accuracy as acc  # noqa: E402

TARGETS = {
    # split: (precision floor, recall floor, wrong-accepted ceiling, agreement floor):
    # the figures reached (main 100 / 99.6 / 0 / 99.8 %, held-out 100 / 100 / 0 / 100 %).
    "main": (1.0, 0.996, 0.0, 0.997),
    "heldout": (1.0, 1.0, 0.0, 1.0),
}


def _all_cases() -> dict[str, list[Any]]:
    return {name: acc.load_corpus(path) for name, path in acc.SPLITS.items()}


def test_both_splits_are_well_formed() -> None:
    for cases in _all_cases().values():
        assert acc.corpus_problems(cases) == []


def test_corpus_is_large_with_all_labels_and_a_quarter_held_out() -> None:
    splits = _all_cases()
    cases = [case for split in splits.values() for case in split]
    assert len(cases) >= 300
    for split in splits.values():
        assert set(Counter(case.label for case in split)) == set(acc.LABELS)
    assert 0.2 <= len(splits["heldout"]) / len(cases) <= 0.3


def test_corpus_problems_names_each_labelling_fault() -> None:
    cases = [
        acc.Case("a01.1", "7 GB", 0.05, "right", "7 GB"),
        acc.Case("a01.2", "", 0.05, "correct", "7 GB"),
        acc.Case("a01.3", "7 GB", 5, "wrong", "7 MB"),
        acc.Case("a01.4", "7 GB", 0.05, "wrong", "7 MB"),
    ]
    assert acc.corpus_problems(cases) == [
        "a01.1: unknown label 'right'",
        "a01.2: empty reference",
        "a01.3: tolerance 5 is not a fraction",
        "a01.4: answer '7 MB' listed twice",
    ]


def test_load_corpus_rejects_a_case_that_is_not_a_pair(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text('- reference: "7 GB"\n  cases:\n    - [correct]\n', "utf-8")
    with pytest.raises(acc.CorpusError, match="entry 1 case 1"):
        acc.load_corpus(bad)


def test_scoring_maths_on_a_known_confusion() -> None:
    plan = {
        "c1": ("correct", "correct"),
        "c2": ("correct", "correct"),
        "c3": ("correct", "unreadable"),
        "c4": ("correct", "ungraded"),
        "w1": ("wrong", "wrong"),
        "w2": ("wrong", "correct"),
        "u1": ("unreadable", "unreadable"),
        "u2": ("unreadable", "wrong"),
    }
    cases = [acc.Case(key, "1 s", 0.05, label, key) for key, (label, _) in plan.items()]
    score = acc.score_cases(cases, lambda case: plan[case.given][1])
    assert score.precision == pytest.approx(2 / 3)
    assert score.recall == pytest.approx(2 / 4)
    assert score.wrong_accepted == pytest.approx(1 / 2)
    assert score.unreadable_rate == pytest.approx(2 / 8)
    assert score.agreement == pytest.approx(4 / 8)
    assert [row["id"] for row in score.disagreements] == ["c3", "c4", "w2", "u2"]


def test_the_real_grader_goes_through_the_session_s_part_grading() -> None:
    def case(label: str, reference: str, given: str) -> Any:
        return acc.Case("x", reference, 0.05, label, given)

    assert acc.grade_case(case("correct", "= 131,072 B, that is 128 KiB.", "128 k")) == "correct"
    assert acc.grade_case(case("wrong", "~7 GB", "7 GB/s")) == "wrong"
    assert acc.grade_case(case("wrong", "~7 GB", "idk")) == "wrong"
    assert acc.grade_case(case("unreadable", "~7 GB", "lots")) == "unreadable"
    assert acc.grade_case(case("correct", "Yes, it fits.", "yes")) == "ungraded"


def test_json_output_carries_the_figures_of_each_split(capsys: pytest.CaptureFixture[str]) -> None:
    assert acc.main(["--json", "--split", "heldout"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["heldout"]
    assert data["heldout"] == acc.score_split(acc.SPLITS["heldout"]).to_dict()


@pytest.mark.parametrize("split", sorted(TARGETS))
def test_grader_holds_the_figures_reached(split: str) -> None:
    precision, recall, wrong_accepted, agreement = TARGETS[split]
    score = acc.score_split(acc.SPLITS[split])
    assert score.precision is not None and score.precision >= precision, score.disagreements
    assert score.recall is not None and score.recall >= recall, score.disagreements
    assert score.wrong_accepted is not None and score.wrong_accepted <= wrong_accepted
    assert score.agreement is not None and score.agreement >= agreement, score.disagreements
