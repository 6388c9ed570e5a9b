"""Which findings stop a build: structural errors always, content findings only when strict."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.check.policy import blocking_findings, rule_class
from sysdrill.check.registry import RuleClass
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.errors import ContentInvalid
from sysdrill.storage.vault_db import build_vault

NOW = datetime(2026, 11, 25, 7, 0, tzinfo=UTC)
ITEM = "questions/cloud/cloud-0001.yaml"


def _finding(code: str, severity: Severity) -> Finding:
    return Finding(code, severity, ITEM, 3, 1, "message", "fix")


def test_only_structural_errors_block_unless_strict() -> None:
    schema = _finding("schema", Severity.ERROR)
    napkin = _finding("napkin-arithmetic", Severity.ERROR)
    title = _finding("title", Severity.ERROR)
    layout = _finding("vault-layout", Severity.WARNING)
    units = _finding("napkin-units", Severity.WARNING)
    note = _finding("unknown-field", Severity.INFO)
    findings = [schema, napkin, title, layout, units, note]
    assert blocking_findings(findings) == [schema]
    assert blocking_findings(findings, strict=True) == [schema, napkin, title, layout, units]


def test_a_code_no_rule_has_counts_as_structural() -> None:
    assert rule_class("from-a-newer-release") is RuleClass.STRUCTURAL
    assert blocking_findings([_finding("from-a-newer-release", Severity.ERROR)]) != []


def test_build_goes_on_past_content_errors(planted, tmp_path: Path) -> None:
    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    planted.edit("title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 12")
    assert {f.code for f in planted.check()} == {"napkin-arithmetic", "title"}
    report = build_vault(planted.root, tmp_path / "vault.db", now=NOW)
    assert report.items == 1


def test_build_refuses_a_broken_reference(planted, tmp_path: Path) -> None:
    planted.edit("topic: data-parallelism", "topic: no-such-topic")
    with pytest.raises(ContentInvalid, match=r"^the vault has 1 error finding\(s\), first "):
        build_vault(planted.root, tmp_path / "vault.db", now=NOW)
