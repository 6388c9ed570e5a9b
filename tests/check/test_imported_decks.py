"""``check`` on decks imported from flashcard apps (issue 31, item 7).

A deck may say its numbers are not napkin math (``skip_napkin_check``), and text
holding LaTeX environments never makes a rule crash.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.check.context import FileContext
from sysdrill.check.runner import ITEM_CHECKS
from sysdrill.content.loader import load_item_file

BOND_CLAIM = "C-C bond: 96 - 12 = 348 kJ/mol"
"""Chemistry written the way a bond table writes it, which napkin math reads as a claim."""

VALID_ITEM = "questions/cloud/cloud-0001.yaml"


def _plant_bond_claim(planted) -> None:
    planted.edit("- About 40 ms per all-reduce.", f"- {BOND_CLAIM}")


def _skip_napkin_in_collectives(planted) -> None:
    planted.edit(
        "- name: collectives\n", "- name: collectives\n    skip_napkin_check: true\n", "decks.yaml"
    )


def _napkin_codes(planted) -> list[str]:
    return [f.code for f in planted.check() if f.code.startswith("napkin-")]


def test_a_deck_that_skips_the_napkin_check_gets_no_napkin_findings(planted) -> None:
    _plant_bond_claim(planted)
    assert _napkin_codes(planted) == ["napkin-arithmetic"]

    _skip_napkin_in_collectives(planted)

    assert _napkin_codes(planted) == []


def test_the_setting_covers_items_naming_the_deck_in_their_own_deck_field(planted) -> None:
    _plant_bond_claim(planted)
    planted.write("decks.yaml", "decks:\n  - name: chemistry\n    skip_napkin_check: true\n")
    planted.edit("provenance: human\n", "provenance: human\ndeck: chemistry\n")

    assert _napkin_codes(planted) == []


def test_other_rules_still_judge_an_item_of_a_deck_that_skips_the_napkin_check(planted) -> None:
    _plant_bond_claim(planted)
    _skip_napkin_in_collectives(planted)
    planted.edit("or about 40 ms", "or <script>alert(1)</script> about 40 ms")

    assert [f.code for f in planted.check() if f.severity.value == "error"] == ["unsafe-markup"]


def test_turning_the_setting_off_brings_the_findings_back_from_the_cache(
    planted, run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plant_bond_claim(planted)
    _skip_napkin_in_collectives(planted)
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    quiet = run_cli("check", str(planted.root))
    planted.edit("skip_napkin_check: true", "skip_napkin_check: false", "decks.yaml")

    loud = run_cli("check", str(planted.root))

    assert quiet.exit_code == 0, quiet.stdout
    assert "napkin-arithmetic" not in quiet.stdout
    assert loud.exit_code == 1
    assert "napkin-arithmetic" in loud.stdout


LATEX_ENVIRONMENTS = [
    r"$$\begin{array}{cc} 1 & 2 \\ 3 & 4 \end{array}$$",
    "<anki-mathjax>\\begin{array}{cc} 96 - 12 & 2\n3 & 4 \\end{array}</anki-mathjax>",
    "\\(\\begin{matrix} 96 - 12 = 84 \\\\\n 2 \\end{matrix}\\)",
    "\\[\\begin{aligned} x &= 2 * 3 \\\\\n y &= 6 \\end{aligned}\\]",
    "$\\begin{cases} 1 & x > 0\n0 & \\text{else} \\end{cases}$",
    r"\begin{tabular}{|l|r|} GPU & 80 GB \\ \hline \end{tabular}",
    "\\begin{pmatrix} 1 \\\\ 2",
]


def _latex_item(planted, latex: str) -> Path:
    """The valid item with ``latex`` in every text field a rule reads."""
    indented = latex.replace("\n", "\n    ")
    text = planted.base_text
    for line in (
        "- About 40 ms per all-reduce.",
        "- Time = 4 GB / (100 GB/s) = 0.04 s.",
        "so 2 GB of gradients means about 4 GB of traffic per GPU, or about 40 ms at 100 GB/s.",
        "**The Consequence:** The estimate comes out at half the real time.",
    ):
        assert line in text
        text = text.replace(line, f"{line}\n    {indented}")
    text = text.replace(
        "question: About how long does one ring all-reduce of the gradients take?",
        "question: |\n  About how long does one ring all-reduce take?\n  "
        + latex.replace("\n", "\n  "),
    )
    return planted.write(VALID_ITEM, text)


@pytest.mark.parametrize("latex", LATEX_ENVIRONMENTS)
def test_no_rule_crashes_on_a_latex_environment(
    planted, latex: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _latex_item(planted, latex)
    # With SYSDRILL_DEBUG a crashing tier raises instead of becoming a finding.
    monkeypatch.setenv("SYSDRILL_DEBUG", "1")

    findings = planted.check()

    assert [f for f in findings if f.code == "rule-crashed"] == []


@pytest.mark.parametrize("rule", ITEM_CHECKS, ids=lambda rule: rule.__name__)
def test_each_item_rule_reads_latex_environments_without_crashing(planted, rule) -> None:
    path = _latex_item(planted, "\n".join(LATEX_ENVIRONMENTS))
    loaded = load_item_file(path, planted.root)
    assert loaded.item is not None
    context = FileContext(loaded, loaded.item)

    rule(context)

    assert all(f.code != "rule-crashed" for f in context.findings)


def test_the_napkin_tier_reads_latex_environments_without_crashing(planted) -> None:
    from sysdrill.check.napkin_rules import napkin_findings

    path = _latex_item(planted, "\n".join(LATEX_ENVIRONMENTS))
    loaded = load_item_file(path, planted.root)

    found = napkin_findings(loaded)

    # The item's own claims are right; the LaTeX adds no error.
    assert [f for f in found if f.severity.value == "error"] == []
