"""The real-style synthetic vault (bench/real_style_vault.py) behind the issue-11 speed bench.

Its items must look like real StaffML files (size, 10-20 napkin claims, some LaTeX)
and every claim must hold: the speed bench doubles as a false-alarm test only if
the checker has nothing true to report.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.check import run_check
from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.results import Verdict

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = tmp_path_factory.mktemp("real") / "vault"
    sys.path.insert(0, str(BENCH))  # the bench scripts import each other by name
    try:
        from synthetic_vault import generate_vault

        stats = generate_vault(root, 60, seed=3, style="real")
    finally:
        sys.path.remove(str(BENCH))
    return root, stats


def test_items_are_sized_and_loaded_like_real_staffml_questions(
    vault: tuple[Path, Any],
) -> None:
    root, stats = vault
    sizes = [path.stat().st_size for path in (root / "questions").rglob("*.yaml")]
    assert len(sizes) == 60
    assert 3400 <= sum(sizes) / len(sizes) <= 4000
    assert 10 * 60 < stats.claims <= 21 * 60
    assert stats.latex_lines > 0


def test_every_generated_claim_holds_so_check_reports_nothing(vault: tuple[Path, Any]) -> None:
    root, stats = vault
    verdicts = []
    for path in sorted((root / "questions").rglob("*.yaml")):
        details = yaml.safe_load(path.read_text("utf-8"))["details"]
        for field in ("napkin_math", "realistic_solution"):
            verdicts += check_claims(details[field])
    # "≈ 7.91 ms → memory-bound decode": an arrow into prose is no claim, and is skipped.
    judged = [v for v in verdicts if v.verdict is not Verdict.SKIPPED]
    assert len(judged) == stats.claims
    assert [v for v in judged if v.verdict is not Verdict.OK] == []
    assert {v.message for v in verdicts if v.verdict is Verdict.SKIPPED} <= {
        "the right side is a name"
    }
    report = run_check(root, workers=1)
    assert report.findings == []
