"""StaffML's chains.json and taxonomy_data.yaml load beside our chains.yaml and taxonomy.yaml."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sysdrill.content.collections import Chain, Topic
from sysdrill.content.enums import Level
from sysdrill.content.loader import load_vault, shared_file_names


@pytest.fixture
def vault(staffml_vault_copy: Path) -> Path:
    return staffml_vault_copy


def test_staffml_chains_load_in_order_with_their_levels_and_origin(vault: Path) -> None:
    loaded = load_vault(vault)
    assert loaded.findings == []
    assert [(c.id, c.topic, c.items) for c in loaded.chains] == [
        ("cloud-chain-kv-01", "kv-cache-management", ["cloud-0201", "cloud-0202", "cloud-0203"]),
        ("edge-chain-roofline-01", "roofline-analysis", ["edge-0301", "edge-0302"]),
    ]
    first = loaded.chains[0]
    assert first.declared_levels == [Level.L1, Level.L2, Level.L4]
    assert first.origin.rel == "chains.json"
    assert first.origin.id_loc() == (0, "chain_id")
    assert first.origin.member_loc(2) == (0, "questions", 2, "id")
    assert first.origin.member_loc(2, "level") == (0, "questions", 2, "level")


def test_staffml_taxonomy_prerequisite_edges_become_prerequisites(vault: Path) -> None:
    taxonomy = load_vault(vault).taxonomy
    assert taxonomy is not None
    assert taxonomy.name == "Test Vault Topic Taxonomy"
    prerequisites = {t.id: t.prerequisite_ids for t in taxonomy.topics}
    assert prerequisites == {
        "roofline-analysis": [],
        "vram-budgeting": [],  # its only edge is `narrower`, which sets no order
        "kv-cache-management": ["vram-budgeting"],
        "collective-communication": [],
        "data-parallelism": ["collective-communication"],
    }
    kv = taxonomy.topics[2]
    assert kv.origin.rel == "taxonomy_data.yaml"
    assert kv.prerequisite_refs() == [("vram-budgeting", ("edges", 0, "target"))]


def test_our_files_and_staffml_files_merge_ours_first(vault: Path) -> None:
    (vault / "chains.yaml").write_text(
        "chains:\n- id: ours\n  items: [cloud-0201, cloud-0202]\n", encoding="utf-8"
    )
    (vault / "taxonomy.yaml").write_text(
        "topics:\n- id: serving\n  prerequisites: [kv-cache-management]\n", encoding="utf-8"
    )
    loaded = load_vault(vault)
    assert [c.id for c in loaded.chains] == ["ours", "cloud-chain-kv-01", "edge-chain-roofline-01"]
    assert loaded.chains[0].origin.member_loc(1) == ("chains", 0, "items", 1)
    assert loaded.taxonomy is not None
    assert [(t.id, t.origin.rel) for t in loaded.taxonomy.topics][:2] == [
        ("serving", "taxonomy.yaml"),
        ("roofline-analysis", "taxonomy_data.yaml"),
    ]
    assert shared_file_names(vault) == [
        "taxonomy.yaml",
        "taxonomy_data.yaml",
        "chains.yaml",
        "chains.json",
    ]


def test_taxonomy_data_is_found_in_the_schema_folder_as_staffml_keeps_it(vault: Path) -> None:
    (vault / "schema").mkdir()
    (vault / "taxonomy_data.yaml").rename(vault / "schema" / "taxonomy_data.yaml")
    taxonomy = load_vault(vault).taxonomy
    assert taxonomy is not None
    assert {t.origin.rel for t in taxonomy.topics} == {"schema/taxonomy_data.yaml"}
    assert len(taxonomy.topics) == 5


def test_top_level_taxonomy_data_wins_over_the_schema_folder_copy(vault: Path) -> None:
    (vault / "schema").mkdir()
    shutil.copy(vault / "taxonomy_data.yaml", vault / "schema" / "taxonomy_data.yaml")
    taxonomy = load_vault(vault).taxonomy
    assert taxonomy is not None
    assert {t.origin.rel for t in taxonomy.topics} == {"taxonomy_data.yaml"}


def test_a_broken_chains_json_is_a_finding_with_its_line(vault: Path) -> None:
    (vault / "chains.json").write_text('[\n  {"chain_id": "x",\n   "questions": 7}\n]\n', "utf-8")
    loaded = load_vault(vault)
    assert loaded.chains == []
    assert [(f.code, f.path, f.line) for f in loaded.findings] == [("schema", "chains.json", 3)]


def test_models_built_in_code_default_to_our_file_names() -> None:
    assert Chain(id="c", items=[]).origin.rel == "chains.yaml"
    assert Topic(id="t").origin.rel == "taxonomy.yaml"


def test_a_staffml_sized_chains_json_is_not_too_large(vault: Path) -> None:
    entry = {"chain_id": "x", "questions": [{"id": "cloud-0201", "level": "L1"}]}
    chains = [{**entry, "chain_id": f"c-{n}", "rationale": "r" * 900} for n in range(400)]
    (vault / "chains.json").write_text(json.dumps(chains, indent=2), encoding="utf-8")
    assert (vault / "chains.json").stat().st_size > 256 * 1024  # the item file limit
    loaded = load_vault(vault)
    assert loaded.findings == []
    assert len(loaded.chains) == 400


def test_unquoted_taxonomy_version_and_date_stay_strings(vault: Path) -> None:
    path = vault / "taxonomy_data.yaml"
    text = path.read_text("utf-8")
    text = text.replace('version: "1.0.0"', "version: 1.0").replace('"2026-05-01"', "2026-05-01")
    path.write_text(text, encoding="utf-8")
    loaded = load_vault(vault)
    assert loaded.findings == []
    assert loaded.taxonomy is not None
    assert (loaded.taxonomy.version, loaded.taxonomy.last_updated) == ("1.0", "2026-05-01")
