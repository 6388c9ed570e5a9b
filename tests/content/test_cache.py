"""The per-vault cache: unchanged files are not parsed again; anything odd starts afresh."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sysdrill.content import loader
from sysdrill.content.cache import CachedFile, ParseCache, default_cache_dir
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.loader import load_vault

VALID = Path(__file__).resolve().parents[1] / "check" / "fixtures" / "valid"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    shutil.copytree(VALID, root)
    second = root / "questions" / "cloud" / "cloud-0002.yaml"
    first = root / "questions" / "cloud" / "cloud-0001.yaml"
    second.write_text(first.read_text().replace("cloud-0001", "cloud-0002"))
    return root


def _count_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    real = loader.parse_text

    def spy(text: str, rel: str):  # type: ignore[no-untyped-def]
        if rel.startswith("questions/"):
            parsed.append(rel)
        return real(text, rel)

    monkeypatch.setattr(loader, "parse_text", spy)
    return parsed


def test_unchanged_files_are_not_parsed_again(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    first = load_vault(vault, cache_dir=cache_dir)
    parsed = _count_parses(monkeypatch)
    second = load_vault(vault, cache_dir=cache_dir)
    assert parsed == []
    assert [f.item for f in second.files] == [f.item for f in first.files]
    assert [f.digest for f in second.files] == [f.digest for f in first.files]


def test_changed_file_is_parsed_again(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    load_vault(vault, cache_dir=cache_dir)
    path = vault / "questions" / "cloud" / "cloud-0002.yaml"
    path.write_text(path.read_text().replace("level: L3", "level: L4"))
    parsed = _count_parses(monkeypatch)
    again = load_vault(vault, cache_dir=cache_dir)
    assert parsed == ["questions/cloud/cloud-0002.yaml"]
    assert again.files[1].item is not None and again.files[1].item.level == "L4"


def test_same_size_and_mtime_but_new_bytes_is_parsed_again(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_dir = tmp_path / "cache"
    load_vault(vault, cache_dir=cache_dir)
    path = vault / "questions" / "cloud" / "cloud-0002.yaml"
    stat = path.stat()
    path.write_text(path.read_text().replace("level: L3", "level: L4"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    parsed = _count_parses(monkeypatch)
    load_vault(vault, cache_dir=cache_dir)
    assert parsed == ["questions/cloud/cloud-0002.yaml"]


def test_findings_of_a_bad_file_are_cached_too(vault: Path, tmp_path: Path) -> None:
    path = vault / "questions" / "cloud" / "cloud-0002.yaml"
    path.write_text(path.read_text().replace("level: L3", "level: L9"))
    cache_dir = tmp_path / "cache"
    first = load_vault(vault, cache_dir=cache_dir).all_findings()
    second = load_vault(vault, cache_dir=cache_dir).all_findings()
    assert [f.code for f in first] == ["schema"]
    assert second == first


def test_corrupt_cache_is_ignored(vault: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    load_vault(vault, cache_dir=cache_dir)
    cache = ParseCache(cache_dir, vault, salt=loader.PARSER)
    cache.index_path.write_bytes(b"not marshal data")
    cache.raw_path.write_bytes(b"")
    assert len(load_vault(vault, cache_dir=cache_dir).items) == 2
    assert ParseCache(cache_dir, vault, salt=loader.PARSER).has_entries


def test_lost_raw_store_means_parsing_again(vault: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    load_vault(vault, cache_dir=cache_dir)
    ParseCache(cache_dir, vault, salt=loader.PARSER).raw_path.unlink()
    assert len(load_vault(vault, cache_dir=cache_dir).items) == 2


def test_deleted_files_leave_the_cache(vault: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    load_vault(vault, cache_dir=cache_dir)
    (vault / "questions" / "cloud" / "cloud-0002.yaml").unlink()
    load_vault(vault, cache_dir=cache_dir)
    cache = ParseCache(cache_dir, vault, salt=loader.PARSER)
    assert cache.entry("questions/cloud/cloud-0002.yaml") is None
    assert cache.entry("questions/cloud/cloud-0001.yaml") is not None


def test_unwritable_cache_folder_is_ignored(vault: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the cache folder would go")
    assert len(load_vault(vault, cache_dir=blocker).items) == 2


def test_entries_round_trip_with_findings_and_extra(tmp_path: Path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    cache = ParseCache(tmp_path / "c", root, salt="s", keeps_raw=False)
    finding = Finding("schema", Severity.ERROR, "q.yaml", 3, 1, "level: bad", "fix it")
    cache.lookup("q.yaml", size=1, mtime_ns=2, digest="d")
    cache.store("q.yaml", CachedFile(1, 2, "d", False, (finding,)))
    cache.attach("q.yaml", ("key", (), None))
    cache.save()
    again = ParseCache(tmp_path / "c", root, salt="s", keeps_raw=False)
    entry = again.lookup("q.yaml", size=1, mtime_ns=2, digest="d")
    assert entry == CachedFile(1, 2, "d", False, (finding,), ("key", (), None))
    assert again.lookup("q.yaml", size=1, mtime_ns=3, digest="d") is None
    assert not ParseCache(tmp_path / "c", root, salt="other", keeps_raw=False).has_entries


def test_default_cache_dir_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("SYSDRILL_CACHE_DIR")
    assert default_cache_dir().name == "sysdrill"


def test_file_with_dates_from_libyaml_is_loaded_afresh_each_time(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tag sends the file down the libyaml road, which reads the unquoted date as
    # a date object that marshal cannot store: the file is simply not cached.
    path = vault / "questions" / "cloud" / "cloud-0002.yaml"
    text = path.read_text().replace("created_at: '2026-11-21'", "created_at: 2026-11-21")
    path.write_text(text + "note: !!str kept\n")
    cache_dir = tmp_path / "cache"
    first = load_vault(vault, cache_dir=cache_dir)
    assert first.files[1].item is not None and first.files[1].item.created_at == "2026-11-21"
    parsed = _count_parses(monkeypatch)
    load_vault(vault, cache_dir=cache_dir)
    assert parsed == ["questions/cloud/cloud-0002.yaml"]


def test_cache_is_not_reused_after_the_content_code_changes(tmp_path):
    # A working copy changes the models without a version bump; findings cached
    # under the old models must not be served (an unknown field may have become known).
    from sysdrill.content.cache import code_fingerprint

    pkg = tmp_path / "pkg"
    pkg.mkdir()
    module = pkg / "models.py"
    module.write_text("x = 1\n")
    before = code_fingerprint(pkg)
    module.write_text("x = 12\n")
    assert code_fingerprint(pkg) != before
