from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.formats import staffml
from sysdrill.interop.formats.staffml import read_staffml


def staffml_question(item_id: str, **extra: Any) -> dict[str, Any]:
    """A complete StaffML question written for these tests."""
    data: dict[str, Any] = {
        "schema_version": "1.0",
        "id": item_id,
        "track": "edge",
        "level": "L2",
        "zone": "recall",
        "topic": "quantization",
        "competency_area": "precision",
        "bloom_level": "remember",
        "phase": "inference",
        "title": "Bytes Per INT8 Weight",
        "scenario": "A phone runs a 1B-parameter model quantised to INT8 weights.",
        "question": "How many bytes do the weights of the model take?",
        "details": {"realistic_solution": "One byte per weight: 1e9 bytes, about 1 GB.\n"},
        "status": "published",
        "provenance": "human",
    }
    data.update(extra)
    return data


def write_yaml(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_read_single_file_keeps_id_and_every_field(tmp_path: Path) -> None:
    path = write_yaml(tmp_path / "edge-1.yaml", staffml_question("edge-1", future_field={"a": 1}))
    source = read_staffml(path)
    assert source.format == "staffml"
    [item] = source.items
    assert item.key == "edge-1" and item.preferred_id == "edge-1"
    assert "id" not in item.data
    assert item.data["future_field"] == {"a": 1}
    assert item.data["provenance"] == "human"
    assert item.data["details"]["realistic_solution"].startswith("One byte per weight")


def test_read_folder_tree_skips_shared_files_and_hidden_folders(tmp_path: Path) -> None:
    write_yaml(tmp_path / "questions" / "edge" / "edge-1.yaml", staffml_question("edge-1"))
    write_yaml(tmp_path / "questions" / "edge" / "edge-2.yaml", staffml_question("edge-2"))
    write_yaml(tmp_path / "taxonomy.yaml", {"topics": [{"id": "quantization"}]})
    write_yaml(tmp_path / ".git" / "junk.yaml", {"id": "edge-9"})
    source = read_staffml(tmp_path)
    assert [item.key for item in source.items] == ["edge-1", "edge-2"]


def test_read_corpus_json_array(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(
        json.dumps([staffml_question("edge-1"), staffml_question("edge-2")]), encoding="utf-8"
    )
    source = read_staffml(path)
    assert [item.key for item in source.items] == ["edge-1", "edge-2"]


def test_corpus_entry_without_id_is_skipped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    broken = staffml_question("edge-2")
    del broken["id"]
    path.write_text(json.dumps([staffml_question("edge-1"), broken, "text"]), encoding="utf-8")
    source = read_staffml(path)
    assert [item.key for item in source.items] == ["edge-1"]
    skipped = [note for note in source.notes if note.skipped]
    assert [note.location for note in skipped] == ["corpus.json[1]", "corpus.json[2]"]


def test_unsafe_and_repeated_ids_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    entries = [
        staffml_question("edge-1"),
        staffml_question("edge-1"),
        staffml_question("../escape"),
    ]
    path.write_text(json.dumps(entries), encoding="utf-8")
    source = read_staffml(path)
    assert [item.key for item in source.items] == ["edge-1"]
    messages = [note.message for note in source.notes]
    assert any("appears twice" in m for m in messages)
    assert any("not a safe name" in m for m in messages)


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("id: edge-1\ntrack: [cloud\nlevel: L1\n", encoding="utf-8")
    with pytest.raises(ImportFailed, match=r"^bad\.yaml:\d+: invalid YAML"):
        read_staffml(path)


def test_invalid_json_names_line(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text('[\n{"id": "edge-1",}\n]', encoding="utf-8")
    with pytest.raises(ImportFailed, match=r"^corpus\.json:2: invalid JSON"):
        read_staffml(path)


def test_empty_folder_fails(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed, match="holds no .yaml question files"):
        read_staffml(tmp_path)


def test_too_many_files_in_tree_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staffml, "MAX_TREE_FILES", 2)
    for n in range(3):
        write_yaml(tmp_path / f"edge-{n}.yaml", staffml_question(f"edge-{n}"))
    with pytest.raises(HostileInput, match="over the 2 limit"):
        read_staffml(tmp_path)


def test_staffml_json_export_imports_back_to_identical_items(
    seeds_dir: Path, tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from sysdrill.interop.export.service import export_vault
    from sysdrill.interop.importer import import_source

    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    first, second = tmp_path / "first", tmp_path / "second"
    for name in sorted(p.name for p in seeds_dir.glob("0*.txt")):
        import_source(seeds_dir / name, into=first, audit=False, now=now)
    corpus = tmp_path / "corpus.json"
    export_vault(first, format="staffml-json", out=corpus, now=now)
    report = import_source(corpus, into=second, audit=False, now=now)
    assert len(report.added) == 138 and not report.skipped

    def items(root: Path) -> dict[str, Any]:
        found = {}
        for path in sorted((root / "questions").rglob("*.yaml")):
            data = yaml.safe_load(path.read_text("utf-8"))
            stamp = data.pop("source")
            found[path.relative_to(root).as_posix()] = (data, stamp["key"])
        return found

    before, after = items(first), items(second)
    assert before.keys() == after.keys()
    for rel, (data, _) in before.items():
        assert after[rel][0] == data, rel
        assert after[rel][1] == data["id"]
    again = import_source(corpus, into=second, audit=False, now=now)
    assert len(again.unchanged) == 138
