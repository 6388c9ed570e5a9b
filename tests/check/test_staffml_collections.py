"""Vault rules over StaffML's chains.json and taxonomy_data.yaml report file:line findings."""

from __future__ import annotations

from pathlib import Path

import pytest

from sysdrill.check import run_check


@pytest.fixture
def vault(staffml_vault_copy: Path) -> Path:
    return staffml_vault_copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _found(root: Path) -> list[tuple[str, str, int]]:
    return [(f.code, f.path, f.line) for f in run_check(root, workers=1).findings]


def test_staffml_vault_checks_clean_with_no_unknown_field(vault: Path) -> None:
    assert _found(vault) == []


def test_chain_naming_a_missing_question_points_at_its_id_line(vault: Path) -> None:
    _edit(vault / "chains.json", '"id": "edge-0302"', '"id": "edge-0399"')
    assert _found(vault) == [("chain-ref-exists", "chains.json", 54)]


def test_chain_stepping_down_a_level_is_reported_at_the_member(vault: Path) -> None:
    # Swap the chain's last two members: L4 then L2.
    path = vault / "chains.json"
    _edit(path, '"id": "cloud-0202"', '"id": "PLACEHOLDER"')
    _edit(path, '"id": "cloud-0203"', '"id": "cloud-0202"')
    _edit(path, '"id": "PLACEHOLDER"', '"id": "cloud-0203"')
    found = _found(vault)
    # The levels chains.json states (L2, L4) no longer match the items it names.
    assert found == [
        ("chain-level-mismatch", "chains.json", 20),
        ("chain-level-mismatch", "chains.json", 26),
        ("chain-levels-monotonic", "chains.json", 27),
    ]


def test_chain_level_order_uses_the_stated_level_of_a_missing_question(vault: Path) -> None:
    path = vault / "chains.json"
    _edit(
        path, '"level": "L4",\n        "id": "cloud-0203"', '"level": "L1",\n        "id": "gone-1"'
    )
    assert _found(vault) == [
        ("chain-levels-monotonic", "chains.json", 27),
        ("chain-ref-exists", "chains.json", 27),
    ]


def test_prerequisite_cycle_in_taxonomy_data_names_the_edge(vault: Path) -> None:
    _edit(
        vault / "taxonomy_data.yaml",
        "    tracks: [cloud]\n\n  - id: data-parallelism",
        "    tracks: [cloud]\n    edges:\n      - target: data-parallelism\n"
        "        edge_type: prerequisite\n\n  - id: data-parallelism",
    )
    assert _found(vault) == [("taxonomy-acyclic", "taxonomy_data.yaml", 53)]


def test_edge_to_an_unknown_topic_is_reported(vault: Path) -> None:
    _edit(vault / "taxonomy_data.yaml", "target: roofline-analysis", "target: roofline")
    assert _found(vault) == [("taxonomy-ref-exists", "taxonomy_data.yaml", 42)]


def test_duplicates_across_our_files_and_staffml_files(vault: Path) -> None:
    (vault / "chains.yaml").write_text(
        "chains:\n- id: edge-chain-roofline-01\n  items: [edge-0301]\n", encoding="utf-8"
    )
    (vault / "taxonomy.yaml").write_text("topics:\n- id: roofline-analysis\n", encoding="utf-8")
    assert _found(vault) == [
        ("chain-duplicate", "chains.json", 37),
        ("taxonomy-ref-exists", "taxonomy_data.yaml", 14),
    ]


def test_question_in_a_chain_twice_is_a_duplicate(vault: Path) -> None:
    _edit(vault / "chains.json", '"id": "edge-0302"', '"id": "edge-0301"')
    assert _found(vault) == [("chain-duplicate", "chains.json", 54)]


def test_topic_missing_from_taxonomy_data_names_the_file(vault: Path) -> None:
    _edit(vault / "questions/edge/edge-0302.yaml", "topic: roofline-analysis", "topic: roofs")
    findings = run_check(vault, workers=1).findings
    assert [(f.code, f.path, f.line) for f in findings] == [
        ("topic-in-taxonomy", "questions/edge/edge-0302.yaml", 6)
    ]
    assert findings[0].message == "topic 'roofs' is not in taxonomy_data.yaml"
