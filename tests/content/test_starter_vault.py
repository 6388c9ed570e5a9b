"""Counts and quality gates of the starter vault (issue 15), and zero findings on it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from sysdrill.check.runner import run_check
from sysdrill.content.enums import ItemKind, Level
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.models import Item
from sysdrill.napkin.filecheck import check_document
from sysdrill.napkin.results import Verdict

STARTER_VAULT = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"

MIN_ITEMS = 300
MIN_PER_LEVEL = 25
MIN_BY_KIND = {
    "scenario-napkin": 100,
    "multiple-choice": 50,
    "numeric": 40,
    "flashcard": 60,
    "exercise": 20,
}
MIN_CHAINS = 25
MIN_NAPKIN_CLAIMS = 3


@pytest.fixture(scope="module")
def vault() -> Vault:
    return load_vault(STARTER_VAULT)


@pytest.fixture(scope="module")
def items(vault: Vault) -> list[Item]:
    return list(vault.items)


def kind_of(item: Item) -> str:
    """The kind an item counts as towards the targets of issue 15."""
    if item.is_multiple_choice:
        return "multiple-choice"
    if item.kind is ItemKind.QUESTION and item.details.napkin_math:
        return "scenario-napkin"
    if item.kind is ItemKind.EXERCISE and item.parts and all(p.answer for p in item.parts):
        return "exercise"
    return item.kind.value


def test_strict_check_of_the_starter_vault_finds_nothing() -> None:
    report = run_check(STARTER_VAULT, workers=1)
    assert [f.render() for f in report.findings] == []
    assert report.suppressed == []
    assert report.items == report.files


def test_the_vault_has_enough_items_at_every_level(items: list[Item]) -> None:
    assert len(items) >= MIN_ITEMS
    by_level = Counter(item.level for item in items)
    short = {level.value: by_level[level] for level in Level if by_level[level] < MIN_PER_LEVEL}
    assert short == {}


def test_the_vault_has_enough_items_of_every_kind(items: list[Item]) -> None:
    by_kind = Counter(kind_of(item) for item in items)
    short = {kind: by_kind[kind] for kind, least in MIN_BY_KIND.items() if by_kind[kind] < least}
    assert short == {}


def test_numeric_items_carry_a_unit_and_a_tolerance(items: list[Item]) -> None:
    for item in items:
        if item.kind is ItemKind.NUMERIC:
            # A template computes its answer_value for each draw (test_starter_templates).
            assert item.answer_unit is not None, item.id
            assert (item.answer_value is not None) != item.is_template, item.id
            assert item.answer_tolerance is not None and 0 < item.answer_tolerance <= 0.1, item.id


def test_every_item_cites_a_source(items: list[Item]) -> None:
    uncited = [item.id for item in items if not item.details.resources]
    assert uncited == []


def test_napkin_tier_checks_every_claim_and_skips_none(items: list[Item]) -> None:
    not_ok: list[str] = []
    too_few: list[str] = []
    for item in items:
        if item.is_template:
            continue  # its text holds placeholders: test_starter_templates checks its draws
        path = STARTER_VAULT / "questions" / item.track.value / f"{item.id}.yaml"
        claims = check_document(path.read_text(encoding="utf-8"), source=str(path))
        not_ok += [
            f"{item.id}:{v.verdict.line} {v.verdict.verdict.value} {v.verdict.lhs}"
            for v in claims.verdicts
            if v.verdict.verdict is not Verdict.OK
        ]
        napkin_ok = [
            v
            for v in claims.verdicts
            if v.field == "details.napkin_math" and v.verdict.verdict is Verdict.OK
        ]
        if item.details.napkin_math and len(napkin_ok) < MIN_NAPKIN_CLAIMS:
            too_few.append(item.id)
    assert not_ok == []
    assert too_few == []


def test_chains_climb_from_junior_to_senior_levels(items: list[Item]) -> None:
    levels = {item.id: item.level for item in items}
    chains = yaml.safe_load((STARTER_VAULT / "chains.yaml").read_text(encoding="utf-8"))["chains"]
    assert len(chains) >= MIN_CHAINS
    for chain in chains:
        first, last = levels[chain["items"][0]], levels[chain["items"][-1]]
        assert first in (Level.L1, Level.L2), chain["id"]
        assert last in (Level.L5, Level.L6_PLUS), chain["id"]


def test_every_topic_sits_in_the_prerequisite_graph(items: list[Item]) -> None:
    taxonomy = yaml.safe_load((STARTER_VAULT / "taxonomy.yaml").read_text(encoding="utf-8"))
    prerequisites = {topic["id"]: topic["prerequisites"] for topic in taxonomy["topics"]}
    used = {item.topic for item in items}
    assert used <= set(prerequisites)
    required = {p for needs in prerequisites.values() for p in needs}
    isolated = {t for t in used if not prerequisites[t] and t not in required}
    assert isolated == set()
