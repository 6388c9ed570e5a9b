"""``read_file`` reads with os-level calls: the same bytes and findings as ``open()``."""

from __future__ import annotations

from pathlib import Path

from sysdrill.content.loader import MAX_FILE_BYTES, read_file


def test_bytes_size_and_mtime_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"id: cloud-1\n" * 1000)
    data, size, mtime_ns, findings = read_file(path, "a.yaml")
    assert data == path.read_bytes()
    assert (size, mtime_ns, findings) == (12000, path.stat().st_mtime_ns, [])
    assert read_file(tmp_path / "empty.yaml", "e")[0] is None
    (tmp_path / "empty.yaml").write_bytes(b"")
    assert read_file(str(tmp_path / "empty.yaml"), "e")[:2] == (b"", 0)


def test_folder_missing_and_too_large_files_become_findings(tmp_path: Path) -> None:
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    data, _, _, findings = read_file(folder, "folder.yaml")
    assert data is None
    assert [(f.code, f.message) for f in findings] == [
        ("file-unreadable", "cannot read file: Is a directory")
    ]
    _, _, _, findings = read_file(tmp_path / "gone.yaml", "gone.yaml")
    assert [(f.code, f.message) for f in findings] == [
        ("file-unreadable", "cannot read file: No such file or directory")
    ]
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    data, size, _, findings = read_file(big, "big.yaml")
    assert data is None and size == MAX_FILE_BYTES + 1
    assert [f.code for f in findings] == ["file-too-large"]
