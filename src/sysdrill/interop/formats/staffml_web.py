"""StaffML YAML copied from a web code viewer, with its indentation flattened.

A copy from a code viewer starts with page chrome (commit message, "52 lines
3.0 KiB YAML", banners) and loses every leading space: the children of
``details`` and ``human_reviewed`` and the lines of ``|`` block scalars all
start at column 0. The structure is rebuilt from the known field names of the
schema: a line ``name: value`` whose name is a field of the enclosing mapping
is a field; anything else belongs to the value above it. A block scalar runs
until the next line that names a known field at the top level or in its parent
mapping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sysdrill.content.models import Details, HumanReview, Item, ItemSource, Visual
from sysdrill.errors import ImportFailed
from sysdrill.interop.formats.staffml import items_from_mappings, load_yaml_text
from sysdrill.interop.source import ImportNote, ParsedSource
from sysdrill.interop.text import read_source_text

__all__ = ["read_staffml_web", "rebuild_yaml"]

_TOP_FIELDS = frozenset(Item.model_fields)
_CHILD_FIELDS: dict[str, frozenset[str]] = {
    "details": frozenset(Details.model_fields),
    "human_reviewed": frozenset(HumanReview.model_fields),
    "source": frozenset(ItemSource.model_fields),
    "visual": frozenset(Visual.model_fields),
}
_LIST_ITEM_FIELDS: dict[str, frozenset[str]] = {
    "resources": frozenset({"name", "url"}),
    "parts": frozenset({"label", "text", "answer"}),
    "chains": frozenset({"id", "chain", "chain_id", "position", "name", "title"}),
}
_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*)|[ \t]*)$")
_UNKNOWN_KEY = re.compile(r"^[a-z_][a-z0-9_]*$")
_START = re.compile(r"^(?:schema_version|id):[ \t]*\S", re.MULTILINE)


@dataclass
class _Rebuilder:
    """State of the line-by-line rebuild."""

    out: list[str] = field(default_factory=list)
    origin: list[int] = field(default_factory=list)
    """Source line (1-based) of each output line, for error messages."""
    parent: str | None = None
    list_key: str | None = None
    list_indent: str = ""
    list_item_open: bool = False
    block: list[tuple[str, int]] | None = None
    block_indent: str = ""
    block_parent: str | None = None
    quote: str | None = None
    quote_indent: str = ""
    guessed: list[int] = field(default_factory=list)

    def emit(self, text: str, line: int) -> None:
        self.out.append(text)
        self.origin.append(line)

    def flush_block(self) -> None:
        if self.block is None:
            return
        lines = self.block
        while lines and not lines[-1][0].strip():
            lines.pop()
        content = [text for text, _ in lines if text.strip()]
        margin = min((len(t) - len(t.lstrip(" ")) for t in content), default=0)
        for text, line in lines:
            self.emit(self.block_indent + text[margin:] if text.strip() else "", line)
        self.block = None

    def ends_block(self, stripped: str) -> bool:
        """Whether a line ends the open block scalar: it names a field of an enclosing mapping."""
        in_item = self.list_item_open and stripped.startswith("- ")
        match = _KEY.match(stripped[2:] if in_item else stripped)
        if match is None:
            return False
        name = match.group(1)
        if in_item:
            # "- label: b" starts the next item of the list the block sits in.
            return name in _LIST_ITEM_FIELDS.get(self.list_key or "", frozenset())
        if name in _TOP_FIELDS:
            return True
        if name in _LIST_ITEM_FIELDS.get(self.list_key or "", frozenset()) and self.list_item_open:
            return True
        return self.block_parent is not None and name in _CHILD_FIELDS[self.block_parent]

    def field_line(self, name: str, rest: str, line: int) -> None:
        item_fields = _LIST_ITEM_FIELDS.get(self.list_key or "", frozenset())
        in_item = self.list_item_open and name in item_fields
        if in_item:
            indent = self.list_indent + "  "
            owner = self.parent
        elif self.parent is not None and name in _CHILD_FIELDS[self.parent]:
            indent, owner = "  ", self.parent
            self.list_key = None
        elif name in _TOP_FIELDS:
            indent, owner = "", None
            self.parent = self.list_key = None
        elif self.parent == "details":
            # An unknown field inside details is more likely a child (a newer
            # answer section) than a top-level field.
            indent, owner = "  ", self.parent
            self.guessed.append(line)
        else:
            indent, owner = "", None
            self.parent = self.list_key = None
            self.guessed.append(line)
        self.list_item_open = in_item
        if not rest:
            if owner is None and name in _CHILD_FIELDS:
                self.parent = name
            else:
                self.list_key, self.list_indent = name, indent + "  "
        elif rest[0] in "|>":
            self.block, self.block_indent, self.block_parent = [], indent + "  ", owner
        elif rest[0] in "'\"" and not _closes(rest):
            self.quote, self.quote_indent = rest[0], indent + "  "
        self.emit(f"{indent}{name}:" + (f" {rest}" if rest else ""), line)

    def feed(self, raw: str, line: int) -> None:
        text = raw.rstrip()
        stripped = text.strip()
        match = _KEY.match(stripped)
        if self.block is not None:
            if not self.ends_block(stripped):
                self.block.append((text, line))
                return
            self.flush_block()
        if self.quote is not None:
            self.emit(self.quote_indent + stripped, line)
            if _closes(self.quote + " " + stripped, opened=True):
                self.quote = None
            return
        if not stripped:
            self.emit("", line)
        elif stripped.startswith("#"):
            self.emit(stripped, line)
        elif match and (
            match.group(1) in _TOP_FIELDS
            or _UNKNOWN_KEY.match(match.group(1))
            or self._is_known(match.group(1))
        ):
            self.field_line(match.group(1), (match.group(2) or "").strip(), line)
        elif stripped == "-" or stripped.startswith("- "):
            indent = self.list_indent if self.list_key else "  "
            self.emit(indent + stripped, line)
            self.list_item_open = bool(_KEY.match(stripped[2:].strip()))
        else:
            # A plain scalar continued on the next line: indent it under its key.
            depth = "    " if self.parent else "  "
            self.emit(depth + stripped, line)

    def _is_known(self, name: str) -> bool:
        if self.parent is not None and name in _CHILD_FIELDS[self.parent]:
            return True
        return name in _LIST_ITEM_FIELDS.get(self.list_key or "", frozenset())


def _closes(value: str, *, opened: bool = False) -> bool:
    """Whether a quoted scalar that starts ``value`` also ends in it."""
    quote = value[0]
    body = value[1:]
    if quote == "'":
        body = body.replace("''", "")
        return "'" in body
    escaped = False
    for ch in body:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            return True
    return False


def rebuild_yaml(text: str) -> tuple[str, list[int], int, list[int]]:
    """Rebuild indented YAML from a flattened web copy.

    Args:
        text: The copied page text.

    Returns:
        The rebuilt YAML text, the source line of each of its lines, the number
        of chrome lines dropped before the YAML, and the lines whose field names
        were unknown (placed by guess).

    Raises:
        ImportFailed: If no line starts a StaffML question (``schema_version:`` or ``id:``).
    """
    start = _START.search(text)
    if start is None:
        raise ImportFailed(
            "no StaffML question found (no line starts with 'schema_version:' or 'id:'); "
            "copy the whole file from the viewer, or pass another --format"
        )
    skipped = text.count("\n", 0, start.start())
    state = _Rebuilder()
    for offset, raw in enumerate(text[start.start() :].split("\n")):
        state.feed(raw, skipped + offset + 1)
    state.flush_block()
    return "\n".join(state.out) + "\n", state.origin, skipped, state.guessed


def read_staffml_web(path: Path) -> ParsedSource:
    """Read one StaffML question copied from a web code viewer.

    Args:
        path: The copied text.

    Returns:
        One parsed item keyed by its StaffML id, with a note that its structure
        was rebuilt.

    Raises:
        ImportFailed: If no question is found or the rebuilt YAML does not parse.
    """
    decoded = read_source_text(path)
    rebuilt, origin, skipped, guessed = rebuild_yaml(decoded.text)
    try:
        data = load_yaml_text(rebuilt, path.name)
    except ImportFailed as exc:
        found = re.search(r":(\d+): ", str(exc))
        line = origin[int(found.group(1)) - 1] if found and origin else 0
        raise ImportFailed(
            f"{path.name}:{line}: cannot rebuild the flattened YAML here; fix the "
            "indentation of this line in the copy, or import the original .yaml file "
            "with --format staffml"
        ) from exc
    source = ParsedSource(format="staffml-web", path=str(path))
    first = skipped + 1
    source.notes.append(
        ImportNote(
            f"the source was flattened (copied from a web page): rebuilt its structure "
            f"from the StaffML field names and dropped {skipped} lines of page chrome; "
            "review the imported file",
            f"{path.name}:{first}",
        )
    )
    for line in guessed:
        source.notes.append(
            ImportNote("unknown field name; placed it by guess", f"{path.name}:{line}")
        )
    if decoded.note:
        source.notes.append(ImportNote(decoded.note, path.name))
    items_from_mappings([(data, f"{path.name}:{first}")], source)
    return source
