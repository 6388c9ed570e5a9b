"""The napkin tier of ``sysdrill check``: wrong arithmetic and units in item text.

The check runner calls :func:`napkin_findings` for every item file that validated.
Severities follow the engine's confidence (issue 11): only arithmetic that is
wrong beyond tolerance, with both sides read in the same dimension, is an error.
A unit or prefix doubt, or any verdict this tier does not know (an ambiguous
reading, say), is a warning or info carrying the engine's reason; claims the
engine skips (prose, definitions, unreadable expressions) are not findings
(``sysdrill napkin check FILE`` lists them with their reasons).
"""

from __future__ import annotations

import re

import yaml

from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.loader import ItemFile
from sysdrill.napkin.claims import doubtful_claims
from sysdrill.napkin.filecheck import YAML_LOADER, item_fields, node_at, yaml_line
from sysdrill.napkin.results import Verdict

__all__ = ["RULES", "napkin_findings", "rule_code", "severity_of"]

RULES: dict[str, tuple[Severity, str, str]] = {
    "napkin-arithmetic": (
        Severity.ERROR,
        "a claim in napkin_math, realistic_solution or an answer does not hold",
        "correct the right-hand side to the computed value, or fix the left-hand side",
    ),
    "napkin-units": (
        Severity.WARNING,
        "the two sides of a claim seem to have different dimensions (often a unit "
        "left out, such as a per-hour rate)",
        "make both sides the same kind of quantity (e.g. bytes on both sides)",
    ),
    "napkin-prefix-ambiguous": (
        Severity.INFO,
        "a claim holds with 1024-based prefixes but not 1000-based ones, or the reverse",
        "write KiB/MiB/GiB for 1024-based sizes and KB/MB/GB for 1000-based ones",
    ),
    "napkin-unsure": (
        Severity.INFO,
        "the napkin engine read a claim but did not understand it well enough to judge "
        "it (the message gives its reason); silent when unsure",
        "write the claim so that it has one reading: units on both sides, one relation",
    ),
}
"""Rule code -> (severity, meaning, fix)."""


_CODES = {
    Verdict.WRONG: "napkin-arithmetic",
    Verdict.UNIT_MISMATCH: "napkin-units",
    Verdict.PREFIX_AMBIGUOUS: "napkin-prefix-ambiguous",
}
_QUIET = frozenset({Verdict.OK, Verdict.SKIPPED})
_BINARY = re.compile(r"\d\s*[KMGTPE]iB\b")
_DECIMAL = re.compile(r"\d\s*[kKMGTPE]B\b")


def rule_code(verdict: Verdict, *, unsure: bool = False) -> str | None:
    """The rule code a verdict is reported under, or None when it is no finding.

    A verdict the tier does not know (one the engine added later) is a doubt,
    never an error: only :attr:`Verdict.WRONG` is certain enough for that. An
    abstention (a skipped claim the engine read but did not understand) is
    ``napkin-unsure``.
    """
    if unsure:
        return "napkin-unsure"
    if verdict in _QUIET:
        return None
    return _CODES.get(verdict, "napkin-unsure")


def severity_of(code: str, claim: str) -> Severity:
    """The severity of one finding: its rule's, except a prefix mix written out.

    ``16 GB = 16 GiB`` writes a decimal and a binary prefix in one claim and equates
    them: that is a confusion to fix (warning), where a 1024-based figure written
    with a decimal symbol alone (``32,768 B = 32 KB``) is a note.
    """
    severity = RULES[code][0]
    if code == "napkin-prefix-ambiguous" and _BINARY.search(claim) and _DECIMAL.search(claim):
        return Severity.WARNING
    return severity


def _texts(loaded: ItemFile) -> list[tuple[tuple[str | int, ...], str]]:
    if isinstance(loaded.raw, dict):
        return item_fields(loaded.raw)
    assert loaded.item is not None
    return item_fields(loaded.item.model_dump(mode="json"))


def napkin_findings(loaded: ItemFile) -> list[Finding]:
    """Check the claims in one validated item file.

    The checked fields are ``details.napkin_math``, ``details.realistic_solution``
    and each part's ``answer``.

    Args:
        loaded: An item file whose ``item`` validated.

    Returns:
        One finding per wrong claim (an error) and per doubt (a unit mismatch, a
        prefix ambiguity, an unsure reading: warning or info), with the line of
        the claim in the YAML file.
    """
    if loaded.item is None or loaded.item.is_template:
        # A template's text holds placeholders; ``template-draw`` checks its draws.
        return []
    findings: list[Finding] = []
    document: str | None = None
    root: yaml.Node | None = None
    for loc, text in _texts(loaded):
        for verdict in doubtful_claims(text):
            code = rule_code(verdict.verdict, unsure=verdict.unsure)
            if code is None:
                continue
            if document is None:
                document = loaded.text if loaded.text is not None else _read(loaded)
                root = _compose(document)
            node = node_at(root, loc) if root is not None else None
            line, column = yaml_line(document, node, text, verdict.line, verdict.column)
            _, _, fix = RULES[code]
            severity = severity_of(code, verdict.claim)
            field = ".".join(str(part) for part in loc)
            if verdict.verdict is Verdict.WRONG:
                # The message quotes both sides: "expected 4 GB from 2 * 2 GB; the
                # line says 5 GB".
                message = f"{field}: {verdict.message}"
            else:
                message = f"{field}: '{verdict.claim}': {verdict.message}"
            if verdict.verdict is Verdict.WRONG and verdict.suggestion:
                fix = f"write: {verdict.suggestion}"
            findings.append(Finding(code, severity, loaded.rel, line, column, message, fix))
    return findings


def _read(loaded: ItemFile) -> str:
    try:
        return loaded.path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _compose(document: str) -> yaml.Node | None:
    try:
        node: yaml.Node | None = yaml.compose(document, Loader=YAML_LOADER)
    except yaml.YAMLError:
        return None
    return node
