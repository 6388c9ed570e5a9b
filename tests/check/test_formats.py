"""GitHub annotations and SARIF 2.1.0 built from a check report."""

from __future__ import annotations

import json
from pathlib import Path

from sysdrill.check import all_rules
from sysdrill.check.formats import SARIF_SCHEMA, github_annotations, sarif_document
from sysdrill.check.runner import CheckReport
from sysdrill.content.diagnostics import Finding, Severity

ITEM = "questions/cloud/cloud-0001.yaml"


def _report(tmp_path: Path) -> CheckReport:
    return CheckReport(
        root=tmp_path / "repo" / "vault",
        findings=[
            Finding("title", Severity.ERROR, ITEM, 10, 1, "title: 'a, b: 100%'\nagain", "fix it"),
            Finding("file-too-large", Severity.ERROR, "questions/big file.yaml", 0, 0, "big", ""),
            Finding("unknown-field", Severity.INFO, ITEM, 3, 0, "extra", ""),
        ],
        suppressed=[Finding("napkin-arithmetic", Severity.ERROR, ITEM, 25, 7, "5 GB", "4 GB")],
        files=2,
        items=1,
    )


def test_github_annotations_escape_and_place_each_finding(tmp_path: Path) -> None:
    lines = github_annotations(_report(tmp_path), tmp_path / "repo")
    assert lines == [
        "::error file=vault/questions/cloud/cloud-0001.yaml,line=10,col=1,title=title::"
        "title: 'a, b: 100%25'%0Aagain (fix: fix it)",
        "::error file=vault/questions/big file.yaml,title=file-too-large::big",
        "::notice file=vault/questions/cloud/cloud-0001.yaml,line=3,title=unknown-field::extra",
    ]


def test_github_property_values_escape_commas_and_colons(tmp_path: Path) -> None:
    report = CheckReport(
        root=tmp_path,
        findings=[Finding("title", Severity.WARNING, "questions/a,b:c.yaml", 1, 1, "m", "")],
    )
    assert github_annotations(report, tmp_path) == [
        "::warning file=questions/a%2Cb%3Ac.yaml,line=1,col=1,title=title::m"
    ]


def test_sarif_log_has_the_2_1_0_shape_rules_and_results(tmp_path: Path) -> None:
    rules = all_rules()
    document = json.loads(json.dumps(sarif_document(_report(tmp_path), rules, tmp_path / "repo")))
    assert (document["$schema"], document["version"]) == (SARIF_SCHEMA, "2.1.0")
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "sysdrill"
    assert [rule["id"] for rule in driver["rules"]] == sorted(rules)
    for rule in driver["rules"]:
        assert set(rule) == {"id", "shortDescription", "help", "defaultConfiguration", "properties"}
        assert rule["defaultConfiguration"]["level"] in {"error", "warning", "note"}
        assert rule["properties"]["class"] in {"structural", "content"}
    title, big, extra, silenced = run["results"]
    assert title == {
        "ruleId": "title",
        "ruleIndex": sorted(rules).index("title"),
        "level": "error",
        "message": {"text": "title: 'a, b: 100%'\nagain"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": "vault/questions/cloud/cloud-0001.yaml"},
                    "region": {"startLine": 10, "startColumn": 1},
                }
            }
        ],
        "properties": {"fix": "fix it"},
    }
    assert big["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "vault/questions/big%20file.yaml"}}}
    ]
    assert extra["level"] == "note"
    assert extra["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}
    assert silenced["ruleId"] == "napkin-arithmetic"
    assert silenced["suppressions"] == [
        {"kind": "inSource", "justification": "# sysdrill: ignore comment"}
    ]
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
