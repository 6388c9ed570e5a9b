"""Copies of the real StaffML set for the speed bench (bench/real_copies.py, issue 27).

The real files are third-party text in ``../shared/realdata``: these tests copy them
into a temporary folder, and skip with the reason when the folder is absent. The
bench's ``--real`` mode is run end to end on a small count.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from sysdrill.check import run_check

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
try:
    from real_copies import copy_real_vault, real_vault_dir
finally:
    sys.path.remove(str(BENCH))


def _real_vault() -> Path:
    source = real_vault_dir()
    if not (source / "questions").is_dir():
        pytest.skip(f"no real data at {source} (../shared/realdata/staffml); set SYSDRILL_REALDATA")
    return source


def _sources(source: Path) -> list[Path]:
    return sorted((source / "questions").rglob("*.yaml"))


def test_copies_get_new_ids_matching_their_file_names_and_keep_every_other_byte(
    tmp_path: Path,
) -> None:
    source = _real_vault()
    originals = _sources(source)
    count = len(originals) + 5
    stats = copy_real_vault(tmp_path / "vault", count, source=source)
    copies = sorted((tmp_path / "vault" / "questions").rglob("*.yaml"))
    assert (stats.files, stats.sources, stats.rounds) == (count, len(originals), 2)
    assert len(copies) == count
    ids = []
    for path in copies:
        id_lines = [line for line in path.read_text("utf-8").splitlines() if line[:3] == "id:"]
        assert len(id_lines) == 1
        ids.append(id_lines[0][3:].strip().strip("'\""))
        assert ids[-1] == path.stem
    assert len(set(ids)) == count
    first = originals[0]
    copy = tmp_path / "vault" / "questions" / first.relative_to(source / "questions").parent
    second = (copy / f"{first.stem}-c01.yaml").read_bytes()
    assert second.replace(f"{first.stem}-c01".encode(), first.stem.encode()) == first.read_bytes()
    assert (tmp_path / "vault" / "schema").is_dir() == (source / "schema").is_dir()


def test_check_finds_the_same_problems_in_a_copy_as_in_its_original(tmp_path: Path) -> None:
    source = _real_vault()
    count = len(_sources(source)) * 2
    copy_real_vault(tmp_path / "vault", count, source=source)
    report = run_check(tmp_path / "vault", workers=1)
    originals = Counter((f.path, f.line, f.code) for f in report.findings if "-c01" not in f.path)
    copies = Counter(
        (f.path.replace("-c01.yaml", ".yaml"), f.line, f.code)
        for f in report.findings
        if "-c01" in f.path
    )
    # Each finding of an original comes back, at the same line, in its copy; only
    # the rules about ids across files could tell the two apart, and they find nothing.
    assert copies == originals
    assert sum(originals.values()) > 0
    assert not [f for f in report.findings if f.code.startswith("id-")]


def test_real_mode_prints_every_stage_and_a_verdict_on_each_target(tmp_path: Path) -> None:
    _real_vault()
    command = [sys.executable, str(BENCH / "vault_bench.py"), "--real", "--count", "450"]
    command += ["--repeat", "1", "--vault", str(tmp_path / "vault")]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    out = done.stdout
    assert "Vault of 450 items" in out
    for stage in (
        "cold check",
        "libyaml C loader alone (same files)",
        "warm check",
        "cold `sysdrill check` (process)",
        "warm `sysdrill check` (process)",
        "distinct files: cold check, one process",
    ):
        assert f"\n{stage} " in out, stage
    verdicts = [line for line in out.splitlines() if "the target" in line]
    assert len(verdicts) == 3, verdicts
    assert all(" meets " in line or " MISSES " in line for line in verdicts)
