"""A new user's first hour in the terminal (issue 29, "Done when", the CLI half).

The three seed text files are imported into a new vault and studied; ten mixed items
are practised (quiz questions, flashcards and, from the starter vault, a numeric
exercise answered first with a typo, whose re-prompt names the form and never the
answer, then with two values in one line); then the daily challenge, a quiz on an
imported deck and the progress report. Every step asserts what the learner reads,
not only the exit code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.conftest import SEEDS_DIR

SEEDS = {
    "002_150ee555f9dec9d2.txt": 20,
    "003_e725e3b7f745518c.txt": 27,
    "004_8c6267489fed25a8.txt": 89,
}
"""The seed text files (a chapter quiz, exercises, flashcards) and the items each adds."""


def _answers(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _score(stdout: str) -> tuple[int, int]:
    found = re.search(r"^Score: (\d+)/(\d+) passed", stdout, re.MULTILINE)
    assert found is not None, stdout
    return int(found.group(1)), int(found.group(2))


def test_a_new_user_imports_the_seeds_and_studies_them_for_an_hour(run_cli, tmp_path: Path) -> None:
    if not SEEDS_DIR.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    vault = tmp_path / "my-vault"

    for name, added in SEEDS.items():
        result = run_cli("import", str(SEEDS_DIR / name), "--into", str(vault))
        assert result.exit_code == 0, result.stderr
        assert f"added {added}, updated 0" in result.stdout
    assert (vault / "vault.yaml").is_file()

    # Ten mixed items: four quiz questions and five flashcards of the imported decks
    # (self-rated: the seeds give no checked numbers) ...
    quiz = run_cli(
        "practice", "--vault", str(vault), "--deck", "chapter-26-quiz", "--limit", "4",
        "--answers", _answers(tmp_path, "quiz.txt", ["ring all-reduce", "3"] * 4),
    )  # fmt: skip
    assert quiz.exit_code == 0, quiz.stderr
    assert _score(quiz.stdout) == (4, 4)
    cards = run_cli(
        "practice", "--vault", str(vault), "--deck", "mire-dis-train-flashcards", "--limit", "5",
        "--answers", _answers(tmp_path, "cards.txt", ["3", "1", "4", "3", "2"]),
    )  # fmt: skip
    assert cards.exit_code == 0, cards.stderr
    assert _score(cards.stdout) == (4, 5)
    assert "Rate your recall: 1 Again" in cards.stdout

    # ... and one numeric exercise of the starter vault: a typo first, then two values
    # in one line, and a count with its noun.
    typo_then_values = _answers(
        tmp_path,
        "numeric.txt",
        ["lots", "batch 8192, lr 3.2", "781 and 14062 steps", "-", "32x", "3", "n"],
    )
    numeric = run_cli(
        "practice", "--topic", "large-batch-training", "--level", "L6+", "--tag", "exercise",
        "--limit", "1", "--answers", typo_then_values,
    )  # fmt: skip
    assert numeric.exit_code == 0, numeric.stderr
    assert "Could not read 'lots' as 2 values, one for each, separated by commas" in numeric.stdout
    reprompt = numeric.stdout.split("Could not read 'lots'", 1)[1].split("\n", 1)[0]
    assert "8192" not in reprompt and "3.2" not in reprompt
    assert "(a) right: First value right" in numeric.stdout
    assert "(b) right: First value right" in numeric.stdout

    daily = run_cli(
        "daily", "--vault", str(vault), "--deck", "mire-dis-train-flashcards",
        "--answers", _answers(tmp_path, "daily.txt", ["3"] * 3),
    )  # fmt: skip
    assert daily.exit_code == 0, daily.stderr
    assert _score(daily.stdout)[1] == 3

    deck_quiz = run_cli(
        "quiz", "chapter-26-quiz", "--vault", str(vault),
        "--answers", _answers(tmp_path, "deck-quiz.txt", ["-", "3"] * 20),
    )  # fmt: skip
    assert deck_quiz.exit_code == 0, deck_quiz.stderr
    # The day's 20 new items are spent (ten practised, three of the daily): a quiz is
    # an explicit request, so it still asks the whole deck, and says nothing is left out.
    assert _score(deck_quiz.stdout)[1] == SEEDS["002_150ee555f9dec9d2.txt"] == 20
    assert deck_quiz.stdout.startswith("Quiz: Chapter 26: Quiz (20 items)\n")

    progress = run_cli("progress", "--vault", str(vault))
    assert progress.exit_code == 0, progress.stderr
    summary = re.search(r"Items: (\d+)\s+seen: (\d+)", progress.stdout)
    assert summary is not None, progress.stdout
    assert int(summary.group(1)) == sum(SEEDS.values())
    assert int(summary.group(2)) >= 9  # the ten practised, less the one of the starter vault
