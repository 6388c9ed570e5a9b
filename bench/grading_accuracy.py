"""Accuracy of numeric answer grading on the labelled corpus of learner answers.

The corpus (tests/data/grading/answers.yaml and the held-out heldout.yaml; labelling
rules in tests/data/grading/README.md) pairs a reference answer, written as vault
authors write a part's answer, with what learners type, each labelled ``correct``,
``wrong`` or ``unreadable`` (the learner should be asked again). Every case goes
through what a session does with an exercise part: ``part_expected`` reads the
reference, ``unreadable_part_answer`` refuses an answer that is no quantity, and
``grade_part`` grades the rest (``-`` and a blank answer are graded wrong there).
A reference that ``part_expected`` cannot read leaves the part to the learner: the
verdict is ``ungraded``.

Figures per split:

- precision: answers accepted that are labelled correct / answers accepted;
- recall: correct-labelled answers accepted / correct-labelled answers;
- wrong accepted: wrong-labelled answers accepted / wrong-labelled answers;
- unreadable: answers sent back as unreadable / all answers (and how many of those
  the labels also call unreadable);
- agreement: verdict equal to the label / all answers.

Usage: ``python bench/grading_accuracy.py [--json] [--quiet] [--split main|heldout]``.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from napkin_accuracy import main_over_splits  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DIR = ROOT / "tests" / "data" / "grading"
SPLITS = {"main": CORPUS_DIR / "answers.yaml", "heldout": CORPUS_DIR / "heldout.yaml"}
"""The two splits; nobody tunes the grader on ``heldout``."""

LABELS = ("correct", "wrong", "unreadable")
VERDICTS = (*LABELS, "ungraded")
DEFAULT_TOLERANCE = 0.05


class CorpusError(ValueError):
    """A split is malformed (not a list of entries, a case not ``[label, answer]``...)."""


@dataclass(frozen=True)
class Case:
    """One typed answer to one reference, with the verdict a fair grader gives."""

    id: str
    reference: str
    tolerance: float
    label: str
    given: str
    note: str = ""


def load_corpus(path: Path) -> list[Case]:
    """Read one split: a list of ``{reference, tolerance?, cases: [[label, answer, note?]]}``."""
    data = yaml.safe_load(path.read_text("utf-8"))
    if not isinstance(data, list):
        raise CorpusError(f"{path.name}: expected a list of references")
    prefix = path.name[0]
    cases: list[Case] = []
    for number, entry in enumerate(data, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("cases"), list):
            raise CorpusError(f"{path.name}: entry {number} needs a reference and cases")
        tolerance = float(entry.get("tolerance", DEFAULT_TOLERANCE))
        for index, raw in enumerate(entry["cases"], 1):
            if not isinstance(raw, list) or len(raw) not in (2, 3):
                raise CorpusError(f"{path.name}: entry {number} case {index}: want [label, answer]")
            label, given, *note = (str(value) for value in raw)
            case_id = f"{prefix}{number:02d}.{index}"
            cases.append(Case(case_id, str(entry["reference"]), tolerance, label, given, *note))
    return cases


def corpus_problems(cases: Sequence[Case]) -> list[str]:
    """Every labelling problem in ``cases`` (empty when the split is well formed)."""
    problems: list[str] = []
    seen: set[tuple[str, str]] = set()
    for case in cases:
        if case.label not in LABELS:
            problems.append(f"{case.id}: unknown label {case.label!r}")
        if not case.reference.strip():
            problems.append(f"{case.id}: empty reference")
        if not 0 <= case.tolerance < 1:
            problems.append(f"{case.id}: tolerance {case.tolerance} is not a fraction")
        if (case.reference, case.given) in seen:
            problems.append(f"{case.id}: answer {case.given!r} listed twice")
        seen.add((case.reference, case.given))
    return problems


def grade_case(case: Case) -> str:
    """The session's verdict on one case: one of :data:`VERDICTS`."""
    from sysdrill.content.models import Item
    from sysdrill.study.sessions.parts import grade_part, unreadable_part_answer

    item = Item.model_validate(
        {
            "id": "grading-case",
            "parts": [{"label": "a", "text": "?", "answer": case.reference}],
            "answer_tolerance": case.tolerance,
        }
    )
    if unreadable_part_answer(item, 0, case.given) is not None:
        return "unreadable"
    grade = grade_part(item, 0, case.given)
    if grade.correct is None:
        return "ungraded"
    return "correct" if grade.correct else "wrong"


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass
class Score:
    """The confusion of labels and verdicts of one split, and the figures drawn from it."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    disagreements: list[dict[str, str]] = field(default_factory=list)

    def _count(self, *, label: str | None = None, verdict: str | None = None) -> int:
        return sum(
            n
            for (lab, ver), n in self.counts.items()
            if label in (None, lab) and verdict in (None, ver)
        )

    @property
    def total(self) -> int:
        """How many cases were scored."""
        return self._count()

    @property
    def precision(self) -> float | None:
        """Accepted answers that are labelled correct, over all accepted answers."""
        return _share(self.counts["correct", "correct"], self._count(verdict="correct"))

    @property
    def recall(self) -> float | None:
        """Correct-labelled answers accepted, over all correct-labelled answers."""
        return _share(self.counts["correct", "correct"], self._count(label="correct"))

    @property
    def wrong_accepted(self) -> float | None:
        """Wrong-labelled answers accepted, over all wrong-labelled answers."""
        return _share(self.counts["wrong", "correct"], self._count(label="wrong"))

    @property
    def unreadable_rate(self) -> float | None:
        """Answers sent back as unreadable, over all answers."""
        return _share(self._count(verdict="unreadable"), self.total)

    @property
    def agreement(self) -> float | None:
        """Verdicts equal to their label, over all answers."""
        return _share(sum(self.counts[label, label] for label in LABELS), self.total)

    def to_dict(self) -> dict[str, Any]:
        """The figures, the confusion (``label->verdict``) and the disagreements."""
        return {
            "cases": self.total,
            "labels": {label: self._count(label=label) for label in LABELS},
            "precision": self.precision,
            "recall": self.recall,
            "wrong_accepted": self.wrong_accepted,
            "unreadable_rate": self.unreadable_rate,
            "unreadable_agreed": self.counts["unreadable", "unreadable"],
            "agreement": self.agreement,
            "confusion": {f"{lab}->{ver}": n for (lab, ver), n in sorted(self.counts.items())},
            "disagreements": self.disagreements,
        }


def score_cases(cases: Sequence[Case], grade: Callable[[Case], str] = grade_case) -> Score:
    """Grade every case and tally the verdicts against the labels."""
    score = Score()
    for case in cases:
        verdict = grade(case)
        score.counts[case.label, verdict] += 1
        if verdict != case.label:
            score.disagreements.append(
                {
                    "id": case.id,
                    "reference": case.reference,
                    "given": case.given,
                    "label": case.label,
                    "verdict": verdict,
                }
            )
    return score


def score_split(path: Path) -> Score:
    """Load one split and score it with the session's grader."""
    return score_cases(load_corpus(path))


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _print_split(name: str, score: Score, *, quiet: bool) -> None:
    figures = score.to_dict()
    labels = ", ".join(f"{n} {label}" for label, n in figures["labels"].items())
    print(f"== {name}: {score.total} answers ({labels})")
    print(f"precision of 'correct'  {_percent(score.precision)}")
    print(f"recall of 'correct'     {_percent(score.recall)}")
    print(f"wrong answers accepted  {_percent(score.wrong_accepted)}")
    print(
        f"sent back unreadable    {_percent(score.unreadable_rate)} "
        f"({figures['unreadable_agreed']} of them labelled unreadable)"
    )
    print(f"agreement               {_percent(score.agreement)}")
    if quiet:
        return
    print(f"-- disagreements ({len(score.disagreements)})")
    for row in score.disagreements:
        print(
            f"{row['id']:>7}  {row['label']:>10} -> {row['verdict']:<10}  "
            f"{row['given']!r}  (reference {row['reference']!r})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures of each split (or JSON with ``--json``)."""
    return main_over_splits(
        argv,
        description=(__doc__ or "").split("\n\n")[0],
        splits=SPLITS,
        score_split=score_split,
        print_split=lambda name, score, args: _print_split(name, score, quiet=args.quiet),
        flags=[("--quiet", "-q", "omit the disagreements")],
    )


if __name__ == "__main__":
    raise SystemExit(main())
