"""Silencing one finding in place: ``# sysdrill: ignore[CODE, ...]`` comments.

Like a linter's ``noqa``: an author who has judged a finding wrong writes the
comment on the line of the finding, or on the line of a key that holds it. For a
claim inside a block scalar (``napkin_math: |``) that is the key's line, since a
``#`` inside the block is text the learner would read::

    napkin_math: |  # sysdrill: ignore[napkin-arithmetic]

The comment silences the codes it names on that line and everything nested under
it, in that file only. Only content findings can be silenced (see
:class:`~sysdrill.check.registry.RuleClass`): a structural error leaves the item
unusable whatever a comment says. ``check`` counts what was silenced and reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from sysdrill.check.policy import rule_class
from sysdrill.check.registry import Rule, RuleClass
from sysdrill.content.diagnostics import Finding

__all__ = ["IGNORE_COMMENT", "ignored_codes", "split_suppressed"]

IGNORE_COMMENT = re.compile(r"#\s*sysdrill:\s*ignore\[([^\]\n]*)\]")
"""The comment, with the comma-separated codes it silences as group 1."""

_MARKER = b"sysdrill:"


def _indent(line: str) -> int:
    stripped = line.lstrip(" ")
    width = len(line) - len(stripped)
    # A sequence entry (`- x`) written at its key's own indentation still sits
    # under that key.
    return width + 1 if stripped.startswith("- ") or stripped == "-" else width


def _codes_on(line: str) -> set[str]:
    codes: set[str] = set()
    for match in IGNORE_COMMENT.finditer(line):
        codes.update(code.strip() for code in match.group(1).split(",") if code.strip())
    return codes


def ignored_codes(lines: list[str], line: int) -> set[str]:
    """Codes silenced at a 1-based ``line``: on it, or on a key line that holds it.

    Args:
        lines: The file's lines.
        line: The finding's line (1-based; 0, the whole file, is never silenced).
    """
    if not 1 <= line <= len(lines):
        return set()
    codes = _codes_on(lines[line - 1])
    text = lines[line - 1]
    deepest = _indent(text) if text.strip() else len(text)
    for number in range(line - 1, 0, -1):
        if deepest == 0:
            break
        above = lines[number - 1]
        if not above.strip():
            continue
        width = _indent(above)
        if width < deepest:
            codes |= _codes_on(above)
            deepest = width
    return codes


def split_suppressed(
    root: Path, findings: Iterable[Finding], rules: dict[str, Rule]
) -> tuple[list[Finding], list[Finding]]:
    """Separate the findings that an ignore comment silences.

    Args:
        root: The vault folder the findings' paths are relative to.
        findings: What the rules reported.
        rules: The catalogue, to tell content rules from structural ones.

    Returns:
        The findings kept, and those silenced, each in the order given.
    """
    kept: list[Finding] = []
    silenced: list[Finding] = []
    texts: dict[str, list[str] | None] = {}
    for finding in findings:
        if finding.line > 0 and rule_class(finding.code, rules) is RuleClass.CONTENT:
            if finding.path not in texts:
                texts[finding.path] = _lines_with_comments(root / finding.path)
            lines = texts[finding.path]
            if lines is not None and finding.code in ignored_codes(lines, finding.line):
                silenced.append(finding)
                continue
        kept.append(finding)
    return kept, silenced


def _lines_with_comments(path: Path) -> list[str] | None:
    """The file's lines, or None when it holds no ignore comment (or cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if _MARKER not in data:
        return None
    return data.decode("utf-8", "replace").splitlines()
