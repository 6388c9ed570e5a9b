"""``check`` reports for CI: GitHub workflow annotations and SARIF 2.1.0.

Paths in both are relative to a base folder (the CLI passes the working
directory, which in CI is the repository root), so GitHub places each
annotation and code-scanning alert on the right file even when the vault is a
subfolder of the repository.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sysdrill import __version__
from sysdrill.check.registry import Rule
from sysdrill.check.runner import CheckReport
from sysdrill.content.diagnostics import Finding, Severity

__all__ = ["SARIF_SCHEMA", "github_annotations", "sarif_document"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
"""The ``$schema`` a SARIF 2.1.0 log names."""

_GITHUB_COMMAND = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "notice",
}
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _path(report: CheckReport, finding: Finding, base: Path) -> str:
    full = os.path.abspath(report.root / finding.path)
    return Path(os.path.relpath(full, os.path.abspath(base))).as_posix()


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: CheckReport, base: Path) -> list[str]:
    """One workflow command per finding: ``::error file=F,line=L,col=C,title=CODE::message``.

    Info findings become ``::notice``; a whole-file finding (line 0) names no line.

    Args:
        report: What ``check`` found.
        base: The folder paths are made relative to (the repository root in CI).
    """
    lines = []
    for finding in report.findings:
        properties = [f"file={_escape_property(_path(report, finding, base))}"]
        if finding.line > 0:
            properties.append(f"line={finding.line}")
            if finding.column > 0:
                properties.append(f"col={finding.column}")
        properties.append(f"title={_escape_property(finding.code)}")
        message = f"{finding.message} (fix: {finding.fix})" if finding.fix else finding.message
        command = _GITHUB_COMMAND[finding.severity]
        lines.append(f"::{command} {','.join(properties)}::{_escape_data(message)}")
    return lines


def _sarif_rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.code,
        "shortDescription": {"text": rule.meaning},
        "help": {"text": rule.fix},
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
        "properties": {"scope": rule.scope.value, "class": rule.rule_class.value},
    }


def _sarif_result(
    report: CheckReport, finding: Finding, index: dict[str, int], base: Path
) -> dict[str, Any]:
    location: dict[str, Any] = {
        "artifactLocation": {"uri": quote(_path(report, finding, base), safe="/")}
    }
    if finding.line > 0:
        region = {"startLine": finding.line}
        if finding.column > 0:
            region["startColumn"] = finding.column
        location["region"] = region
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _SARIF_LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": location}],
    }
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.fix:
        result["properties"] = {"fix": finding.fix}
    return result


def sarif_document(report: CheckReport, rules: dict[str, Rule], base: Path) -> dict[str, Any]:
    """A SARIF 2.1.0 log of the report: every rule, every finding, silenced ones marked.

    Findings silenced by an ignore comment are results with an ``inSource``
    suppression, which code scanning shows as dismissed.

    Args:
        report: What ``check`` found.
        rules: The rule catalogue (``tool.driver.rules``).
        base: The folder artifact URIs are relative to (the repository root in CI).
    """
    ordered = sorted(rules.values(), key=lambda rule: rule.code)
    index = {rule.code: number for number, rule in enumerate(ordered)}
    results = [_sarif_result(report, finding, index, base) for finding in report.findings]
    for finding in report.suppressed:
        result = _sarif_result(report, finding, index, base)
        result["suppressions"] = [
            {"kind": "inSource", "justification": "# sysdrill: ignore comment"}
        ]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "sysdrill",
                        "version": __version__,
                        "rules": [_sarif_rule(rule) for rule in ordered],
                    }
                },
                "results": results,
            }
        ],
    }
