"""Which findings stop a build: structural errors always, content findings only when strict."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sysdrill.app.build import build_vault
from sysdrill.check.policy import blocking_findings, rule_class
from sysdrill.check.registry import RuleClass
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.errors import ContentInvalid

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
    planted.edit("      - cloud-0001", "      - cloud-0099", rel="chains.yaml")
    with pytest.raises(ContentInvalid, match=r"^the vault has 1 error finding\(s\), first "):
        build_vault(planted.root, tmp_path / "vault.db", now=NOW)


def test_build_refuses_duplicate_ids(planted, tmp_path: Path) -> None:
    planted.write("questions/cloud/cloud-0002.yaml", planted.base_text)
    with pytest.raises(ContentInvalid, match="ERROR id-unique"):
        build_vault(planted.root, tmp_path / "vault.db", now=NOW)


def test_build_goes_on_past_a_topic_missing_from_the_taxonomy_and_counts_it(
    planted, tmp_path: Path
) -> None:
    planted.edit("topic: data-parallelism", "topic: no-such-topic")
    report = build_vault(planted.root, tmp_path / "vault.db", now=NOW)
    assert report.items == 1
    assert [(r.code, r.severity, r.total) for r in report.reported] == [
        ("topic-in-taxonomy", Severity.ERROR, 1)
    ]


def test_build_command_reports_what_did_not_block_on_stderr(run_cli, planted, tmp_path) -> None:
    planted.edit("topic: data-parallelism", "topic: no-such-topic")
    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    planted.edit("phase: training", "phase: training\nTags: [ring]")
    result = run_cli("build", str(planted.root), "--out", str(tmp_path / "a.db"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"Built {tmp_path / 'a.db'}: 1 items")
    assert result.stderr.splitlines() == [
        "Reported, not blocking: 2 errors, 1 warning, 0 info; "
        f"`sysdrill check {planted.root}` lists each one:",
        "  1 error napkin-arithmetic",
        "  1 error topic-in-taxonomy",
        "  1 warning field-misspelt",
    ]
    as_json = run_cli("build", str(planted.root), "--out", str(tmp_path / "b.db"), "--json")
    assert json.loads(as_json.stdout)["reported"] == [
        {"code": "napkin-arithmetic", "severity": "error", "count": 1},
        {"code": "topic-in-taxonomy", "severity": "error", "count": 1},
        {"code": "field-misspelt", "severity": "warning", "count": 1},
    ]
    assert as_json.stderr == ""


def test_a_clean_build_reports_nothing_and_an_up_to_date_one_audits_nothing(
    run_cli, planted, tmp_path
) -> None:
    out = str(tmp_path / "a.db")
    first = run_cli("build", str(planted.root), "--out", out)
    assert (first.exit_code, first.stderr) == (0, "")
    planted.edit("topic: data-parallelism", "topic: no-such-topic")
    assert "topic-in-taxonomy" in run_cli("build", str(planted.root), "--out", out).stderr
    again = run_cli("build", str(planted.root), "--out", out)
    assert again.stdout.startswith(f"{out} is up to date")
    assert again.stderr == ""


def test_strict_build_refuses_content_errors_even_when_up_to_date(planted, tmp_path: Path) -> None:
    planted.edit("title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 12")
    out = tmp_path / "vault.db"
    build_vault(planted.root, out, now=NOW)
    with pytest.raises(ContentInvalid) as caught:
        build_vault(planted.root, out, now=NOW, strict=True)
    assert str(caught.value).startswith(
        f"the vault has 1 error finding(s), first {ITEM}:10:1: ERROR title "
    )


def test_strict_build_in_the_background_refuses_content_errors(
    planted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.app import build as app_build

    monkeypatch.setattr(app_build, "PARALLEL_CHECK_MIN_FILES", 1)
    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    assert build_vault(planted.root, tmp_path / "lenient.db", now=NOW).items == 1
    with pytest.raises(ContentInvalid, match="ERROR napkin-arithmetic"):
        build_vault(planted.root, tmp_path / "strict.db", now=NOW, strict=True)
    assert not (tmp_path / "strict.db").exists()


def test_build_command_strict_flag_refuses_content_errors(run_cli, planted, tmp_path) -> None:
    planted.edit("title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Question 12")
    lenient = run_cli("build", str(planted.root), "--out", str(tmp_path / "a.db"))
    assert lenient.exit_code == 0, lenient.stderr
    strict = run_cli("build", str(planted.root), "--out", str(tmp_path / "b.db"), "--strict")
    assert strict.exit_code == 1
    assert strict.stderr.startswith("Error: the vault has 1 error finding(s), first ")


def test_show_search_and_stats_read_a_vault_with_content_errors(run_cli, planted) -> None:
    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    vault = str(planted.root)
    shown = run_cli("show", "cloud-0001", "--vault", vault)
    assert shown.exit_code == 0, shown.stderr
    assert "2 * 2 GB = 5 GB" in shown.stdout
    found = run_cli("search", "all-reduce", "--vault", vault, "--json")
    assert [hit["id"] for hit in json.loads(found.stdout)] == ["cloud-0001"]
    stats = run_cli("stats", "--vault", vault, "--json")
    assert json.loads(stats.stdout)["total"] == 1


def test_a_build_audited_in_the_background_reports_the_same_counts(
    planted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.app import build as app_build

    planted.edit("topic: data-parallelism", "topic: no-such-topic")
    inline = build_vault(planted.root, tmp_path / "inline.db", now=NOW).reported
    monkeypatch.setattr(app_build, "PARALLEL_CHECK_MIN_FILES", 1)
    background = build_vault(planted.root, tmp_path / "background.db", now=NOW).reported
    assert background == inline != ()


def test_an_audit_outcome_survives_its_json_line_and_refuses_junk() -> None:
    from sysdrill.app.vault_audit import AuditOutcome, ReportedFindings

    outcome = AuditOutcome(1, "x", (ReportedFindings("title", Severity.ERROR, 2),))
    assert AuditOutcome.from_json(outcome.to_json()) == outcome
    for junk in ("", "[1, 2]", '[1, "x", [["title", "fatal", 2]]]', "null"):
        with pytest.raises(ValueError):
            AuditOutcome.from_json(junk)
