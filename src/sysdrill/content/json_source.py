"""Read JSON shared files (StaffML's ``chains.json``) and find the lines of their fields.

JSON is YAML, but the YAML road is about a hundred times slower than the standard
library's JSON parser on a StaffML-sized ``chains.json`` (about 1 MB;
``bench/chains_json_bench.py`` prints both). Line numbers are found lazily as for
YAML: :class:`JsonLocator` scans each container once, the first time a finding
needs a field inside it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.yaml_source import decode_text

__all__ = ["JsonLocator", "parse_json"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def parse_json(data: bytes, rel: str) -> tuple[Any, list[Finding]]:
    """Parse one JSON file's bytes, turning every failure into a finding.

    Args:
        data: The file's bytes.
        rel: Path used in findings.

    Returns:
        The parsed data (None on failure) and the findings (``file-not-text`` or
        ``json-syntax``).
    """
    text, findings = decode_text(data, rel)
    if text is None:
        return None, findings
    try:
        return json.loads(text), findings
    except json.JSONDecodeError as exc:
        line, column, problem = exc.lineno, exc.colno, exc.msg
    except RecursionError:
        line, column, problem = 0, 0, "nested too deeply"
    return None, [
        Finding(
            "json-syntax",
            Severity.ERROR,
            rel,
            line,
            column,
            f"invalid JSON: {problem}",
            "fix the JSON at the given line and column",
        )
    ]


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


class JsonLocator:
    """Finds the lines of fields in one JSON file, reading it on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._text: str | None = None
        self._read = False
        self._children: dict[int, dict[str | int, tuple[int, int]]] = {}
        """Container start offset -> each child's (mark offset, value offset)."""

    def _source(self) -> str | None:
        if not self._read:
            self._read = True
            try:
                self._text = self.path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                self._text = None
        return self._text

    def _members(self, text: str, start: int) -> dict[str | int, tuple[int, int]]:
        found = self._children.get(start)
        if found is not None:
            return found
        found = {}
        closing = "}" if text[start] == "{" else "]"
        pos, index = _skip_space(text, start + 1), 0
        while pos < len(text) and text[pos] != closing:
            mark = pos
            key: str | int = index
            if closing == "}":
                name, pos = _DECODER.raw_decode(text, pos)
                key = str(name)
                pos = _skip_space(text, _skip_space(text, pos) + 1)  # past the colon
            value_start = pos
            _, pos = _DECODER.raw_decode(text, pos)
            found.setdefault(key, (mark, value_start))
            pos = _skip_space(text, pos)
            if pos < len(text) and text[pos] == ",":
                pos = _skip_space(text, pos + 1)
            index += 1
        self._children[start] = found
        return found

    def locate(self, loc: Sequence[str | int], *, needle: str | None = None) -> tuple[int, int]:
        """Line and column (1-based) of the field at ``loc``, or of its nearest parent.

        ``needle`` is accepted for the same call as :class:`~sysdrill.content.loader.Locator`
        and ignored. An unreadable or invalid file gives (1, 1).
        """
        text = self._source()
        if not text:
            return 1, 1
        try:
            offset = best = _skip_space(text, 0)
            for part in loc:
                if offset >= len(text) or text[offset] not in "{[":
                    break
                is_object = text[offset] == "{"
                hit = self._members(text, offset).get(str(part) if is_object else part)
                if hit is None:
                    break
                best, offset = hit
        except (ValueError, IndexError, RecursionError):
            return 1, 1
        line_start = text.rfind("\n", 0, best) + 1
        return text.count("\n", 0, best) + 1, best - line_start + 1
