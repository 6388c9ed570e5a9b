"""`check` validates plans.yaml: its shape, and the decks and topics its plans name."""

from __future__ import annotations

from pathlib import Path


def _write_plans(vault: Path, text: str) -> None:
    (vault / "plans.yaml").write_text(text, encoding="utf-8")


def test_unknown_deck_and_topic_are_reported_on_their_lines(
    run_cli, sample_vault_copy: Path
) -> None:
    _write_plans(
        sample_vault_copy,
        "plans:\n"
        "- name: week\n"
        "  title: A week\n"
        "  days: 7\n"
        "  new_per_day: 2\n"
        "  decks: [sample-chapter-quiz, no-such-deck]\n"
        "  topics: [zero-sharding, no-such-topic]\n",
    )
    result = run_cli("check", str(sample_vault_copy), "--rule", "plan-ref-exists")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "plans.yaml:6:32: ERROR plan-ref-exists plan 'week' names unknown deck 'no-such-deck' "
    )
    assert lines[1].startswith(
        "plans.yaml:7:27: ERROR plan-ref-exists plan 'week' names unknown topic 'no-such-topic' "
    )
    assert len(lines) == 3


def test_a_malformed_plans_file_is_one_finding_naming_every_problem(
    run_cli, sample_vault_copy: Path
) -> None:
    _write_plans(sample_vault_copy, "plans:\n- name: week\n  days: -1\n")
    result = run_cli("check", str(sample_vault_copy), "--rule", "plan-schema")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "plans.yaml:1:1: ERROR plan-schema plans[0].title must be a non-empty string; "
        "plans[0].days must be a whole number of 1 or more; "
        "plans[0].new_per_day must be a whole number of 1 or more. "
        "(fix: fix the fields the message names (see docs/content.md, Study plans))"
    )


def test_a_vault_without_plans_and_the_starter_plans_are_clean(
    run_cli, sample_vault_copy: Path
) -> None:
    assert run_cli("check", str(sample_vault_copy), "--rule", "plan-schema").exit_code == 0
    assert run_cli("check", "--rule", "plan-ref-exists", "--rule", "plan-schema").exit_code == 0
