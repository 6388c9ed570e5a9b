"""Importing a StaffML vault folder keeps every field as written, chains and topics too."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.check import run_check
from sysdrill.content.loader import load_vault
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
STAFFML_SEEDS = ("000_f94b88cb3c630d3c.txt", "001_2a349a237ce54e38.txt")


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text("utf-8"))


@pytest.fixture
def source(staffml_vault_copy: Path) -> Path:
    return staffml_vault_copy


def test_every_field_is_written_back_as_the_source_has_it(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "ours"
    report = import_source(source, into=target, format="staffml", now=NOW)
    originals = sorted((source / "questions").rglob("*.yaml"))
    assert len(report.added) == len(originals) == 5
    for original in originals:
        rel = original.relative_to(source)
        written = _load(target / rel)
        expected = _load(original)
        # Only our import stamp is added; provenance, created_at, review stamps stay.
        assert {k: v for k, v in written.items() if k != "source"} == expected, rel
        assert written["source"]["key"] == expected["id"]


def test_provenance_and_review_bookkeeping_survive_import(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "ours"
    import_source(source, into=target, format="staffml", now=NOW)
    data = _load(target / "questions/cloud/cloud-0203.yaml")
    assert data["provenance"] == "llm-draft"
    assert "provenance" not in data["source"]
    assert data["created_at"] == "2026-03-21T09:00:00"
    assert data["human_reviewed"]["status"] == "needs-rework"
    assert data["validation_issues"] == ["The admission margin is not quantified."]


def test_chains_json_and_taxonomy_data_are_copied_as_written(source: Path, tmp_path: Path) -> None:
    (source / "schema").mkdir()
    (source / "taxonomy_data.yaml").rename(source / "schema" / "taxonomy_data.yaml")
    target = tmp_path / "ours"
    report = import_source(source, into=target, format="staffml", now=NOW)
    for rel in ("chains.json", "schema/taxonomy_data.yaml"):
        assert (target / rel).read_bytes() == (source / rel).read_bytes()
        assert rel in report.written
    loaded = load_vault(target)
    assert [chain.id for chain in loaded.chains] == ["cloud-chain-kv-01", "edge-chain-roofline-01"]
    assert loaded.taxonomy is not None and len(loaded.taxonomy.topics) == 5
    assert run_check(target, workers=1).findings == []


def test_reimport_merges_chains_by_id_and_keeps_the_vaults_own(
    source: Path, tmp_path: Path
) -> None:
    target = tmp_path / "ours"
    import_source(source, into=target, format="staffml", now=NOW)
    held = json.loads((target / "chains.json").read_text("utf-8"))
    held.append({"chain_id": "mine", "questions": [{"id": "cloud-0201", "level": "L1"}]})
    (target / "chains.json").write_text(json.dumps(held, indent=2), "utf-8")
    updated = json.loads((source / "chains.json").read_text("utf-8"))
    updated[1]["questions"].pop()
    (source / "chains.json").write_text(json.dumps(updated, indent=2), "utf-8")

    report = import_source(source, into=target, format="staffml", now=NOW)

    chains = json.loads((target / "chains.json").read_text("utf-8"))
    assert [c["chain_id"] for c in chains] == [
        "cloud-chain-kv-01",
        "edge-chain-roofline-01",
        "mine",
    ]
    assert [q["id"] for q in chains[1]["questions"]] == ["edge-0301"]
    assert [n.message for n in report.notes if n.location == "chains.json"] == [
        "merged the source's chains into the vault's chains.json by chain_id"
    ]


def test_unchanged_reimport_writes_nothing(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "ours"
    import_source(source, into=target, format="staffml", now=NOW)
    report = import_source(source, into=target, format="staffml", now=NOW)
    assert report.written == []
    assert len(report.unchanged) == 5


def test_only_questions_folder_is_read_from_a_staffml_vault(source: Path, tmp_path: Path) -> None:
    (source / "schema").mkdir()
    (source / "schema" / "question_schema.yaml").write_text("id: staffml_question\n", "utf-8")
    (source / "exemplar-gaps.yaml").write_text("gaps: []\n", "utf-8")
    report = import_source(source, into=tmp_path / "ours", format="staffml", now=NOW)
    assert sorted(outcome.id for outcome in report.added) == [
        "cloud-0201",
        "cloud-0202",
        "cloud-0203",
        "edge-0301",
        "edge-0302",
    ]
    assert report.skipped == []


@pytest.mark.parametrize("name", STAFFML_SEEDS)
def test_staffml_seed_gives_no_unknown_field_after_import(
    seeds_dir: Path, tmp_path: Path, name: str
) -> None:
    target = tmp_path / "ours"
    import_source(seeds_dir / name, into=target, now=NOW)
    codes = {finding.code for finding in run_check(target, workers=1).findings}
    assert "unknown-field" not in codes
    assert "schema" not in codes
