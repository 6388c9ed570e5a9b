"""Read YAML item text: a fast road, a careful road, and lazy line lookup.

The fast road reads a file with ``yaml_rs`` (a Rust YAML parser, about eight
times faster than libyaml's loader on item files; see docs/benchmarks.md),
which also rejects duplicate keys and aliases. Files that need libyaml's finer
reporting take the careful road: those the fast parser rejects, those a cheap
text test suspects of anchors or tags, and top-level lists (which the fast
parser does not tell apart from several documents). The careful road scans
libyaml events (duplicate keys, anchors, aliases, nesting depth, several
documents, each with its line) and then loads with libyaml's safe loader.
Both roads agree on the data of ordinary item files; on YAML 1.1 oddities
(``yes``/``no`` as booleans) libyaml's reading wins only on the careful road.

:class:`Locator` re-reads a file as a libyaml node tree only when a finding
needs the line of a field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from sysdrill.content.diagnostics import Finding, Severity

__all__ = [
    "MAX_DEPTH",
    "PARSER",
    "SAFE_LOADER",
    "Locator",
    "decode_text",
    "locate",
    "parse_text",
    "parse_yaml",
]

try:
    SAFE_LOADER: Any = yaml.CSafeLoader
    """PyYAML's safe loader, the libyaml C one where PyYAML was built with it."""
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    SAFE_LOADER = yaml.SafeLoader
_Loader = SAFE_LOADER

MAX_DEPTH = 50
"""Deepest nesting of mappings and sequences accepted in one file."""

_yaml_rs: Any = None
_NO_ALIASES: Any = None
_FAST_ERRORS: tuple[type[Exception], ...] = ()
PARSER = "libyaml"
"""The parser of the fast road (part of cache keys: another parser starts afresh)."""
try:
    import yaml_rs

    _yaml_rs = yaml_rs
    _FAST_ERRORS = (yaml_rs.YAMLDecodeError, ValueError)
    _NO_ALIASES = yaml_rs.AliasLimits(max_total_replayed_events=0)
    PARSER = f"yaml_rs {yaml_rs.__version__}"
except ImportError:  # pragma: no cover - the fast parser is a declared dependency
    pass

# Constructs the fast parser treats differently from libyaml's safe loader, or
# that we reject and must locate: anchors `&a` and tags `!x` (aliases `*a` the
# fast parser is told to reject). YAML reads `&` and `!`
# as syntax only after a space or a flow indicator and before a name, so prose
# such as "Assumptions & Constraints" or "R&D" stays on the fast road. Plain
# `str.find` loops beat a regex here: the characters are rare.
_SYNTAX_BEFORE = frozenset(" \t\n[{,")
_NOT_A_NAME = frozenset(" \t\r\n&!=,[]{}")


def _needs_careful_road(text: str) -> bool:
    at = text.find("&")
    while at >= 0:
        after = text[at + 1 : at + 2]
        if (at == 0 or text[at - 1] in _SYNTAX_BEFORE) and after and after not in _NOT_A_NAME:
            return True
        at = text.find("&", at + 1)
    # Any tag (`!x`, `!!str`, a lone `!`) after a space: prose rarely has one.
    at = text.find("!")
    while at >= 0:
        if at == 0 or text[at - 1] in _SYNTAX_BEFORE:
            return True
        at = text.find("!", at + 1)
    return False


# Nesting deeper than MAX_DEPTH needs flow brackets, indentation or compact
# "- - -" runs adding up to that depth, so at least half of it comes from one of
# them; files with none of the three, the common case, skip the depth walk.
_HALF_DEPTH = MAX_DEPTH // 2
_DEEP_INDENT = "\n" + " " * (_HALF_DEPTH - 2)
_DEEP_DASHES = "- " * (_HALF_DEPTH // 2)


def _may_be_deep(text: str) -> bool:
    return (
        text.count("[") + text.count("{") > _HALF_DEPTH
        or _DEEP_INDENT in text
        or _DEEP_DASHES in text
    )


def _data_depth(data: Any) -> int:
    """Deepest nesting of mappings and lists in parsed data (a scalar is depth 0)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > MAX_DEPTH:
            return depth
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


def _flow_too_deep(text: str) -> tuple[int, int] | None:
    """Line and column of the first flow bracket nested deeper than MAX_DEPTH.

    Parsers differ in how far they look ahead inside flow collections before
    their own limits fire (libyaml stops at 1,000 levels, at whatever column
    that is), so our limit is found in the text, before any parser runs. Quoted
    scalars and comments are skipped; block scalars are not told apart, which can
    only over-count brackets in prose, and a false alarm here needs more than
    fifty unclosed brackets.
    """
    depth = 0
    for number, line in enumerate(text.split("\n"), start=1):
        quote = ""
        previous = " "
        for column, char in enumerate(line, start=1):
            if quote:
                if char == quote and previous != "\\":
                    quote = ""
            elif char == "#" and previous in " \t":
                break
            elif char in "'\"" and previous in " \t[{,:":
                quote = char
            elif char in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    return number, column
            elif char in "]}":
                depth = max(depth - 1, 0)
            previous = char
    return None


def _depth_finding(rel: str, line: int, column: int) -> Finding:
    return _finding(
        "yaml-syntax",
        rel,
        f"nesting deeper than {MAX_DEPTH} levels",
        "flatten the structure; an item needs only a few levels",
        line=line,
        column=column,
    )


def _finding(
    code: str,
    rel: str,
    message: str,
    fix: str,
    *,
    line: int = 0,
    column: int = 0,
    severity: Severity = Severity.ERROR,
) -> Finding:
    return Finding(code, severity, rel, line, column, message, fix)


def _scan_events(text: str, rel: str) -> list[Finding]:
    """Find duplicate keys, anchors, aliases and deep nesting from libyaml events."""
    found: list[Finding] = []
    # One frame per open collection: [is_mapping, expecting_key, keys seen].
    stack: list[list[Any]] = []
    documents = 0
    for event in yaml.parse(text, Loader=_Loader):
        mark: Any = event.start_mark
        anchor = getattr(event, "anchor", None)
        if isinstance(event, yaml.AliasEvent) or anchor:
            sign = "*" if isinstance(event, yaml.AliasEvent) else "&"
            found.append(
                _finding(
                    "yaml-anchor",
                    rel,
                    f"{'alias' if sign == '*' else 'anchor'} {sign}{anchor} is not allowed",
                    "write the value out in full instead of using anchors and aliases",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            )
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents == 2:
                found.append(
                    _finding(
                        "yaml-syntax",
                        rel,
                        "file holds more than one YAML document",
                        "keep one item a file and remove the `---` separators",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                )
            continue
        is_key = bool(stack) and stack[-1][0] and stack[-1][1]
        if stack and stack[-1][0]:
            stack[-1][1] = not stack[-1][1]
        if isinstance(event, yaml.ScalarEvent) and is_key:
            seen: set[str] = stack[-1][2]
            if event.value in seen:
                found.append(
                    _finding(
                        "yaml-duplicate-key",
                        rel,
                        f"key '{event.value}' appears twice in one mapping",
                        "remove or rename one of the two keys (YAML would keep only the last)",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                )
            seen.add(event.value)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            stack.append([isinstance(event, yaml.MappingStartEvent), True, set()])
            if len(stack) > MAX_DEPTH:
                found.append(_depth_finding(rel, mark.line + 1, mark.column + 1))
                return found
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            stack.pop()
    return found


def _parse_careful(text: str, rel: str) -> tuple[Any, list[Finding]]:
    if _may_be_deep(text) and (at := _flow_too_deep(text)) is not None:
        return None, [_depth_finding(rel, *at)]
    try:
        found = _scan_events(text, rel)
        if any(f.code == "yaml-syntax" for f in found):
            return None, found
        return yaml.load(text, Loader=_Loader), found  # noqa: S506 - safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        return None, [
            _finding(
                "yaml-syntax",
                rel,
                f"invalid YAML: {problem}",
                "fix the YAML syntax at this position",
                line=mark.line + 1 if mark else 0,
                column=mark.column + 1 if mark else 0,
            )
        ]
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        return None, [
            _finding("yaml-syntax", rel, f"invalid YAML: {exc}", "simplify the YAML structure")
        ]


def decode_text(data: bytes, rel: str) -> tuple[str | None, list[Finding]]:
    """Decode a file's bytes as UTF-8 (a byte-order mark is dropped).

    Returns:
        The text, or None with a ``file-not-text`` finding for binary or non-UTF-8 bytes.
    """
    if b"\x00" in data:
        return None, [
            _finding(
                "file-not-text",
                rel,
                "file is binary, not YAML text",
                "remove the file or replace it with a UTF-8 YAML item",
                line=1,
                column=1,
            )
        ]
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        return None, [
            _finding(
                "file-not-text",
                rel,
                f"bytes at offset {exc.start} are not UTF-8",
                "save the file as UTF-8",
                line=data[: exc.start].count(b"\n") + 1,
                column=exc.start - line_start + 1,
            )
        ]


def parse_text(text: str, rel: str) -> tuple[Any, list[Finding]]:
    """Parse YAML text by the fast road, or the careful one when needed (see module doc).

    Returns:
        The data (None after a ``yaml-syntax`` finding) and the findings.
    """
    if _yaml_rs is not None and not _needs_careful_road(text):
        try:
            data = _yaml_rs.loads(
                text,
                parse_datetime=False,
                alias_limits=_NO_ALIASES,
                duplicate_key_policy=_yaml_rs.DuplicateKeyPolicy.Error,
            )
        except _FAST_ERRORS:
            pass  # libyaml says where and why
        else:
            # A list may be several documents, which the fast parser does not tell
            # apart from a top-level sequence.
            # The fast parser's own depth limit is not ours: deeper data is
            # located on the careful road.
            if not isinstance(data, list) and not (
                _may_be_deep(text) and _data_depth(data) > MAX_DEPTH
            ):
                return data, []
    return _parse_careful(text, rel)


def parse_yaml(data: bytes, rel: str) -> tuple[Any, list[Finding]]:
    """Parse one file's bytes into Python objects, turning every failure into a finding.

    Args:
        data: The file's bytes.
        rel: Path used in findings.

    Returns:
        The parsed data (None on failure) and the findings.
    """
    text, findings = decode_text(data, rel)
    if text is None:
        return None, findings
    return parse_text(text, rel)


class Locator:
    """Finds the lines of fields in one YAML file, parsing it on first use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._text: str | None = None
        self._node: yaml.Node | None = None
        self._parsed = False

    def _root(self) -> yaml.Node | None:
        if not self._parsed:
            self._parsed = True
            try:
                self._text = self.path.read_bytes().decode("utf-8")
                self._node = yaml.compose(self._text, Loader=_Loader)
            except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
                self._node = None
        return self._node

    def node(self, loc: Sequence[str | int]) -> tuple[yaml.Node | None, yaml.Mark | None]:
        """The node at ``loc`` (None if missing) and the mark of its nearest existing part."""
        node = self._root()
        if node is None:
            return None, None
        best = node.start_mark
        for part in loc:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key_node, value_node in node.value:
                    if key_node.value == str(part):
                        best = key_node.start_mark
                        child = value_node
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
                    best = child.start_mark
            if child is None:
                return None, best
            node = child
        return node, best

    def locate(self, loc: Sequence[str | int], *, needle: str | None = None) -> tuple[int, int]:
        """Line and column (1-based) of the field at ``loc``.

        Args:
            loc: Field path, such as ``("details", "options", 2)``.
            needle: Text inside the field's string value to point at instead of
                the field itself (for example a marker in a block scalar).

        Returns:
            The position; a missing field gives its nearest existing parent, an
            unreadable file (1, 1).
        """
        node, best = self.node(loc)
        if best is None:
            return 1, 1
        if needle and isinstance(node, yaml.ScalarNode) and self._text is not None:
            start, end = node.start_mark.index, node.end_mark.index
            index = self._text.find(needle, start, end)
            if index < 0 and len(needle) > 12:
                index = self._text.find(needle[:12], start, end)
            if index >= 0:
                line_start = self._text.rfind("\n", 0, index) + 1
                return self._text.count("\n", 0, index) + 1, index - line_start + 1
        return best.line + 1, best.column + 1


def locate(path: Path, loc: Sequence[str | int]) -> tuple[int, int]:
    """Find the 1-based line and column of a field path in a YAML file.

    Falls back to the nearest existing parent (a missing field reports the line
    of its parent mapping), and to (1, 1) when the file cannot be read.
    """
    return Locator(path).locate(loc)
