"""Imported exercises, quiz questions and flashcards named and described in the terminal.

The seeds carry no titles; ``show``, ``search`` and a quiz's header name each item
by the opening of its question, and an exercise's number, stars and section are
shown with its other facts. Expected texts are read from the item files the
import wrote, never copied from the seeds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import RunCli

EXERCISES = "003_e725e3b7f745518c.txt"
QUIZ = "002_150ee555f9dec9d2.txt"
FLASHCARDS = "004_8c6267489fed25a8.txt"


def _imported(run_cli: RunCli, seeds_dir: Path, tmp_path: Path, name: str) -> Path:
    vault = tmp_path / name.split("_", 1)[0]
    result = run_cli("import", str(seeds_dir / name), "--into", str(vault), "--no-audit", "-q")
    assert result.exit_code == 0, result.stderr
    return vault


def written_item(vault: Path, item_id: str) -> dict[str, Any]:
    """The item file ``item_id`` the import wrote into ``vault``, as a mapping."""
    [path] = vault.glob(f"questions/*/{item_id}.yaml")
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))
    return data


def question_opening(question: str, words: int = 4) -> str:
    """The first ``words`` words of ``question``: an untitled item's heading starts so."""
    return " ".join(question.split()[:words])


def test_show_names_an_exercise_by_its_question_with_number_stars_and_section(
    run_cli: RunCli, seeds_dir: Path, tmp_path: Path
) -> None:
    vault = _imported(run_cli, seeds_dir, tmp_path, EXERCISES)
    written = written_item(vault, "global-exercise-0005")
    assert "title" not in written  # the header below is not a stored title
    number = written["source"]["key"].rsplit("exercise-", 1)[1]

    result = run_cli("show", "global-exercise-0005", "--vault", str(vault), "--quiet")

    assert result.exit_code == 0, result.stderr
    header, facts = result.stdout.splitlines()[:2]
    assert f"global-exercise-0005  {question_opening(written['question'])}" in header
    assert f"source Exercise {number}" in facts
    assert "difficulty " + "★" * written["difficulty"] in facts
    assert f"section {written['section']}" in facts


def test_search_lists_no_item_without_a_title(
    run_cli: RunCli, seeds_dir: Path, tmp_path: Path
) -> None:
    vault = _imported(run_cli, seeds_dir, tmp_path, EXERCISES)
    found = run_cli("search", "", "--vault", str(vault), "--json", "--limit", "100", "--quiet")
    assert found.exit_code == 0, found.stderr
    hits = json.loads(found.stdout)
    assert len(hits) == 27
    for hit in hits:
        question = written_item(vault, hit["id"])["question"]
        assert hit["title"].startswith(question_opening(question, 2)), hit
    table = run_cli("search", "", "--vault", str(vault), "--limit", "3", "--quiet")
    first = written_item(vault, "global-exercise-0001")["question"]
    assert question_opening(first, 3) in table.stdout


@pytest.mark.parametrize(
    ("seed", "item_id", "numbered"),
    [(QUIZ, "global-quiz-0005", "Question 5"), (FLASHCARDS, "global-flashcard-0030", "Card 30")],
)
def test_quiz_questions_and_flashcards_are_named_by_their_question(
    run_cli: RunCli, seeds_dir: Path, tmp_path: Path, seed: str, item_id: str, numbered: str
) -> None:
    vault = _imported(run_cli, seeds_dir, tmp_path, seed)
    written = written_item(vault, item_id)
    result = run_cli("show", item_id, "--vault", str(vault), "--quiet")
    assert result.exit_code == 0, result.stderr
    header, facts = result.stdout.splitlines()[:2]
    # Markdown emphasis is dropped from the heading, as from any terminal text.
    assert question_opening(written["question"].replace("*", ""), 3) in header
    assert f"source {numbered}" in facts


def test_a_quiz_on_the_exercises_heads_each_item_with_its_number_and_section(
    run_cli: RunCli, seeds_dir: Path, tmp_path: Path
) -> None:
    vault = _imported(run_cli, seeds_dir, tmp_path, EXERCISES)
    written = written_item(vault, "global-exercise-0001")
    result = run_cli("quiz", "chapter-26-exercises", "--vault", str(vault), input="q\n")
    assert result.exit_code == 0, result.stderr
    [header] = re.findall(r"^\[1/27\] .*$", result.stdout, re.MULTILINE)
    assert header.startswith(f"[1/27] {question_opening(written['question'])}")
    stars = "★" * written["difficulty"]
    assert f"(Exercise 26.1 · {written['level']} · {stars}" in header
    assert f"· {written['section']} · chapter-26-exercises)" in header


def test_show_of_an_unknown_id_is_one_error_line(
    run_cli: RunCli, seeds_dir: Path, tmp_path: Path
) -> None:
    vault = _imported(run_cli, seeds_dir, tmp_path, EXERCISES)
    result = run_cli("show", "global-exercise-9999", "--vault", str(vault), "--quiet")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no item with id 'global-exercise-9999'")
    assert len(result.stderr.splitlines()) == 1
