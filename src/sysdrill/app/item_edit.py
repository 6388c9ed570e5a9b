"""Edit one item's text and write its YAML file back, checked before anything is written.

``sysdrill item edit`` and the item page's Edit form call these functions. An
edit is either a whole new text for the file (what ``$EDITOR`` gives back) or
new values for some of :data:`EDITABLE_FIELDS` (what the form and ``--set``
give); the latter replaces only those keys' values in the text, so every
other line, comment (``# sysdrill: ignore[...]`` included) and the key order
stay as they were.

The new text is audited as ``sysdrill check`` audits the file (loader, item
rules, napkin tier, ignore comments honoured). An edit that brings in an
error-severity finding the file did not have is refused with every such
finding, and the file is left untouched; otherwise the text replaces the file
atomically (a temporary file beside it, then ``os.replace``). Readers that
cache the vault (the catalogue, the web app's loaded vault) notice the file's
new size and mtime and read it again.

Bundled vaults (the starter vault) are never written: they are shipped inside
the package and shared by every user of the installation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sysdrill.app.study_vault import StudyVault
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.sample import is_bundled_vault
from sysdrill.errors import ContentInvalid, UsageError

__all__ = [
    "EDITABLE_FIELDS",
    "EditableItem",
    "SavedEdit",
    "edit_refusal",
    "editable_item",
    "save_item_fields",
    "save_item_text",
    "with_fields",
]

EDITABLE_FIELDS: dict[str, tuple[tuple[str, ...], str]] = {
    "title": (("title",), "Title"),
    "scenario": (("scenario",), "Scenario"),
    "question": (("question",), "Question (the front)"),
    "realistic_solution": (("details", "realistic_solution"), "Model answer (the back)"),
    "common_mistake": (("details", "common_mistake"), "Common mistake"),
    "napkin_math": (("details", "napkin_math"), "Napkin math"),
}
"""Each editable field: its keys in the item file, and its label for people."""


@dataclass(frozen=True, slots=True)
class EditableItem:
    """An item's file as an edit starts from it."""

    item_id: str
    title: str
    path: Path
    text: str
    """The file's text as it is now."""
    fields: dict[str, str]
    """The value of each of :data:`EDITABLE_FIELDS` ("" when absent)."""


@dataclass(frozen=True, slots=True)
class SavedEdit:
    """What an accepted edit did."""

    item_id: str
    path: Path
    changed: bool
    """False when the new text equals the old one (nothing was written)."""
    warnings: tuple[str, ...]
    """Findings below error severity in the new text, one line each."""

    @property
    def message(self) -> str:
        """One line for the learner."""
        if not self.changed:
            return f"No change to {self.item_id}: the file is as it was."
        return f"Saved {self.item_id} ({self.path.name}); check finds no error in it."


def edit_refusal(vault: StudyVault, item_id: str) -> str | None:
    """Why the item's text cannot be edited here, or None when it can.

    Raises:
        QuestionNotFound: If the vault has no such item.
    """
    from sysdrill.app.item_actions import find_item

    find_item(vault, item_id)
    if item_id not in vault.files:
        return (
            f"Item '{item_id}' comes from a personal deck, which is kept in the study "
            "database, not in a file; import the deck again to change it."
        )
    if is_bundled_vault(vault.root):
        return (
            "The bundled starter vault is shared by every user of this installation and "
            "is never edited; edit items in a vault of your own."
        )
    return None


def editable_item(vault: StudyVault, item_id: str) -> EditableItem:
    """The item's file and its editable fields.

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If the item cannot be edited (see :func:`edit_refusal`).
    """
    reason = edit_refusal(vault, item_id)
    if reason is not None:
        raise UsageError(reason)
    path = vault.files[item_id]
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    item = vault.by_id[item_id]
    return EditableItem(
        item_id=item_id,
        title=item.title or item_id,
        path=path,
        text=text,
        fields={name: _value_at(raw, keys) for name, (keys, _) in EDITABLE_FIELDS.items()},
    )


def _value_at(raw: Any, keys: tuple[str, ...]) -> str:
    node = raw
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return ""
        node = node[key]
    return "" if node is None else str(node)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _entry(key: str, value: str, indent: int) -> str:
    """``key: value`` as YAML lines at ``indent`` spaces, ending with a line break."""
    from sysdrill.interop.vault_writer import dump_yaml

    pad = " " * indent
    dumped = dump_yaml({key: value})
    if dumped.endswith("...\n"):  # a kept final line break ends the document with "..."
        dumped = dumped[: -len("...\n")]
    return "".join(pad + line if line.strip() else line for line in dumped.splitlines(True))


def _mapping_pairs(node: yaml.Node) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise ContentInvalid("the item file's top level is not a mapping of fields")
    return list(node.value)


def _replace(text: str, keys: tuple[str, ...], value: str) -> str:
    """``text`` with the value at ``keys`` replaced (or added), every other line kept."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        raise ContentInvalid("the item file is empty")
    starts = _line_starts(text)
    node: yaml.Node = root
    indent = 0
    for depth, key in enumerate(keys):
        pairs = _mapping_pairs(node)
        found = next((pair for pair in pairs if getattr(pair[0], "value", None) == key), None)
        inner = keys[depth + 1 :]
        if found is None:
            added = _nested(key, inner, value, indent) if inner else _entry(key, value, indent)
            if node is root:  # a new top-level key goes at the end of the file
                return text + ("" if not text or text.endswith("\n") else "\n") + added
            end = _end_offset(text, starts, pairs[-1][1] if pairs else node)
            return text[:end] + added + text[end:]
        key_node, value_node = found
        start = starts[key_node.start_mark.line] + key_node.start_mark.column
        column = key_node.start_mark.column
        empty = not isinstance(value_node, yaml.MappingNode) or not value_node.value
        if not inner or empty:
            # The whole entry is written again: the value itself, or a mapping that
            # was empty (``details:``) with the new key inside.
            entry = _nested(key, inner, value, column) if inner else _entry(key, value, column)
            return text[:start] + entry[column:] + text[_end_offset(text, starts, value_node) :]
        node = value_node
        indent = value_node.value[0][0].start_mark.column
    raise ContentInvalid("no field to edit")  # pragma: no cover - keys is never empty


def _nested(key: str, inner: tuple[str, ...], value: str, indent: int = 0) -> str:
    """``key:`` and the mappings down to ``inner``'s last key holding ``value``."""
    lines = " " * indent + f"{key}:\n"
    for depth, inner_key in enumerate(inner[:-1], 1):
        lines += " " * (indent + 2 * depth) + f"{inner_key}:\n"
    return lines + _entry(inner[-1], value, indent + 2 * len(inner))


def _end_offset(text: str, starts: list[int], node: yaml.Node) -> int:
    """Where the entry holding ``node`` ends: after its line's break, comments kept out."""
    mark = node.end_mark
    if mark.column == 0 or mark.line >= len(starts):
        # A block value ends where the next line begins (or at the end of the text).
        return min(len(text), starts[mark.line] if mark.line < len(starts) else len(text))
    line_end = text.find("\n", starts[mark.line] + mark.column)
    return len(text) if line_end < 0 else line_end + 1


def with_fields(text: str, changes: Mapping[str, str]) -> str:
    """``text`` with the editable fields in ``changes`` set to their new values.

    A blank value of a field the item does not have adds nothing.

    Raises:
        UsageError: For a field that is not editable here.
        ContentInvalid: If the text is not a YAML mapping.
    """
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        raise UsageError(
            f"Cannot edit {', '.join(unknown)}; the editable fields are "
            f"{', '.join(EDITABLE_FIELDS)}."
        )
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ContentInvalid(f"the item file is not valid YAML: {exc}") from exc
    for name, value in changes.items():
        keys = EDITABLE_FIELDS[name][0]
        cleaned = value.replace("\r\n", "\n")
        if _value_at(raw, keys) == cleaned or (not cleaned and not _value_at(raw, keys)):
            continue
        text = _replace(text, keys, cleaned)
        raw = yaml.safe_load(text)
    return text


def _errors(vault: StudyVault, path: Path, text: str) -> tuple[list[Finding], list[Finding]]:
    """The findings check gives ``text`` as the file at ``path``: (errors, the rest)."""
    from sysdrill.check.registry import all_rules, napkin_module
    from sysdrill.check.runner import audit_file
    from sysdrill.check.suppress import ignore_scopes, split_suppressed
    from sysdrill.content.loader import read_item_file

    rel = path.relative_to(vault.root).as_posix()
    loaded = read_item_file(path, rel, data=text.encode("utf-8"))
    findings = [*loaded.findings, *audit_file(loaded, napkin_module().napkin_findings)]
    kept, _ = split_suppressed(vault.root, findings, all_rules(), {rel: ignore_scopes(text)})
    errors = [f for f in kept if f.severity is Severity.ERROR]
    rest = [f for f in kept if f.severity is Severity.WARNING]
    return errors, rest


def _line(finding: Finding) -> str:
    where = f"line {finding.line}: " if finding.line else ""
    fix = f" (fix: {finding.fix})" if finding.fix else ""
    return f"{where}{finding.code}: {finding.message}{fix}"


def save_item_text(vault: StudyVault, item_id: str, text: str) -> SavedEdit:
    """Write ``text`` as the item's file once check finds no new error in it.

    Args:
        vault: The vault the item belongs to.
        item_id: The item edited (the text must keep this id).
        text: The file's whole new text.

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If the item cannot be edited here.
        ContentInvalid: If the new text brings in an error finding or another id
            (the message lists them all; the file is left untouched).
    """
    from sysdrill.files import write_text_atomically

    current = editable_item(vault, item_id)
    text = text.replace("\r\n", "\n")
    if text == current.text:
        return SavedEdit(item_id, current.path, changed=False, warnings=())
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError:
        raw = None
    if isinstance(raw, dict) and "id" in raw and str(raw["id"]) != item_id:
        raise ContentInvalid(
            f"The edit changes the id to '{raw['id']}'; an item's id stays "
            f"'{item_id}' (reviews are kept under it). Nothing was saved."
        )
    before, _ = _errors(vault, current.path, current.text)
    after, warnings = _errors(vault, current.path, text)
    known = {(f.code, f.message) for f in before}
    new = [f for f in after if (f.code, f.message) not in known]
    if new:
        listed = "; ".join(_line(f) for f in new)
        raise ContentInvalid(
            f"Not saved: the edit brings in {len(new)} error(s) check reports: {listed}."
        )
    write_text_atomically(current.path, text)
    return SavedEdit(
        item_id, current.path, changed=True, warnings=tuple(_line(f) for f in warnings)
    )


def save_item_fields(vault: StudyVault, item_id: str, changes: Mapping[str, str]) -> SavedEdit:
    """Set some of :data:`EDITABLE_FIELDS` and write the file (see :func:`save_item_text`).

    Raises:
        QuestionNotFound: If the vault has no such item.
        UsageError: If the item cannot be edited here, or a field is not editable.
        ContentInvalid: If the edit brings in an error finding (nothing is written).
    """
    current = editable_item(vault, item_id)
    return save_item_text(vault, item_id, with_fields(current.text, changes))
