"""The check runner: all findings at once, the cache, a worker process, the napkin hook."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from sysdrill.check import runner
from sysdrill.check.runner import run_check
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.errors import TierUnavailable, UsageError

ITEM = "questions/cloud/cloud-0001.yaml"


def _plant_several(planted) -> None:
    planted.replace_line(4, "level: L1")  # zone-level warning
    text = planted.base_text.replace("cloud-0001", "cloud-0002").replace(
        "title: All", "title: all_"
    )
    planted.write("questions/cloud/cloud-0002.yaml", text)
    planted.write("questions/cloud/broken.yaml", "id: [cloud\n")


def test_report_counts_and_exit_codes(planted) -> None:
    _plant_several(planted)
    report = run_check(planted.root, workers=1)
    assert [(f.path, f.code) for f in report.findings] == [
        ("questions/cloud/broken.yaml", "yaml-syntax"),
        ("questions/cloud/cloud-0001.yaml", "zone-level"),
        ("questions/cloud/cloud-0002.yaml", "title"),
    ]
    assert report.counts == {"error": 2, "warning": 1, "info": 0}
    assert (report.files, report.items) == (3, 2)
    assert report.exit_code() == 1
    document = report.to_dict()
    assert document["counts"] == report.counts
    assert document["findings"][1] == {
        "code": "zone-level",
        "severity": "warning",
        "path": ITEM,
        "line": 4,
        "column": 1,
        "message": "zone 'diagnosis' usually sits at L3 to L6+, not L1",
        "fix": "check the level and the zone; change one if the item was misfiled",
    }


def test_warnings_fail_only_when_strict(planted) -> None:
    planted.replace_line(4, "level: L1")
    report = run_check(planted.root, workers=1)
    assert (report.exit_code(), report.exit_code(strict=True)) == (0, 1)


def test_codes_select_findings(planted) -> None:
    _plant_several(planted)
    report = run_check(planted.root, codes=["title", "zone-level"], workers=1)
    assert [f.code for f in report.findings] == ["zone-level", "title"]


def test_unknown_code_is_a_usage_error(planted) -> None:
    with pytest.raises(UsageError, match="unknown rule code no-such-rule; see docs/check-rules.md"):
        run_check(planted.root, codes=["no-such-rule"])


def test_warm_run_reuses_cached_findings(planted, tmp_path: Path, monkeypatch) -> None:
    _plant_several(planted)
    cache_dir = tmp_path / "cache"
    cold = run_check(planted.root, cache_dir=cache_dir, workers=1)
    audited: list[str] = []
    real = runner.audit_file

    def spy(loaded, napkin=None):  # type: ignore[no-untyped-def]
        audited.append(loaded.rel)
        return real(loaded, napkin)

    monkeypatch.setattr(runner, "audit_file", spy)
    warm = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert audited == []
    assert warm.findings == cold.findings
    assert (warm.files, warm.items) == (cold.files, cold.items)
    planted.replace_line(4, "level: L4")
    again = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert audited == [ITEM]
    assert [f.code for f in again.findings if f.path == ITEM] == []


def test_vault_rules_run_on_cached_summaries(planted, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    planted.write("questions/cloud/x/cloud-0001.yaml", planted.base_text)
    run_check(planted.root, cache_dir=cache_dir, workers=1)
    warm = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert [(f.path, f.code, f.line) for f in warm.findings] == [
        (ITEM, "id-unique", 2),
        ("questions/cloud/x/cloud-0001.yaml", "id-unique", 2),
    ]


def test_worker_process_gives_the_same_report(planted, monkeypatch) -> None:
    for number in range(2, 12):
        text = planted.base_text.replace("cloud-0001", f"cloud-{number:04d}")
        if number % 3 == 0:
            text = text.replace("title: All-Reduce Time for a 1B Model on 8 GPUs", "title: Item 7")
        planted.write(f"questions/cloud/cloud-{number:04d}.yaml", text)

    def napkin_findings(loaded):  # type: ignore[no-untyped-def]
        # Records which process audited the file.
        return [Finding("napkin-units", Severity.INFO, loaded.rel, 1, 1, str(os.getpid()), "")]

    monkeypatch.setattr(runner, "_napkin_hook", lambda: napkin_findings)
    serial = run_check(planted.root, workers=1)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 2)
    parallel = run_check(planted.root, workers=2)

    def rules_only(findings):  # type: ignore[no-untyped-def]
        return [f for f in findings if f.code != "napkin-units"]

    assert rules_only(parallel.findings) == rules_only(serial.findings)
    assert len([f for f in serial.findings if f.code == "title"]) == 3
    assert (parallel.files, parallel.items) == (11, 11)
    processes = {f.message for f in parallel.findings if f.code == "napkin-units"}
    assert len(processes) == 2 and str(os.getpid()) in processes


def test_napkin_tier_runs_on_every_validated_item(planted, monkeypatch) -> None:
    planted.write("questions/cloud/broken.yaml", "id: [\n")
    seen: list[str] = []

    def napkin_findings(loaded):  # type: ignore[no-untyped-def]
        seen.append(loaded.rel)
        return [Finding("napkin-arithmetic", Severity.ERROR, loaded.rel, 25, 7, "2 * 2 GB", "")]

    fake = types.SimpleNamespace(
        napkin_findings=napkin_findings,
        RULES={"napkin-arithmetic": (Severity.ERROR, "wrong", "fix")},
        __file__=runner.__file__,
    )
    monkeypatch.setattr(runner, "napkin_module", lambda: fake)
    monkeypatch.setattr("sysdrill.check.registry.napkin_module", lambda: fake)
    report = run_check(planted.root, workers=1)
    assert seen == [ITEM]
    assert [(f.code, f.line) for f in report.findings if f.path == ITEM] == [
        ("napkin-arithmetic", 25)
    ]


def test_napkin_tier_that_cannot_import_stops_check_with_an_error_naming_it(
    planted, monkeypatch
) -> None:
    # None in sys.modules makes the import fail, as a broken install would.
    monkeypatch.setitem(sys.modules, "sysdrill.check.napkin_rules", None)
    with pytest.raises(TierUnavailable) as caught:
        run_check(planted.root, workers=1)
    assert str(caught.value) == (
        "the napkin tier (sysdrill.check.napkin_rules) cannot be loaded (ModuleNotFoundError: "
        "import of sysdrill.check.napkin_rules halted; None in sys.modules); reinstall "
        "sysdrill, or run `sysdrill --debug check` for the traceback"
    )


def test_napkin_tier_without_its_hook_is_unavailable(planted, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sysdrill.check.napkin_rules", types.ModuleType("empty"))
    with pytest.raises(TierUnavailable, match="lacks RULES or napkin_findings"):
        run_check(planted.root, workers=1)


def _age(path: Path, seconds: int) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 1_000_000_000))


def test_warm_run_skips_reading_old_unchanged_files(planted, tmp_path: Path, monkeypatch) -> None:
    _age(planted.root / ITEM, 3600)
    cache_dir = tmp_path / "cache"
    run_check(planted.root, cache_dir=cache_dir, workers=1)
    read: list[str] = []
    real = runner.read_file

    def spy(path, rel):  # type: ignore[no-untyped-def]
        read.append(rel)
        return real(path, rel)

    monkeypatch.setattr(runner, "read_file", spy)
    assert run_check(planted.root, cache_dir=cache_dir, workers=1).findings == []
    assert read == []


def test_same_size_edit_within_the_racy_window_is_caught(planted, tmp_path: Path) -> None:
    # An editor saving twice within one clock tick leaves size and mtime equal;
    # files modified this close to the cache's writing are always hashed.
    cache_dir = tmp_path / "cache"
    path = planted.root / ITEM
    path.write_text(path.read_text())  # modified now, as while editing
    assert run_check(planted.root, cache_dir=cache_dir, workers=1).findings == []
    stat = path.stat()
    path.write_text(path.read_text().replace("level: L3", "level: L1"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    report = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert [(f.code, f.line) for f in report.findings] == [("zone-level", 4)]


def test_crashing_napkin_tier_becomes_a_finding(planted, monkeypatch) -> None:
    def napkin_findings(loaded):  # type: ignore[no-untyped-def]
        raise RecursionError("maximum recursion depth exceeded")

    fake = types.SimpleNamespace(napkin_findings=napkin_findings, RULES={}, __file__=None)
    monkeypatch.setattr(runner, "napkin_module", lambda: fake)
    report = run_check(planted.root, workers=1)
    assert [(f.code, f.line, f.message) for f in report.findings] == [
        (
            "rule-crashed",
            13,
            "the napkin tier failed on this item "
            "(RecursionError: maximum recursion depth exceeded)",
        )
    ]
    monkeypatch.setenv("SYSDRILL_DEBUG", "1")
    with pytest.raises(RecursionError):
        run_check(planted.root, workers=1)


def test_run_check_reports_each_parsed_file_to_a_progress_callback(planted) -> None:
    seen: list[tuple[str, int, int]] = []
    run_check(planted.root, workers=1, progress=lambda *step: seen.append(step))
    total = seen[0][2]
    assert total >= 1
    assert seen == [(runner.CHECKING, done, total) for done in range(total)]


def test_warm_run_with_nothing_changed_reuses_vault_rule_findings(
    planted, tmp_path: Path, monkeypatch
) -> None:
    cache_dir = tmp_path / "cache"
    planted.write("questions/cloud/x/cloud-0001.yaml", planted.base_text)
    cold = run_check(planted.root, cache_dir=cache_dir, workers=1)
    ran: list[int] = []
    real = runner.vault_findings

    def spy(vault, summaries):  # type: ignore[no-untyped-def]
        ran.append(len(summaries))
        return real(vault, summaries)

    monkeypatch.setattr(runner, "vault_findings", spy)
    warm = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert ran == []
    assert warm.findings == cold.findings
    assert [f.code for f in warm.findings] == ["id-unique", "id-unique"]


def test_vault_rule_finding_moves_with_an_edit_above_its_line(planted, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    other = "questions/cloud/x/cloud-0001.yaml"
    planted.write(other, planted.base_text)
    run_check(planted.root, cache_dir=cache_dir, workers=1)
    planted.write(other, "# moved down a line\n" + planted.base_text)
    warm = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert [(f.path, f.code, f.line) for f in warm.findings] == [
        (ITEM, "id-unique", 2),
        (other, "id-unique", 3),
    ]


def test_vault_rules_run_again_when_the_taxonomy_changes(planted, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    assert run_check(planted.root, cache_dir=cache_dir, workers=1).findings == []
    taxonomy = planted.root / "taxonomy.yaml"
    taxonomy.write_text(taxonomy.read_text("utf-8").replace("data-parallelism", "dp"), "utf-8")
    warm = run_check(planted.root, cache_dir=cache_dir, workers=1)
    assert [(f.path, f.code, f.line) for f in warm.findings] == [(ITEM, "topic-in-taxonomy", 6)]
