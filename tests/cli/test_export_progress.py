"""``sysdrill export`` progress: bars on a terminal's standard error, none with --quiet."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from sysdrill.cli.console import PROGRESS_MIN_STEPS

ITEMS = PROGRESS_MIN_STEPS
"""Just enough items for the reading and writing stages to draw their bars."""


def _large_vault(root: Path, count: int = ITEMS) -> Path:
    questions = root / "questions"
    questions.mkdir(parents=True)
    for n in range(count):
        card = {
            "id": f"net-{n:04d}",
            "format": "flashcard",
            "deck": "Networking",
            "question": f"Question {n}?",
            "details": {"realistic_solution": f"Answer {n}."},
        }
        (questions / f"net-{n:04d}.yaml").write_text(yaml.safe_dump(card), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def large_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _large_vault(tmp_path_factory.mktemp("export-progress") / "vault")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make standard error count as a terminal, as it does in an interactive shell."""
    monkeypatch.setenv("FORCE_COLOR", "1")


@pytest.mark.usefixtures("terminal")
@pytest.mark.parametrize("fmt", ["apkg", "anki-text", "csv", "staffml-json", "markdown"])
def test_export_on_a_terminal_shows_reading_and_writing_bars_on_stderr(
    run_cli, large_vault: Path, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / "export.out"

    result = run_cli("export", str(large_vault), "--format", fmt, "--out", str(out), "--no-cache")

    assert result.exit_code == 0, result.stderr
    assert "Reading items" in result.stderr
    assert "Writing the export" in result.stderr
    assert f"{ITEMS}/{ITEMS}" in result.stderr
    assert result.stdout.startswith(f"Exported {ITEMS} items to {out} ({fmt}, ")
    assert "Reading items" not in result.stdout


@pytest.mark.usefixtures("terminal")
def test_export_to_stdout_keeps_the_bars_off_the_exported_file(run_cli, large_vault: Path) -> None:
    result = run_cli("export", str(large_vault), "--format", "csv", "--out", "-")

    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert len(rows) == ITEMS + 1
    assert rows[1][:3] == ["net-0000", "Question 0?", "Answer 0."]
    assert "Writing the export" in result.stderr
    assert f"Exported {ITEMS} items to standard output (csv," in result.stderr


@pytest.mark.usefixtures("terminal")
def test_export_quiet_on_a_terminal_prints_nothing_and_writes_the_file(
    run_cli, large_vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "deck.md"

    result = run_cli("export", str(large_vault), "--out", str(out), "--quiet")

    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert out.read_text(encoding="utf-8").count("<!-- id: net-") == ITEMS


@pytest.mark.usefixtures("terminal")
def test_export_quiet_to_stdout_prints_only_the_file(run_cli, large_vault: Path) -> None:
    result = run_cli("export", str(large_vault), "-f", "staffml-json", "--out", "-", "-q")

    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.lstrip().startswith("[")
    assert result.stdout.count('"id": "net-') == ITEMS


def test_export_off_a_terminal_draws_no_bar(run_cli, large_vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "deck.csv"

    result = run_cli("export", str(large_vault), "--out", str(out))

    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout.splitlines()[0].startswith(f"Exported {ITEMS} items to {out} (csv, ")


@pytest.mark.usefixtures("terminal")
def test_export_quiet_into_a_missing_folder_still_prints_the_error(
    run_cli, large_vault: Path, tmp_path: Path
) -> None:
    out = tmp_path / "missing" / "deck.apkg"

    result = run_cli("export", str(large_vault), "--out", str(out), "--quiet")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: folder '{out.parent}' does not exist; create it first or choose another --out\n"
    )


def test_export_to_a_folder_is_one_error_line(run_cli, large_vault: Path, tmp_path: Path) -> None:
    result = run_cli("export", str(large_vault), "--format", "csv", "--out", str(tmp_path))

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: '{tmp_path}' is a folder; give a file name, such as '{tmp_path / 'deck'}'\n"
    )
