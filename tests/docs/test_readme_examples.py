"""Every self-contained `sysdrill` example in the README runs and exits 0.

Examples that name the reader's own files (VAULT, my-vault, notes.md, deck.apkg...)
or need extras are left out; the commands behind them have their own tests.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
_PLACEHOLDERS = re.compile(
    r"VAULT|my-vault|path/to|\.(?:md|txt|json|apkg|csv)\b|\bpip\b|optimize|\|\s|>|--from"
    # The deadline examples depend on today's date; their commands are tested with `now`.
    r"|deadline|workload"
)


def _examples() -> list[str]:
    text = README.read_text("utf-8")
    found = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("sysdrill ") and not _PLACEHOLDERS.search(command):
                found.append(command)
    return found


def test_readme_has_runnable_examples():
    assert len(_examples()) >= 20


@pytest.mark.parametrize("command", _examples())
def test_readme_example_runs(command, run_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    # Examples such as `sysdrill build` write into the current folder.
    monkeypatch.chdir(tmp_path)
    args = shlex.split(command)[1:]
    # Scripted sessions read answers from stdin; an empty stdin ends them at once.
    result = run_cli(*args, input="")
    assert result.exit_code == 0, f"{command}\n{result.stdout}\n{result.stderr}"
