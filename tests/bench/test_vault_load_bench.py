"""bench/vault_load_bench.py times a vault's load with the collector running and paused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "vault_load_bench.py"


def test_each_round_loads_with_the_collector_running_then_paused(tmp_path: Path) -> None:
    command = [sys.executable, str(SCRIPT), "--items", "40", "--rounds", "1"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    lines = done.stdout.splitlines()
    assert [line.split()[3] for line in lines] == ["running", "paused"]
    assert all("wall" in line and "collections" in line for line in lines)
    # Paused, at most the one collection that runs as the pause ends.
    assert int(lines[1].split("collections ")[1].split()[0]) <= 1
