"""Diagrams in the terminal: ``show`` prints the picture and its figures, practice the picture."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sysdrill.content.sample import sample_vault_path

PIPELINE = """\
diagram:
  kind: pipeline-schedule
  params:
    schedule: 1f1b
    stages: 8
    microbatches: 8
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """The sample vault with a pipeline diagram on its eight-stage pipeline item."""
    root = tmp_path / "vault"
    shutil.copytree(sample_vault_path(), root)
    item = root / "questions" / "cloud" / "cloud-0104.yaml"
    item.write_text(item.read_text("utf-8") + PIPELINE, encoding="utf-8")
    return root


def test_show_draws_the_schedule_within_80_columns_with_its_bubble(run_cli, vault: Path) -> None:
    result = run_cli("show", "cloud-0104", "--vault", str(vault))

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("Diagram")
    picture = lines[start + 1 : start + 12]
    assert picture[0] == (
        "1F1B pipeline schedule: 8 stages, 8 micro-batches; bubble 46.7 % of the step"
    )
    assert picture[2] == "GPU 0 |FFFFFFFF" + "." * 14 + "BB.BB.BB.BB.BB.BB.BB.BB"
    assert picture[9] == "GPU 7 |" + "." * 7 + "F" + "BBF" * 7 + "BB" + "." * 14
    assert max(len(line) for line in picture) <= 80
    assert lines.index("Diagram") < lines.index("Question")


def test_show_of_an_item_without_a_diagram_prints_none(run_cli, vault: Path) -> None:
    result = run_cli("show", "cloud-0103", "--vault", str(vault))

    assert result.exit_code == 0, result.stderr
    assert "Diagram" not in result.stdout.splitlines()


def test_practice_shows_the_picture_and_its_bubble_with_the_answer(
    run_cli, vault: Path, tmp_path: Path
) -> None:
    only = tmp_path / "one"
    (only / "questions" / "cloud").mkdir(parents=True)
    shutil.copy(vault / "questions" / "cloud" / "cloud-0104.yaml", only / "questions" / "cloud")
    answers = tmp_path / "answers.txt"
    answers.write_text("half of it\ngood\n", encoding="utf-8")

    result = run_cli("practice", "--vault", str(only), "--limit", "1", "--answers", str(answers))

    assert result.exit_code == 0, result.stderr
    out = result.stdout
    asked, _, revealed = out.partition("> half of it")
    # The picture shows the bubble the question asks for: it comes with the answer.
    assert "GPU 0 |" not in asked and "46.7" not in asked
    assert "1F1B pipeline schedule: 8 stages, 8 micro-batches\nGPU 0 |FFFFFFFF" in revealed
    assert "Read off the diagram:\n  bubble 46.7 % of the step (87.5 % of the ideal time)" in (
        revealed
    )
