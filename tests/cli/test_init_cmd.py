"""``sysdrill init``: a new vault that checks clean and can be practised at once."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path


def test_init_creates_a_vault_that_checks_clean_and_practises(run_cli, tmp_path):
    vault = tmp_path / "my-vault"
    created = run_cli("init", str(vault))
    assert created.exit_code == 0, created.stderr
    assert created.stdout.startswith(f"Created a vault in {vault}: 2 items")
    checked = run_cli("check", str(vault))
    assert checked.exit_code == 0, checked.stdout
    assert "0 errors, 0 warnings" in checked.stdout
    quiz = run_cli("quiz", "my-first-deck", "--vault", str(vault), input="- \ngood\nabout 14 GB\n")
    assert quiz.exit_code == 0, quiz.stderr
    assert "Score: 2/2 passed" in quiz.stdout
    walked = run_cli("chain", "my-first-chain", "--vault", str(vault), input="quit\n")
    assert walked.exit_code == 0, walked.stderr


def test_init_never_overwrites_a_vault(run_cli, tmp_path):
    vault = tmp_path / "v"
    assert run_cli("init", str(vault)).exit_code == 0
    again = run_cli("init", str(vault))
    assert again.exit_code == 1
    assert again.stderr == (
        f"Error: {vault / 'questions' / 'cloud-my-0001.yaml'} already exists; init never "
        "overwrites a vault. Pick a new folder, e.g. `sysdrill init my-vault`.\n"
    )


def test_shell_completion_script_is_printed_for_bash():
    # Typer names the program from the process, so the installed command is run; it
    # finds the shell among its parent processes, so bash runs it (a test run started
    # in the background may have no shell above it).
    command = Path(sys.executable).parent / "sysdrill"
    result = subprocess.run(
        # (two commands, so bash stays their parent instead of exec-ing the one).
        ["bash", "-c", f"{shlex.quote(str(command))} --show-completion; exit $?"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "_sysdrill_completion()" in result.stdout
