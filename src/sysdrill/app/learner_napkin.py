"""The napkin math a learner sees marked: claims that hold, and errors ``check`` would report.

``check`` grades each verdict of the napkin engine: an error when it is certain
(arithmetic wrong beyond tolerance, both sides understood), a warning or info
when it doubts (units, prefixes, an unsure reading). An author reads the doubts;
a learner must not, since a correct line marked wrong teaches the wrong thing.
So the item page shows a claim only when it holds, or when it is wrong at error
level and no ``# sysdrill: ignore[CODE]`` comment of the author silences it.
Everything else (doubts, claims the engine cannot read) is left unmarked.

The grading is the napkin tier's own (:func:`sysdrill.check.registry.napkin_module`):
what ``check`` reports as an error is exactly what a learner sees marked wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import yaml

from sysdrill.check.registry import all_rules, napkin_module
from sysdrill.content.diagnostics import Severity
from sysdrill.content.ignore_marks import (
    IGNORE_COMMENT,
    ignore_scopes,
    silenced_codes,
    strip_ignore_marks,
)
from sysdrill.napkin import ClaimVerdict, Verdict, check_claims
from sysdrill.napkin.filecheck import YAML_LOADER, node_at, yaml_line

__all__ = ["NAPKIN_FIELD", "learner_claims", "verdict_code"]

NAPKIN_FIELD: tuple[str, ...] = ("details", "napkin_math")
"""The field whose claims the item page lists."""

_MAX_SOURCE_BYTES = 256 * 1024
"""Item files larger than this are not read (``check`` refuses them too)."""


def verdict_code(verdict: Verdict) -> tuple[str | None, Severity | None]:
    """The rule code and severity ``check`` reports a verdict under (None, None: no finding).

    Raises:
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    code: str | None = napkin_module().rule_code(verdict)
    if code is None:
        return None, None
    rule = all_rules().get(code)
    # A code the catalogue lacks is a doubt: never shown to a learner as an error.
    return code, rule.severity if rule is not None else Severity.INFO


def learner_claims(text: str, *, source: Path | None = None) -> list[ClaimVerdict]:
    """The claims of an item's napkin math that a learner sees marked, in order.

    Args:
        text: The napkin math as the learner reads it (ignore markers removed).
        source: The item file it came from, to honour the author's ignore comments
            (None when there is no file, such as a personal deck's item).

    Returns:
        The claims that hold, and those ``check`` reports as errors that no ignore
        comment silences. Doubts and unreadable claims are left out.

    Raises:
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    graded: dict[Verdict, tuple[str | None, Severity | None]] = {}
    shown: list[tuple[ClaimVerdict, str | None]] = []
    for verdict in check_claims(text):
        if verdict.verdict is Verdict.OK:
            shown.append((verdict, None))
            continue
        if verdict.verdict not in graded:
            graded[verdict.verdict] = verdict_code(verdict.verdict)
        code, severity = graded[verdict.verdict]
        if severity is Severity.ERROR:
            shown.append((verdict, code))
    if source is not None and any(code is not None for _, code in shown):
        silenced = _silenced_lines(source, text)
        shown = [(v, code) for v, code in shown if code is None or code not in silenced(v.line)]
    return [verdict for verdict, _ in shown]


def _nothing_silenced(_: int) -> set[str]:
    return set()


def _silenced_lines(source: Path, shown_text: str) -> Callable[[int], set[str]]:
    """Codes the item file's ignore comments silence, by line of the shown napkin math.

    The file is read only here, when an error is about to be shown: most items
    have none. When the file no longer holds the text shown (edited since the
    vault was loaded), nothing is silenced.
    """
    try:
        if source.stat().st_size > _MAX_SOURCE_BYTES:
            return _nothing_silenced
        document = source.read_bytes().decode("utf-8", "replace")
    except OSError:
        return _nothing_silenced
    scopes = ignore_scopes(document)
    if not scopes:
        return _nothing_silenced
    try:
        root = yaml.compose(document, Loader=YAML_LOADER)
    except yaml.YAMLError:
        return _nothing_silenced
    node = node_at(root, NAPKIN_FIELD) if root is not None else None
    if not isinstance(node, yaml.ScalarNode) or not isinstance(node.value, str):
        return _nothing_silenced
    raw: str = node.value
    if strip_ignore_marks(raw) != shown_text:
        return _nothing_silenced
    by_shown_line: dict[int, set[str]] = {}
    shown_line = 0
    for raw_line, line in enumerate(raw.splitlines(), 1):
        if IGNORE_COMMENT.search(line) is not None and not strip_ignore_marks(line).strip():
            continue  # a line holding only a marker is not shown at all
        shown_line += 1
        file_line, _ = yaml_line(document, node, raw, raw_line)
        codes = silenced_codes(scopes, file_line)
        if codes:
            by_shown_line[shown_line] = codes
    return lambda line: by_shown_line.get(line, set())
