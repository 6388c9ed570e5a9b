"""Check the claims of a whole document: plain text, or one vault item file (YAML).

For an item file the checked fields are ``details.napkin_math``,
``details.realistic_solution`` and each part's ``answer``; verdict line numbers
are mapped back to lines of the YAML file (a literal block's content starts on
the line after its key).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from sysdrill.content.yaml_source import SAFE_LOADER
from sysdrill.errors import ContentInvalid
from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.results import ClaimVerdict, Verdict

__all__ = [
    "YAML_LOADER",
    "DocumentClaims",
    "FieldVerdict",
    "check_document",
    "item_fields",
    "node_at",
    "yaml_line",
]

MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
"""Largest document checked, in bytes."""

YAML_LOADER: Any = SAFE_LOADER


@dataclass(frozen=True, slots=True)
class FieldVerdict:
    """A verdict with the field it came from and its line in the document.

    Attributes:
        field: Dotted field path (``details.napkin_math``), ``""`` for plain text.
        verdict: The verdict; its ``line`` is the document's line.
    """

    field: str
    verdict: ClaimVerdict


@dataclass(slots=True)
class DocumentClaims:
    """Every verdict in one document and a tally by verdict."""

    source: str
    kind: str
    """``"text"`` or ``"item"``."""
    verdicts: list[FieldVerdict] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        """Number of verdicts of each kind, every kind present (0 when none)."""
        tally = Counter(v.verdict.verdict.value for v in self.verdicts)
        return {kind.value: tally.get(kind.value, 0) for kind in Verdict}

    @property
    def has_errors(self) -> bool:
        """Whether any claim is wrong or mixes dimensions."""
        return any(
            v.verdict.verdict in (Verdict.WRONG, Verdict.UNIT_MISMATCH) for v in self.verdicts
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON shape: ``{source, kind, counts, claims: [{field, ...verdict}]}``."""
        return {
            "source": self.source,
            "kind": self.kind,
            "counts": self.counts,
            "claims": [{"field": v.field, **v.verdict.to_dict()} for v in self.verdicts],
        }


def item_fields(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """The checked text fields of a raw item mapping, as ``(path, text)``."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    details = data.get("details")
    if isinstance(details, dict):
        for key in ("napkin_math", "realistic_solution"):
            value = details.get(key)
            if isinstance(value, str):
                found.append((("details", key), value))
    parts = data.get("parts")
    if isinstance(parts, list):
        for index, part in enumerate(parts):
            if isinstance(part, dict) and isinstance(part.get("answer"), str):
                found.append((("parts", index, "answer"), part["answer"]))
    return found


def node_at(root: yaml.Node, loc: tuple[str | int, ...]) -> yaml.Node | None:
    """The node at a field path in a composed YAML document (None when missing)."""
    node: yaml.Node | None = root
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == str(part)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else None
        else:
            return None
    return node


def yaml_line(
    document: str,
    node: yaml.Node | None,
    field_text: str,
    line_in_field: int,
    column_in_line: int = 1,
) -> tuple[int, int]:
    """Where a position inside a scalar field is in the YAML document.

    Args:
        document: The YAML text.
        node: The field's scalar node (None when it could not be found).
        field_text: The field's value.
        line_in_field: 1-based line within the value.
        column_in_line: 1-based column within that line of the value.

    Returns:
        The 1-based line and column in the document.
    """
    if node is None:
        return 1, 1
    lines = field_text.splitlines()
    text_line = lines[line_in_field - 1] if line_in_field <= len(lines) else ""
    if isinstance(node, yaml.ScalarNode) and node.style == "|":
        # A literal block's content starts on the line after its key.
        line = node.start_mark.line + 1 + line_in_field
        starts = document.split("\n", line)[line - 1] if line > 0 else ""
        indent = len(starts) - len(starts.lstrip(" "))
        return line, indent + column_in_line
    stripped = text_line.strip()
    needle = stripped[:40]
    if needle:
        index = document.find(needle, node.start_mark.index, node.end_mark.index)
        if index >= 0:
            leading = len(text_line) - len(text_line.lstrip())
            index = _advance(
                document,
                index,
                stripped[: max(0, column_in_line - 1 - leading)],
                node.end_mark.index,
            )
            line_start = document.rfind("\n", 0, index) + 1
            return document.count("\n", 0, index) + 1, index - line_start + 1
    return node.start_mark.line + 1, node.start_mark.column + 1


def _advance(document: str, index: int, passed: str, end: int) -> int:
    r"""The index in ``document`` reached by reading ``passed`` from ``index`` on.

    A quoted or folded scalar's value line may run over several lines of the file,
    with a line break, indentation and escapes (``\``) in between that the value does
    not hold: those are stepped over, so a claim late in a long line is found on the
    file line it is written on.
    """
    for char in passed:
        while index < end and document[index] != char:
            index += 1
        index += 1
    return min(index, end)


def _looks_like_item(data: Any) -> bool:
    return isinstance(data, dict) and ("details" in data or "parts" in data or "id" in data)


def check_document(text: str, *, source: str, as_yaml: bool | None = None) -> DocumentClaims:
    """Check the claims of a document.

    Args:
        text: The document's text.
        source: Its name for reports (a path, or ``-`` for standard input).
        as_yaml: Read it as a vault item file; by default when ``source`` ends in
            ``.yaml``/``.yml``, or the text parses as an item mapping.

    Returns:
        The verdicts, with line numbers in the document.

    Raises:
        ContentInvalid: A ``.yaml`` document that is not valid YAML, or too large.
    """
    if len(text.encode("utf-8", "replace")) > MAX_DOCUMENT_BYTES:
        raise ContentInvalid(
            f"{source}: larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB; split it up"
        )
    is_yaml_name = source.endswith((".yaml", ".yml"))
    data: Any = None
    if as_yaml is not False and (is_yaml_name or as_yaml):
        try:
            data = yaml.load(text, Loader=YAML_LOADER)  # noqa: S506 - safe loader
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f":{mark.line + 1}" if mark is not None else ""
            raise ContentInvalid(
                f"{source}{where}: invalid YAML ({exc.problem}); fix the YAML or check it "
                "as plain text with --text"
            ) from None
        except yaml.YAMLError as exc:
            raise ContentInvalid(f"{source}: invalid YAML ({exc}); fix the YAML") from None
    if not _looks_like_item(data):
        result = DocumentClaims(source, "text")
        result.verdicts = [FieldVerdict("", v) for v in check_claims(text)]
        return result
    result = DocumentClaims(source, "item")
    root = yaml.compose(text, Loader=YAML_LOADER)
    for loc, field_text in item_fields(data):
        node = node_at(root, loc) if root is not None else None
        dotted = ".".join(str(part) for part in loc)
        for verdict in check_claims(field_text):
            line, column = yaml_line(text, node, field_text, verdict.line, verdict.column)
            result.verdicts.append(FieldVerdict(dotted, replace(verdict, line=line, column=column)))
    result.verdicts.sort(key=lambda v: (v.verdict.line, v.verdict.column))
    return result
