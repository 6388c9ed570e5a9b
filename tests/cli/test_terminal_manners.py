"""The terminal as a user meets it: words in --help, one error line, quiet pipes."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
import typer

from sysdrill.cli.app import build_app, main
from sysdrill.cli.help_words import word_for

PYTHON_TYPE = re.compile(r"<(bool|str|int|float|path|Path|datetime|list\[)[^>]*>")


def _command_paths() -> list[list[str]]:
    """Every command and subcommand of the app, as the words a user types."""
    paths: list[list[str]] = [[]]
    root = typer.main.get_command(build_app())

    def walk(command: object, prefix: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(root, [])
    # Calculators are built on demand: one stands for all of them.
    paths.append(["calc", "ring-allreduce"])
    return paths


@pytest.mark.parametrize("words", _command_paths(), ids=lambda words: " ".join(words) or "root")
def test_help_labels_values_with_words_not_python_types(run_cli, words: list[str]) -> None:
    result = run_cli(*words, "--help")
    assert result.exit_code == 0, result.stderr
    assert not PYTHON_TYPE.search(result.stdout), PYTHON_TYPE.search(result.stdout)


def test_help_words_for_typer_labels() -> None:
    assert word_for("<bool>") == ""
    assert word_for("<list[Path]>") == "PATH..."
    assert word_for("<int>") == "INTEGER"
    assert word_for("<text|json>") == "[text|json]"
    assert word_for("<str>") == "TEXT"


def test_init_under_a_file_is_one_error_line_not_a_traceback(run_cli, tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n", "utf-8")
    result = run_cli("init", str(blocker / "vault"))
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ") and "notes.txt" in lines[0]
    assert "Traceback" not in result.stderr
    assert not (blocker / "vault").exists()


class _ClosedPipe(io.StringIO):
    """Standard output whose reader has gone away (``sysdrill stats | head``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_stops_reading_ends_the_command_with_0(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["stats"]) == 0
