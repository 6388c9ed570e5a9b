"""``# sysdrill: ignore[CODE]`` comments silence one content finding where they stand."""

from __future__ import annotations

from sysdrill.check import all_rules
from sysdrill.check.suppress import ignored_codes, split_suppressed
from sysdrill.content.diagnostics import Finding, Severity

ITEM = "questions/cloud/cloud-0001.yaml"
TEXT = """\
title: A title  # sysdrill: ignore[title, zone-level]
details:
  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]
    **Calculations:**
    - Traffic = 2 * 2 GB = 5 GB.
      - nested = 1 + 1 = 3
  realistic_solution: |
    Time = 4 GB / (100 GB/s) = 4 ms.
  options:
  - 'Peak: 28 GB'  # sysdrill: ignore[mcq]
"""


def test_comment_silences_its_own_line_and_what_its_key_holds() -> None:
    lines = TEXT.splitlines()
    assert ignored_codes(lines, 1) == {"title", "zone-level"}
    assert ignored_codes(lines, 5) == {"napkin-arithmetic"}
    assert ignored_codes(lines, 6) == {"napkin-arithmetic"}
    assert ignored_codes(lines, 8) == set()
    assert ignored_codes(lines, 10) == {"mcq"}
    assert ignored_codes(lines, 0) == set()


def test_sibling_keys_and_whole_file_findings_are_not_silenced(tmp_path) -> None:
    (tmp_path / "questions/cloud").mkdir(parents=True)
    (tmp_path / ITEM).write_text(TEXT, "utf-8")

    def finding(code: str, line: int) -> Finding:
        return Finding(code, Severity.ERROR, ITEM, line, 5, "m", "f")

    wrong_math = finding("napkin-arithmetic", 5)
    wrong_solution = finding("napkin-arithmetic", 8)
    title = finding("title", 1)
    whole_file = finding("title", 0)
    kept, silenced = split_suppressed(
        tmp_path, [wrong_math, wrong_solution, title, whole_file], all_rules()
    )
    assert silenced == [wrong_math, title]
    assert kept == [wrong_solution, whole_file]


def test_structural_findings_cannot_be_silenced(tmp_path) -> None:
    (tmp_path / "questions/cloud").mkdir(parents=True)
    (tmp_path / ITEM).write_text(TEXT, "utf-8")
    mcq = Finding("mcq", Severity.ERROR, ITEM, 10, 3, "m", "f")
    assert split_suppressed(tmp_path, [mcq], all_rules()) == ([mcq], [])


def test_planted_comment_moves_the_finding_to_suppressed(planted) -> None:
    from sysdrill.check import run_check

    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    planted.edit("  napkin_math: |", "  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]")
    report = run_check(planted.root, workers=1)
    assert report.findings == []
    assert [(f.code, f.line) for f in report.suppressed] == [("napkin-arithmetic", 25)]
    assert report.exit_code() == 0
    assert report.to_dict()["suppressed"] == 1
