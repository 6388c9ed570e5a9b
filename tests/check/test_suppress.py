"""``# sysdrill: ignore[CODE]`` comments silence one content finding where they stand."""

from __future__ import annotations

from sysdrill.check import all_rules
from sysdrill.check.suppress import ignore_scopes, silenced_codes, split_suppressed
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
    scopes = ignore_scopes(TEXT)
    assert scopes == (
        (1, 1, ("title", "zone-level")),
        (3, 6, ("napkin-arithmetic",)),
        (10, 10, ("mcq",)),
    )
    assert silenced_codes(scopes, 1) == {"title", "zone-level"}
    assert silenced_codes(scopes, 5) == {"napkin-arithmetic"}
    assert silenced_codes(scopes, 6) == {"napkin-arithmetic"}
    assert silenced_codes(scopes, 8) == set()
    assert silenced_codes(scopes, 10) == {"mcq"}
    assert silenced_codes(scopes, 0) == set()


def test_a_file_without_the_marker_has_no_scopes() -> None:
    assert ignore_scopes("title: x  # ignore[title]\n") == ()


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


def test_ignore_comments_are_honoured_from_the_cache_too(planted, tmp_path) -> None:
    from sysdrill.check import run_check

    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    planted.edit("  napkin_math: |", "  napkin_math: |  # sysdrill: ignore[napkin-arithmetic]")
    cache = tmp_path / "cache"
    cold = run_check(planted.root, cache_dir=cache, workers=1)
    warm = run_check(planted.root, cache_dir=cache, workers=1)
    assert (warm.findings, warm.suppressed) == (cold.findings, cold.suppressed)
    assert [f.code for f in warm.suppressed] == ["napkin-arithmetic"]
