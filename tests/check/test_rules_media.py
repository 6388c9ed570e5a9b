"""``media-missing``: references to media files the vault lacks are reported."""

from __future__ import annotations

from pathlib import Path

from sysdrill.check.runner import run_check

ITEM = """\
id: global-flashcard-0001
format: flashcard
question: What does the board look like?
details:
  realistic_solution: |-
    ![](media/0123456789abcdef.png)
    [sound:media/fedcba9876543210.mp3]
"""


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "questions").mkdir(parents=True)
    (vault / "questions" / "global-flashcard-0001.yaml").write_text(ITEM, encoding="utf-8")
    (vault / "media").mkdir()
    (vault / "media" / "0123456789abcdef.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return vault


def _media_findings(vault: Path, cache: Path | None = None) -> list[tuple[str, int, str]]:
    report = run_check(vault, cache_dir=cache)
    return [(f.path, f.line, f.message) for f in report.findings if f.code == "media-missing"]


def test_a_missing_media_file_is_reported_at_its_line(tmp_path: Path) -> None:
    vault = _vault(tmp_path)

    assert _media_findings(vault) == [
        (
            "questions/global-flashcard-0001.yaml",
            7,
            "media file 'fedcba9876543210.mp3' is not in media/",
        )
    ]


def test_a_media_file_deleted_later_is_reported_from_a_warm_cache(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    cache = tmp_path / "cache"
    _media_findings(vault, cache)
    (vault / "media" / "0123456789abcdef.png").unlink()

    assert [message for _, _, message in _media_findings(vault, cache)] == [
        "media file '0123456789abcdef.png' is not in media/",
        "media file 'fedcba9876543210.mp3' is not in media/",
    ]
