"""The personal decks bench (bench/personal_decks_bench.py) runs and says what it measured."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_bench_times_each_path_and_the_plain_learner_studies_the_shared_vault() -> None:
    done = subprocess.run(
        [sys.executable, "bench/personal_decks_bench.py", "--items", "40", "--deck-items", "5"]
        + ["--requests", "5", "--imports", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "personal deck: 5 cards" in out
    for row in ("no decks", "decks, cached", "decks, merge", "import"):
        assert re.search(rf"^{row} +p50 +\d+ us +p99 +\d+ us", out, re.M), row
    assert "no decks studies the shared vault object: True" in out
