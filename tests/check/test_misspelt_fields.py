"""A misspelt field is a warning naming the field meant, so no check is switched off in silence."""

from __future__ import annotations

import json

ITEM = "questions/cloud/cloud-0001.yaml"


def test_misspelt_napkin_math_is_a_warning_naming_the_field_meant(run_cli, planted) -> None:
    planted.edit("  napkin_math: |", "  napkin_maths: |")
    result = run_cli("check", str(planted.root))
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines() == [
        f"{ITEM}:21:3: WARNING field-misspelt unknown field 'details.napkin_maths': did you "
        "mean `details.napkin_math`? What it holds is neither shown nor checked "
        "(fix: rename 'details.napkin_maths' to `details.napkin_math`)",
        "Checked 1 file (1 valid item): 0 errors, 1 warning, 0 info.",
    ]
    assert run_cli("check", str(planted.root), "--strict").exit_code == 1


def test_a_misspelt_napkin_field_hides_its_wrong_arithmetic_but_not_the_warning(
    run_cli, planted
) -> None:
    planted.edit("2 * 2 GB = 4 GB", "2 * 2 GB = 5 GB")
    assert "napkin-arithmetic" in run_cli("check", str(planted.root)).stdout
    planted.edit("  napkin_math: |", "  napkin_maths: |")
    found = json.loads(run_cli("check", str(planted.root), "--json").stdout)["findings"]
    assert [f["code"] for f in found] == ["field-misspelt"]


def test_a_field_one_level_off_is_told_to_move(run_cli, planted) -> None:
    planted.edit("status: published", "napkin_math: 1 GB = 1 GB\nstatus: published")
    result = run_cli("check", str(planted.root), "--rule", "field-misspelt")
    assert result.stdout.splitlines()[0] == (
        f"{ITEM}:29:1: WARNING field-misspelt unknown field 'napkin_math': did you mean "
        "`details.napkin_math`? What it holds is neither shown nor checked "
        "(fix: move 'napkin_math' to `details.napkin_math`)"
    )


def test_case_hyphens_and_nested_models_are_covered(run_cli, planted) -> None:
    planted.edit(
        "status: published",
        "parts:\n  - label: a\n    text: How long?\n    anwser: 40 ms\n"
        "human_reviewed:\n  Status: verified\n"
        "status: published",
    )
    planted.edit("  common_mistake: |", "  Common-Mistake: |")
    found = json.loads(run_cli("check", str(planted.root), "--json").stdout)["findings"]
    assert [(f["code"], f["line"], f["message"].split("?")[0]) for f in found] == [
        (
            "field-misspelt",
            17,
            "unknown field 'details.Common-Mistake': did you mean `details.common_mistake`",
        ),
        ("field-misspelt", 32, "unknown field 'parts.0.anwser': did you mean `parts.0.answer`"),
        (
            "field-misspelt",
            34,
            "unknown field 'human_reviewed.Status': did you mean `human_reviewed.status`",
        ),
    ]


def test_a_field_far_from_every_known_one_stays_unknown_field_info(run_cli, planted) -> None:
    planted.edit("status: published", "reviewer_notes_url: https://example.org\nstatus: published")
    result = run_cli("check", str(planted.root), "--info")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == (
        f"{ITEM}:29:1: INFO unknown-field unknown field 'reviewer_notes_url' is kept but not "
        "used (fix: check the spelling, or leave it if a tool of yours reads it)"
    )


def test_an_author_may_silence_a_field_their_own_tool_reads(run_cli, planted) -> None:
    planted.edit(
        "status: published", "tag: x  # sysdrill: ignore[field-misspelt]\nstatus: published"
    )
    result = run_cli("check", str(planted.root), "--strict")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.splitlines() == [
        "Checked 1 file (1 valid item): 0 errors, 0 warnings, 0 info (1 suppressed)."
    ]


def test_a_vault_with_a_misspelt_field_still_builds(run_cli, planted, tmp_path) -> None:
    planted.edit("  napkin_math: |", "  napkin_maths: |")
    result = run_cli("build", str(planted.root), "--out", str(tmp_path / "v.db"))
    assert result.exit_code == 0, result.stderr
    assert "  1 warning field-misspelt" in result.stderr.splitlines()
