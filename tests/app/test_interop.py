"""Import and export through the app layer: a preview writes nothing, confirm writes all."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from sysdrill.app.interop import ExportSummary, StagedImport, export_items, import_items
from sysdrill.content.sample import sample_vault_path

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _export(tmp_path: Path) -> tuple[Path, ExportSummary]:
    out = tmp_path / "sample.json"
    report = export_items(
        sample_vault_path(), format="staffml-json", out=out, now=NOW, cache_dir=None
    )
    return out, ExportSummary(report, out=str(out))


def test_export_summary_counts_what_was_written(tmp_path: Path) -> None:
    out, summary = _export(tmp_path)
    shown = summary.to_dict()
    assert shown["format"] == "staffml-json" and shown["out"] == str(out)
    assert shown["items"] == len(json.loads(out.read_text("utf-8")))
    assert shown["size_bytes"] == out.stat().st_size


def test_preview_writes_nothing_and_confirm_imports_every_item(tmp_path: Path) -> None:
    source, summary = _export(tmp_path)
    into = tmp_path / "vault"
    preview = import_items(source, into=into, format=" StaffML ", dry_run=True, now=NOW)
    assert preview.dry_run and not (into / "questions").exists()
    assert len(preview.added) == summary.to_dict()["items"]
    done = import_items(source, into=into, format="", deck="", now=NOW)
    written = list((into / "questions").rglob("*.yaml"))
    items_written = [path for path in done.written if path.startswith("questions/")]
    assert len(written) == len(items_written) == summary.to_dict()["items"]


def test_staged_import_shows_its_token_only_before_confirming(tmp_path: Path) -> None:
    source, _ = _export(tmp_path)
    report = import_items(source, into=tmp_path / "v", dry_run=True, now=NOW)
    preview = StagedImport(report, source="sample.json", token="abc").to_dict()
    assert preview["token"] == "abc" and preview["report"]["source"] == "sample.json"
    assert "token" not in StagedImport(report, source="sample.json").to_dict()
