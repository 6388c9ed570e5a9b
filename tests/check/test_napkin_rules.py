"""The napkin tier of ``check``: findings for wrong arithmetic and units in item files."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import cast

import pytest

from sysdrill.check import napkin_rules
from sysdrill.check.napkin_rules import RULES, napkin_findings, rule_code
from sysdrill.content.diagnostics import Severity
from sysdrill.content.loader import load_item_file
from sysdrill.napkin.results import ClaimVerdict, Verdict

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "valid"
ITEM = "questions/cloud/cloud-0001.yaml"


def _vault(tmp_path: Path, old: str = "", new: str = "") -> tuple[Path, Path]:
    root = tmp_path / "vault"
    shutil.copytree(FIXTURE, root)
    path = root / ITEM
    if old:
        text = path.read_text("utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), "utf-8")
    return root, path


def _line_of(path: Path, needle: str) -> int:
    lines = path.read_text("utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_correct_item_has_no_napkin_findings(tmp_path: Path) -> None:
    root, path = _vault(tmp_path)
    loaded = load_item_file(path, root)
    assert loaded.item is not None
    assert napkin_findings(loaded) == []


def test_wrong_claim_in_napkin_math_is_an_arithmetic_error_on_its_line(tmp_path: Path) -> None:
    root, path = _vault(tmp_path, "2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    (finding,) = napkin_findings(load_item_file(path, root))
    assert finding.code == "napkin-arithmetic"
    assert finding.severity is Severity.ERROR
    assert finding.path == ITEM
    assert finding.line == _line_of(path, "2 * 2 GB = 5 GB")
    assert finding.message == (
        "details.napkin_math: expected 4 GB from 2 * 2 GB; the line says 5 GB"
    )
    assert finding.fix == "write: - Traffic per GPU = 2 * 2 GB = 4 GB."


def test_unit_mismatch_is_a_units_warning_not_an_error(tmp_path: Path) -> None:
    # Issue 27: a mismatch with no per-unit reading abstains (info), so this test
    # now uses one whose per-GPU-hour reading exists and does not hold.
    root, path = _vault(
        tmp_path, "= 0.04 s.", "= 0.04 s.\n    - Cost: 1,500 GPU-hours × $2.10 = $2,520."
    )
    (finding,) = napkin_findings(load_item_file(path, root))
    assert finding.code == "napkin-units"
    assert finding.severity is Severity.WARNING
    assert finding.line == _line_of(path, "1,500 GPU-hours")
    assert "read per GPU-hours" in finding.message


def test_a_unit_mismatch_with_no_reading_is_an_info_abstention(tmp_path: Path) -> None:
    root, path = _vault(tmp_path, "= 0.04 s.", "= 0.05 GB.")
    (finding,) = napkin_findings(load_item_file(path, root))
    assert (finding.code, finding.severity) == ("napkin-unsure", Severity.INFO)
    assert "the left side is in s but the right side is in B" in finding.message


def test_prefix_ambiguity_is_an_info_note(tmp_path: Path) -> None:
    root, path = _vault(
        tmp_path,
        "    - Time = 4 GB / (100 GB/s) = 0.04 s.",
        "    - Time = 4 GB / (100 GB/s) = 0.04 s.\n    - Check: 1 GB = 1024 MB.",
    )
    (finding,) = napkin_findings(load_item_file(path, root))
    assert finding.code == "napkin-prefix-ambiguous"
    assert finding.severity is Severity.INFO
    assert finding.line == _line_of(path, "1 GB = 1024 MB")


def test_claims_in_the_realistic_solution_are_checked_too(tmp_path: Path) -> None:
    root, path = _vault(tmp_path, "or about 40 ms at 100 GB/s.", "and 4 GB / (100 GB/s) = 4 ms.")
    (finding,) = napkin_findings(load_item_file(path, root))
    assert finding.code == "napkin-arithmetic"
    assert finding.line == _line_of(path, "= 4 ms.")
    assert finding.message.startswith("details.realistic_solution: ")


def test_only_certainly_wrong_arithmetic_is_an_error() -> None:
    known = {
        Verdict.OK: None,
        Verdict.WRONG: "napkin-arithmetic",
        Verdict.UNIT_MISMATCH: "napkin-units",
        Verdict.PREFIX_AMBIGUOUS: "napkin-prefix-ambiguous",
        Verdict.SKIPPED: None,
    }
    # Verdicts the engine adds later are doubts until this tier maps them.
    for verdict in Verdict:
        assert rule_code(verdict) == known.get(verdict, "napkin-unsure"), verdict
    errors = {code for code, (severity, _, _) in RULES.items() if severity is Severity.ERROR}
    assert errors == {"napkin-arithmetic"}


def test_a_verdict_the_tier_does_not_know_is_an_info_with_the_engines_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, path = _vault(tmp_path)
    unsure = ClaimVerdict(
        line=1,
        column=5,
        relation="=",
        lhs="7B x 2 B",
        rhs="14 GB",
        verdict=cast(Verdict, "ambiguous"),
        message="B may mean bytes or billions here",
    )
    monkeypatch.setattr(
        napkin_rules, "doubtful_claims", lambda text: [unsure] if "Traffic" in text else []
    )
    (finding,) = napkin_findings(load_item_file(path, root))
    # Silent when unsure (issue 27): a doubt is info, hidden by default.
    assert (finding.code, finding.severity) == ("napkin-unsure", Severity.INFO)
    assert finding.message == (
        "details.napkin_math: '7B x 2 B = 14 GB': B may mean bytes or billions here"
    )


def test_rules_catalogue_has_severity_meaning_and_fix() -> None:
    assert set(RULES) == {
        "napkin-arithmetic",
        "napkin-units",
        "napkin-prefix-ambiguous",
        "napkin-unsure",
    }
    assert RULES["napkin-arithmetic"][0] is Severity.ERROR
    assert RULES["napkin-units"][0] is Severity.WARNING
    assert RULES["napkin-prefix-ambiguous"][0] is Severity.INFO
    assert RULES["napkin-unsure"][0] is Severity.INFO
    for severity, meaning, fix in RULES.values():
        assert isinstance(severity, Severity)
        assert meaning
        assert fix


def test_a_claim_equating_decimal_and_binary_prefixes_is_a_warning(tmp_path: Path) -> None:
    root, path = _vault(
        tmp_path,
        "    - Time = 4 GB / (100 GB/s) = 0.04 s.",
        "    - Time = 4 GB / (100 GB/s) = 0.04 s.\n    - HBM: 16 GB = 16 GiB.",
    )
    (finding,) = napkin_findings(load_item_file(path, root))
    assert (finding.code, finding.severity) == ("napkin-prefix-ambiguous", Severity.WARNING)
