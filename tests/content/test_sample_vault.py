from __future__ import annotations

import re
from collections import Counter

import pytest

from sysdrill.content.diagnostics import Severity
from sysdrill.content.enums import ItemKind, Level
from sysdrill.content.loader import Vault, load_vault
from sysdrill.content.sample import sample_vault_path


@pytest.fixture(scope="module")
def vault() -> Vault:
    return load_vault(sample_vault_path())


def test_sample_vault_loads_without_error_findings(vault: Vault) -> None:
    errors = [f.render() for f in vault.all_findings() if f.severity is Severity.ERROR]
    assert errors == []
    assert len(vault.items) == len(vault.files)


def test_sample_vault_has_ten_to_twelve_items(vault: Vault) -> None:
    assert 10 <= len(vault.items) <= 12


def test_sample_vault_spans_every_level(vault: Vault) -> None:
    levels = {item.level for item in vault.items}
    assert levels == set(Level)


def test_sample_vault_has_every_kind_of_item(vault: Vault) -> None:
    kinds = Counter(item.kind for item in vault.items)
    assert set(kinds) == set(ItemKind)
    assert any(item.is_multiple_choice for item in vault.items)


def test_sample_vault_spans_several_tracks(vault: Vault) -> None:
    assert len({item.track for item in vault.items}) >= 4


def test_multiple_choice_item_has_four_options_and_valid_index(vault: Vault) -> None:
    mcqs = [item for item in vault.items if item.is_multiple_choice]
    for item in mcqs:
        options = item.details.options or []
        assert len(options) == 4 and len(set(options)) == 4
        assert item.details.correct_index is not None
        assert 0 <= item.details.correct_index < 4


def test_numeric_item_declares_value_unit_and_tolerance(vault: Vault) -> None:
    numeric = [item for item in vault.items if item.kind is ItemKind.NUMERIC]
    assert numeric
    for item in numeric:
        assert item.answer_value is not None and item.answer_unit
        assert item.answer_tolerance is not None and 0 < item.answer_tolerance < 1


def test_scenario_items_carry_markers_in_order(vault: Vault) -> None:
    for item in vault.items:
        if item.kind in (ItemKind.FLASHCARD, ItemKind.QUIZ):
            continue
        mistake = item.details.common_mistake or ""
        positions = [
            mistake.find(marker)
            for marker in ("**The Pitfall:**", "**The Rationale:**", "**The Consequence:**")
        ]
        assert -1 not in positions and positions == sorted(positions), item.id
        napkin = item.details.napkin_math or ""
        assumptions = re.search(r"\*\*Assumptions", napkin)
        calculations = napkin.find("**Calculations:**")
        conclusion = re.search(r"\*\*Conclusion", napkin)
        assert assumptions and conclusion, item.id
        assert assumptions.start() < calculations < conclusion.start(), item.id


def test_chains_never_step_down_in_level(vault: Vault) -> None:
    levels = {item.id: item.level for item in vault.items}
    assert len(vault.chains) >= 2
    for chain in vault.chains:
        ranks = [levels[item_id].rank for item_id in chain.items]  # type: ignore[union-attr]
        assert ranks == sorted(ranks), chain.id


def test_taxonomy_covers_every_topic_with_known_prerequisites(vault: Vault) -> None:
    assert vault.taxonomy is not None
    topic_ids = {topic.id for topic in vault.taxonomy.topics}
    assert {item.topic for item in vault.items} <= topic_ids
    for topic in vault.taxonomy.topics:
        assert topic.area is not None and topic.description
        assert set(topic.prerequisites) <= topic_ids


def test_decks_reference_existing_items(vault: Vault) -> None:
    ids = {item.id for item in vault.items}
    assert vault.decks
    for deck in vault.decks:
        assert set(deck.items) <= ids
    named = {item.deck for item in vault.items if item.deck}
    assert named <= {deck.name for deck in vault.decks}


def test_sample_vault_text_is_not_copied_from_the_seeds(vault: Vault, seeds_dir) -> None:
    seed_text = " ".join(path.read_text("utf-8") for path in seeds_dir.glob("*.txt"))
    seed_sentences = {s.strip() for s in re.split(r"[.\n]", seed_text) if len(s.strip()) > 40}
    for item in vault.items:
        texts = [item.scenario, item.question, item.details.realistic_solution]
        for text in filter(None, texts):
            for sentence in re.split(r"[.\n]", text):
                assert sentence.strip() not in seed_sentences, item.id


def test_sample_vault_passes_the_full_check_without_any_finding() -> None:
    from sysdrill.check import run_check

    report = run_check(sample_vault_path())
    assert [f.render() for f in report.findings] == []
    assert report.items == report.files == 12


def test_every_napkin_claim_of_the_sample_vault_holds(vault: Vault) -> None:
    from sysdrill.napkin import check_claims

    checked = 0
    for item in vault.items:
        for claim in check_claims(item.details.napkin_math or ""):
            assert claim.verdict.value == "ok", (item.id, claim.lhs, claim.rhs, claim.message)
            checked += 1
    assert checked >= 40
