"""Vault rule ``media-missing``: every media file an item refers to is in ``media/``.

Items refer to images as ``![alt](media/<name>)`` and to sounds as
``[sound:media/<name>]`` (see :mod:`sysdrill.content.media`). The rule runs
over the item summaries on every check, so deleting a media file is reported
even when the item files come from the check cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sysdrill.check.context import iter_strings
from sysdrill.check.registry import RULES
from sysdrill.content.diagnostics import Finding
from sysdrill.content.media import MEDIA_FOLDER, is_safe_media_name, media_refs

__all__ = ["media_findings", "media_names"]


def media_names(raw: Any) -> tuple[str, ...]:
    """Names of the media files an item's raw mapping refers to, first mention first."""
    names: dict[str, None] = {}
    for _, text in iter_strings(raw):
        if "media/" in text:
            names.update(dict.fromkeys(ref.name for ref in media_refs(text)))
    return tuple(names)


def _line_of(path: Path, needle: str) -> int:
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 0
    return next((number for number, line in enumerate(lines, 1) if needle in line), 0)


def media_findings(root: Path, referenced: Sequence[tuple[str, Sequence[str]]]) -> list[Finding]:
    """A ``media-missing`` finding for each reference to a file ``media/`` lacks.

    Args:
        root: The vault folder.
        referenced: Each item file (vault-relative) with the media names it refers to.
    """
    rule = RULES["media-missing"]
    folder = root / MEDIA_FOLDER
    findings: list[Finding] = []
    for rel, names in referenced:
        for name in names:
            if is_safe_media_name(name) and (folder / name).is_file():
                continue
            why = "is not in media/" if is_safe_media_name(name) else "is not a plain media name"
            line = _line_of(root / rel, f"{MEDIA_FOLDER}/{name}")
            findings.append(
                Finding(
                    "media-missing",
                    rule.severity,
                    rel,
                    line,
                    1 if line else 0,
                    f"media file '{name}' {why}",
                    rule.fix,
                )
            )
    return findings
