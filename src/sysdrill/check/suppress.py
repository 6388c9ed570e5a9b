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

The comment's syntax and scope are :mod:`sysdrill.content.ignore_marks`'s, shared
with the views that keep the comment from learners.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from sysdrill.check.policy import rule_class
from sysdrill.check.registry import Rule, RuleClass
from sysdrill.content.diagnostics import Finding
from sysdrill.content.ignore_marks import (
    IGNORE_COMMENT,
    IgnoreScope,
    ignore_scopes,
    silenced_codes,
)

__all__ = ["IGNORE_COMMENT", "IgnoreScope", "ignore_scopes", "silenced_codes", "split_suppressed"]


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
