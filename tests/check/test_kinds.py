"""Rules know the kind of item: flashcards, quiz questions, exercises, numeric items."""

from __future__ import annotations

from pathlib import Path

from sysdrill.check import run_check

FLASHCARD = """\
id: global-card-1
format: flashcard
deck: collectives
question: Ring all-reduce traffic per GPU
details:
  realistic_solution: About twice the buffer size, whatever the number of GPUs.
"""

EXERCISE = """\
id: global-ex-26-1
format: exercise
difficulty: 2
section: Data Parallelism
question: Derive the communication volume of a ring all-reduce over N workers.
parts:
  - label: (a)
    text: Count the bytes each worker sends in the reduce-scatter phase.
  - label: (b)
    text: Add the all-gather phase.
"""

QUIZ = """\
id: global-quiz-26-1
format: quiz
question: Why does pipeline parallelism leave GPUs idle at the start of a step
details:
  realistic_solution: The first stages must fill the pipeline before later stages get work.
"""

NUMERIC = """\
id: cloud-num-1
format: numeric
track: cloud
question: How many GB do the FP16 weights of a 7B-parameter model take?
answer_value: 14
answer_unit: GB
answer_tolerance: 0.05
"""


def _check(tmp_path: Path, name: str, text: str) -> list[tuple[str, int]]:
    (tmp_path / "questions" / "any").mkdir(parents=True, exist_ok=True)
    (tmp_path / "questions" / "any" / f"{name}.yaml").write_text(text, "utf-8")
    return [(f.code, f.line) for f in run_check(tmp_path, workers=1).findings]


def test_flashcard_needs_only_front_and_back(tmp_path: Path) -> None:
    assert _check(tmp_path, "global-card-1", FLASHCARD) == []


def test_flashcard_without_back_is_a_schema_error(tmp_path: Path) -> None:
    text = FLASHCARD.split("details:")[0]
    assert _check(tmp_path, "global-card-1", text) == [("schema", 1)]


def test_exercise_may_lack_a_reference_answer(tmp_path: Path) -> None:
    assert _check(tmp_path, "global-ex-26-1", EXERCISE) == []


def test_quiz_question_may_be_an_imperative_without_question_mark(tmp_path: Path) -> None:
    assert _check(tmp_path, "global-quiz-26-1", QUIZ) == []


def test_quiz_without_question_is_a_schema_error(tmp_path: Path) -> None:
    text = QUIZ.replace("question: Why does", "prompt: Why does")
    found = _check(tmp_path, "global-quiz-26-1", text)
    assert ("schema", 1) in found


def test_numeric_item_needs_value_and_unit(tmp_path: Path) -> None:
    assert _check(tmp_path, "cloud-num-1", NUMERIC) == []
    text = NUMERIC.replace("answer_unit: GB\n", "")
    assert _check(tmp_path, "cloud-num-1", text) == [("schema", 1)]


def test_staffml_question_without_scenario_is_a_schema_error(tmp_path: Path) -> None:
    text = NUMERIC.replace("format: numeric\n", "")
    found = {code for code, _ in _check(tmp_path, "cloud-num-1", text)}
    assert found == {"schema"}
