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
from collections.abc import Iterable, Mapping
from pathlib import Path

from sysdrill.check.policy import rule_class
from sysdrill.check.registry import Rule, RuleClass
from sysdrill.content.diagnostics import Finding

__all__ = ["IGNORE_COMMENT", "IgnoreScope", "ignore_scopes", "silenced_codes", "split_suppressed"]

IGNORE_COMMENT = re.compile(r"#\s*sysdrill:\s*ignore\[([^\]\n]*)\]")
"""The comment, with the comma-separated codes it silences as group 1."""

IgnoreScope = tuple[int, int, tuple[str, ...]]
"""First and last line (1-based) a comment covers, and the codes it silences (plain
data, so the check cache keeps it beside a file's findings)."""

_MARKER = "sysdrill:"


def _indent(line: str) -> int:
    stripped = line.lstrip(" ")
    width = len(line) - len(stripped)
    # A sequence entry (`- x`) written at its key's own indentation still sits
    # under that key.
    return width + 1 if stripped.startswith("- ") or stripped == "-" else width


def ignore_scopes(text: str) -> tuple[IgnoreScope, ...]:
    """The ignore comments of a file and the lines each one covers.

    A comment covers its own line and the lines nested under it: those that
    follow while every non-blank line is indented deeper than the comment's line.

    Args:
        text: The file's text.
    """
    if _MARKER not in text:
        return ()
    lines = text.splitlines()
    scopes: list[IgnoreScope] = []
    for number, line in enumerate(lines, 1):
        codes: set[str] = set()
        for match in IGNORE_COMMENT.finditer(line):
            codes.update(code.strip() for code in match.group(1).split(",") if code.strip())
        if not codes:
            continue
        width = _indent(line)
        last = number
        for below in range(number + 1, len(lines) + 1):
            text_below = lines[below - 1]
            if text_below.strip():
                if _indent(text_below) <= width:
                    break
                last = below
        scopes.append((number, last, tuple(sorted(codes))))
    return tuple(scopes)


def silenced_codes(scopes: Iterable[IgnoreScope], line: int) -> set[str]:
    """Codes silenced at a 1-based ``line`` (0, the whole file, is never silenced)."""
    codes: set[str] = set()
    for first, last, named in scopes:
        if line > 0 and first <= line <= last:
            codes.update(named)
    return codes


def split_suppressed(
    root: Path,
    findings: Iterable[Finding],
    rules: dict[str, Rule],
    known: Mapping[str, tuple[IgnoreScope, ...]] | None = None,
) -> tuple[list[Finding], list[Finding]]:
    """Separate the findings that an ignore comment silences.

    Args:
        root: The vault folder the findings' paths are relative to.
        findings: What the rules reported.
        rules: The catalogue, to tell content rules from structural ones.
        known: Ignore scopes already found, by vault-relative path (the runner's,
            from the audit or its cache); other files are read here.

    Returns:
        The findings kept, and those silenced, each in the order given.
    """
    scopes_of = dict(known or {})
    kept: list[Finding] = []
    silenced: list[Finding] = []
    for finding in findings:
        if finding.line > 0 and rule_class(finding.code, rules) is RuleClass.CONTENT:
            if finding.path not in scopes_of:
                scopes_of[finding.path] = _read_scopes(root / finding.path)
            if finding.code in silenced_codes(scopes_of[finding.path], finding.line):
                silenced.append(finding)
                continue
        kept.append(finding)
    return kept, silenced


def _read_scopes(path: Path) -> tuple[IgnoreScope, ...]:
    try:
        return ignore_scopes(path.read_bytes().decode("utf-8", "replace"))
    except OSError:
        return ()
