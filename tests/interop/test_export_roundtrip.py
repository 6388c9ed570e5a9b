"""staffml-json round trip: export, import with the import service, identical items."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from sysdrill.content.loader import load_vault
from sysdrill.content.sample import sample_vault_path
from sysdrill.interop.export import export_vault
from sysdrill.interop.importer import import_source

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

# What the import service adds to every item it writes (its identity stamp).
IMPORT_STAMPS = ("provenance", "source", "created_at", "updated_at")


def _items_by_id(root: Path) -> dict[str, dict[str, Any]]:
    loaded = load_vault(root)
    assert not [f.rel for f in loaded.files if f.item is None]
    return {
        item.id: {k: v for k, v in item.model_dump(mode="json").items() if k not in IMPORT_STAMPS}
        for item in loaded.items
    }


def test_staffml_json_export_imports_back_to_identical_items(tmp_path: Path) -> None:
    source = sample_vault_path()
    corpus = tmp_path / "corpus.json"
    report = export_vault(source, format="staffml-json", out=corpus, now=NOW)

    imported = import_source(corpus, into=tmp_path / "copy", format="staffml", now=NOW)

    assert len(imported.added) == report.items > 0
    assert _items_by_id(tmp_path / "copy") == _items_by_id(source)


def test_staffml_json_round_trip_keeps_every_field_of_a_full_question(tmp_path: Path) -> None:
    item = {
        "schema_version": "1.0",
        "id": "cloud-0900",
        "track": "cloud",
        "level": "L5",
        "zone": "design",
        "topic": "pipeline-parallelism",
        "competency_area": "parallelism",
        "bloom_level": "evaluate",
        "phase": "training",
        "title": "Bubble budget",
        "scenario": "Four stages, sixteen micro-batches; ≈ 6×10⁻⁵ loss scale.",
        "question": "What fraction of time is bubble, $\\frac{P-1}{M+P-1}$?",
        "details": {
            "realistic_solution": "About 16 %.",
            "common_mistake": "**The Pitfall:** x\n**The Rationale:** y\n**The Consequence:** z",
            "napkin_math": "**Calculations:** 3 / 19 = 0.16",
            "resources": [{"name": "GPipe", "url": "https://example.org/gpipe"}],
        },
        "status": "published",
        "provenance": "human",
        "validated": True,
        "human_reviewed": {"status": "verified", "by": "lead", "date": "2026-02-01"},
        "tags": ["pipeline"],
        "x_custom": {"kept": [1, 2]},
    }
    vault = tmp_path / "vault"
    (vault / "questions").mkdir(parents=True)
    (vault / "questions" / "cloud-0900.yaml").write_text(
        yaml.safe_dump(item, allow_unicode=True), encoding="utf-8"
    )
    corpus = tmp_path / "corpus.json"
    export_vault(vault, format="staffml-json", out=corpus, now=NOW)

    import_source(corpus, into=tmp_path / "copy", format="staffml", now=NOW)

    assert _items_by_id(tmp_path / "copy") == _items_by_id(vault)
    assert _items_by_id(vault)["cloud-0900"]["x_custom"] == {"kept": [1, 2]}


def test_apkg_export_imports_as_valid_items_and_reimport_changes_nothing(tmp_path: Path) -> None:
    apkg = tmp_path / "sample.apkg"
    report = export_vault(sample_vault_path(), format="apkg", out=apkg, now=NOW)
    target = tmp_path / "from-anki"

    first = import_source(apkg, into=target, now=NOW)
    again = import_source(apkg, into=target, now=NOW)

    assert first.format == "apkg"
    assert len(first.added) == report.items
    loaded = load_vault(target)
    assert [f.rel for f in loaded.files if f.item is None] == []
    assert {item.id for item in loaded.items} == {
        item.id for item in load_vault(sample_vault_path()).items
    }
    assert (len(again.added), len(again.updated), len(again.unchanged)) == (0, 0, report.items)


def test_csv_export_imports_as_valid_items(tmp_path: Path) -> None:
    out = tmp_path / "sample.csv"
    report = export_vault(sample_vault_path(), format="csv", out=out, now=NOW)

    imported = import_source(out, into=tmp_path / "from-csv", now=NOW)

    assert len(imported.added) == report.items
    loaded = load_vault(tmp_path / "from-csv")
    assert [f.rel for f in loaded.files if f.item is None] == []
