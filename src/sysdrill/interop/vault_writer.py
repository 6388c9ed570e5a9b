"""Read what a vault holds and write vault files readably, all or nothing.

Item files are YAML with keys in schema order and multi-line text as ``|``
block scalars, so that imported files read like hand-written ones and diff
well in git. A set of files is written to a staging folder inside the vault
first and then moved into place; if any step fails, every file already moved
is put back as it was and nothing new is left behind.

Reading side: :func:`scan_vault_index` reads every item file's YAML (without
validating it) to learn the ids in use and which items came from which source,
and :class:`IdAllocator` hands out ids no file uses.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sysdrill.content.loader import list_item_file_names
from sysdrill.content.models import Details, HumanReview, Item, ItemSource, NoteLink, Part
from sysdrill.content.yaml_source import SAFE_LOADER
from sysdrill.errors import ImportFailed

__all__ = [
    "STAGING_PREFIX",
    "ExistingItem",
    "IdAllocator",
    "VaultIndex",
    "dump_yaml",
    "format_family",
    "load_decks_file",
    "order_item",
    "scan_vault_index",
    "shared_file_update",
    "write_files",
    "write_scratch_file",
]

STAGING_PREFIX = ".sysdrill-staging-"
"""Name prefix of the staging folder created inside the vault while writing; the
writer's process id follows, so a later write can tell a killed writer's folder."""

_ORDER: dict[str, dict[str, None]] = {
    "": dict.fromkeys(Item.model_fields),
    "details": dict.fromkeys(Details.model_fields),
    "human_reviewed": dict.fromkeys(HumanReview.model_fields),
    "source": dict.fromkeys(ItemSource.model_fields),
    "note_link": dict.fromkeys(NoteLink.model_fields),
}
"""Each mapping's keys in schema order (dicts: ordered, and ``in`` costs one lookup)."""
_PART_ORDER = dict.fromkeys(Part.model_fields)

_Loader = SAFE_LOADER


def _ordered(data: Mapping[str, Any], order: Mapping[str, None]) -> dict[str, Any]:
    result = {key: data[key] for key in order if key in data}
    if len(result) < len(data):
        result.update({key: data[key] for key in data if key not in order})
    return result


def order_item(data: Mapping[str, Any]) -> dict[str, Any]:
    """Return an item mapping with its keys in schema order, unknown keys last.

    Args:
        data: A raw item mapping.

    Returns:
        A new mapping; nested ``details``, ``human_reviewed``, ``source`` and
        ``parts`` are ordered too.
    """
    result = _ordered(data, _ORDER[""])
    for key in ("details", "human_reviewed", "source", "note_link"):
        if isinstance(result.get(key), Mapping):
            result[key] = _ordered(result[key], _ORDER[key])
    parts = result.get("parts")
    if isinstance(parts, list):
        result["parts"] = [
            _ordered(part, _PART_ORDER) if isinstance(part, Mapping) else part for part in parts
        ]
    return result


try:
    _BaseDumper: Any = yaml.CSafeDumper
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseDumper = yaml.SafeDumper


class _ReadableDumper(_BaseDumper):  # type: ignore[misc]
    """Safe dumper (libyaml's emitter when present) writing multi-line strings as ``|`` blocks."""


# Plain scalars some YAML 1.1 or 1.2 reader takes for a number, boolean, date or
# null (PyYAML reads "yes" as True, yaml_rs "1e3" as 1000.0, "0Xa_8" as 168 and "_0"
# as 0):
# anything starting like a number, and the special words. Quoting more than
# needed is harmless; quoting less loses items.
_NOT_A_STRING = re.compile(
    r"[-+]?[._\d][\w.:+-]*"
    r"|\d{4}-\d\d?-\d\d?[Tt\s].*"
    r"|[-+]?\.?(?:inf|nan)"
    r"|y|n|yes|no|on|off|true|false|null|~|=|<<",
    re.IGNORECASE,
)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        style: str | None = "|"
    elif _NOT_A_STRING.fullmatch(value.strip()):
        style = "'"
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_ReadableDumper.add_representer(str, _represent_str)


_PRINTABLE_ASCII = re.compile(r"[ -~]+")
"""Strings the direct writer handles: printable ASCII on one line, never empty."""

_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
"""First characters after which libyaml never writes a plain scalar."""

_FAST_MAX_CHARS = 10_000
"""Longer strings take PyYAML's road (it would fold nothing: the width is unbounded)."""

_FAST_MAX_KEY_CHARS = 100
"""Longer keys take PyYAML's road (from 128 characters it writes a ``?`` complex key)."""


def _block_plain_allowed(value: str) -> bool:
    """The rule libyaml applies to plain scalars in block context, for one-line ASCII."""
    first = value[0]
    return not (
        first in _FIRST_INDICATORS
        or (first in "?-" and (len(value) == 1 or value[1] == " "))
        or value.startswith(("---", "..."))
        or first == " "
        or value[-1] == " "
        or value[-1] == ":"
        or ": " in value
        or " #" in value
    )


@functools.lru_cache(maxsize=2048)
def _ascii_scalar(value: str) -> str | None:
    """The text the writer's dumper gives a one-line ASCII string, or None to ask PyYAML."""
    if len(value) > _FAST_MAX_CHARS or _PRINTABLE_ASCII.fullmatch(value) is None:
        return None
    if _NOT_A_STRING.fullmatch(value.strip()) is None and _block_plain_allowed(value):
        return value
    # Quoted by _represent_str, or plain impossible: libyaml falls back to single quotes.
    return "'" + value.replace("'", "''") + "'"


_CONTAINERS = (dict, list)
"""The types PyYAML writes an anchor for when one object appears twice."""


def _shares_containers(data: Any) -> bool:
    """Whether one list or mapping object appears twice (PyYAML writes an anchor then)."""
    if not isinstance(data, _CONTAINERS):
        return False
    seen: set[int] = set()
    pending = [data]
    while pending:
        value = pending.pop()
        if id(value) in seen:
            return True
        seen.add(id(value))
        # Only containers are queued: an item's many strings would cost as much as the rest.
        for child in value.values() if isinstance(value, dict) else value:
            if isinstance(child, _CONTAINERS):
                pending.append(child)
    return False


def _fast_scalar(value: Any) -> str | None:
    """The text PyYAML gives a scalar in block context, or None when unsure."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return _ascii_scalar(value)
    return None


def _fast_entry(key: Any, value: Any, indent: str, out: list[str]) -> bool:
    """Append the lines of ``key: value`` (as PyYAML writes them) to ``out``, if simple.

    Scalars and lists of scalars are written directly; a mapping entry by entry,
    each other entry of it by PyYAML alone and indented. False means the entry
    holds something else (nothing is appended then).
    """
    name = _ascii_scalar(key) if type(key) is str and len(key) <= _FAST_MAX_KEY_CHARS else None
    if name is None:
        return False
    scalar = _fast_scalar(value)
    if scalar is not None:
        out.append(f"{indent}{name}: {scalar}\n")
        return True
    if type(value) is list:
        if not value:
            out.append(f"{indent}{name}: []\n")
            return True
        listed: list[str] = [f"{indent}{name}:\n"]
        for element in value:
            item = _fast_scalar(element)
            if item is not None:
                listed.append(f"{indent}- {item}\n")
            elif not _fast_list_mapping(element, indent, listed):
                return False
        out.extend(listed)
        return True
    if type(value) is dict:
        if not value:
            out.append(f"{indent}{name}: {{}}\n")
            return True
        inner_indent = indent + "  "
        nested: list[str] = [f"{indent}{name}:\n"]
        for inner_key, inner_value in value.items():
            if _fast_entry(inner_key, inner_value, inner_indent, nested):
                continue
            # Block style is relative: an entry PyYAML writes alone, indented, is what
            # it writes inside the mapping (blank lines of a block scalar stay empty).
            chunk = _yaml_dump({inner_key: inner_value})
            if chunk.endswith("\n...\n"):
                return False  # a kept final line break: only PyYAML knows the whole
            nested.extend(
                inner_indent + line if line.strip("\n") else line
                for line in chunk.splitlines(keepends=True)
            )
        out.extend(nested)
        return True
    return False


def _fast_list_mapping(element: Any, indent: str, out: list[str]) -> bool:
    """Append the lines of a mapping that is an element of a list (``decks.yaml``'s decks).

    PyYAML writes its entries as those of a mapping two columns in, the first one
    after ``- ``. False means it is not a mapping the direct writer handles.
    """
    if type(element) is not dict:
        return False
    if not element:
        out.append(f"{indent}- {{}}\n")
        return True
    inner_indent = indent + "  "
    entries: list[str] = []
    for key, value in element.items():
        if not _fast_entry(key, value, inner_indent, entries):
            return False
    entries[0] = f"{indent}- {entries[0][len(inner_indent) :]}"
    out.extend(entries)
    return True


def _yaml_dump(data: Any) -> str:
    text: str = yaml.dump(
        data,
        Dumper=_ReadableDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )
    return text


def dump_yaml(data: Any) -> str:
    """Serialise to readable YAML: block style, Unicode as is, no line wrapping.

    A mapping's simple entries (plain ASCII strings, integers, booleans, nulls,
    lists and mappings of those) are written directly, each other entry by
    PyYAML on its own: block-style entries of a top-level mapping do not depend
    on one another, and the text is exactly what PyYAML writes for the whole
    (a test compares the two), at a fraction of the time for 100,000 items.

    Args:
        data: Plain Python data (mappings keep their order).

    Returns:
        The YAML text.
    """
    if type(data) is not dict or not data or _shares_containers(data):
        return _yaml_dump(data)
    lines: list[str] = []
    for key, value in data.items():
        if not _fast_entry(key, value, "", lines):
            chunk = _yaml_dump({key: value})
            if chunk.endswith("\n...\n"):
                # A kept final line break ends the document with "...", which only
                # the last entry of the whole document carries.
                return _yaml_dump(data)
            lines.append(chunk)
    return "".join(lines)


def _place(staged: str, target: str) -> None:
    """Move one staged file into place (a seam where tests inject failures).

    The target's folder exists: :func:`write_files` creates each folder once.
    """
    os.replace(staged, target)


def _remove_stale_staging(root: Path) -> None:
    """Remove staging folders whose writer is gone (an import killed half-way)."""
    for folder in root.glob(f"{STAGING_PREFIX}*"):
        pid = folder.name.removeprefix(STAGING_PREFIX).split("-")[0]
        if pid.isdigit() and _running(int(pid)):
            continue  # another import into this vault is writing now
        shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _rollback(moved: list[tuple[str, str | None]], staging: Path, created_dirs: list[Path]) -> None:
    """Put back every file already moved, then remove what the write created."""
    for target, backup in reversed(moved):
        try:
            if backup is not None:
                os.replace(backup, target)
            elif os.path.lexists(target):
                os.unlink(target)
        except OSError:  # pragma: no cover - best effort on a failing disk
            continue
    shutil.rmtree(staging, ignore_errors=True)
    for folder in sorted(created_dirs, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue


def _write_new(path: str, data: bytes) -> None:
    """Create a file that must not exist yet (a staging or scratch file) and write it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def write_scratch_file(path: Path, text: str, folders: set[str]) -> None:
    """Write a file into a scratch folder, creating its folder once (``folders`` remembers).

    Args:
        path: The new file.
        text: Its text, written as UTF-8.
        folders: Folders already created by earlier calls; updated.
    """
    folder = os.path.dirname(path)
    if folder not in folders:
        os.makedirs(folder, exist_ok=True)
        folders.add(folder)
    _write_new(str(path), text.encode("utf-8"))


_STAGED_PER_FOLDER = 1000
"""Staged files per staging sub-folder: creating a file in a folder of 100,000 costs
twice as much as in one of a thousand."""


def _staged(new_folder: str, index: int, *, folder_only: bool = False) -> str:
    """Where the ``index``-th file is staged (or its folder)."""
    folder = os.path.join(new_folder, str(index // _STAGED_PER_FOLDER))
    return folder if folder_only else os.path.join(folder, f"{index}.yaml")


def _no_progress(done: int, total: int) -> None:
    """The progress callback of callers that show none."""


def write_files(
    root: Path,
    files: Mapping[str, str | bytes],
    *,
    create_root: bool = False,
    progress: Callable[[int, int], None] = _no_progress,
    on_written: Callable[[], None] | None = None,
) -> None:
    """Write files below ``root``, all of them or none.

    Args:
        root: The vault folder.
        files: Text (written as UTF-8) or bytes of each file, by path relative
            to ``root`` (forward slashes).
        create_root: Create ``root`` (and remove it again on failure).
        progress: Called as ``progress(done, total)`` as files are staged
            (``total`` counts each file twice: staged, then moved into place).
        on_written: Called once every file is in place, before the write is
            final: if it raises, every file is put back and the exception goes on.

    Raises:
        ImportFailed: If any file cannot be written; the vault is left as it was.
    """
    if not files:
        if on_written is not None:
            on_written()
        return
    created_dirs: list[Path] = []
    if create_root:
        missing = [p for p in [root, *root.parents] if not p.exists()]
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ImportFailed(
                f"cannot create vault folder '{root}': {exc.strerror}; check the path"
            ) from exc
        created_dirs.extend(missing)
    _remove_stale_staging(root)
    staging = root / f"{STAGING_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
    moved: list[tuple[str, str | None]] = []
    total = 2 * len(files)
    # Plain os calls on strings: pathlib's object per path is a third of the time
    # of writing 100,000 small files.
    new_folder = os.path.join(staging, "new")
    old_folder = os.path.join(staging, "old")
    known_dirs: set[str] = set()
    # Folders this write created: no file in them can be replaced (no lexists per file).
    new_dirs: set[str] = set()
    try:
        staging.mkdir()
        os.mkdir(new_folder)
        for index, text in enumerate(files.values()):
            progress(index, total)
            data = text if isinstance(text, bytes) else text.encode("utf-8")
            if index % _STAGED_PER_FOLDER == 0:
                os.mkdir(_staged(new_folder, index, folder_only=True))
            _write_new(_staged(new_folder, index), data)
        base = str(root)
        for index, rel in enumerate(files):
            progress(len(files) + index, total)
            target = os.path.join(base, *rel.split("/"))
            folder = os.path.dirname(target)
            if folder not in known_dirs:
                for parent in reversed(Path(rel).parents):
                    path = root / parent
                    if not path.exists():
                        created_dirs.append(path)
                if not os.path.isdir(folder):
                    new_dirs.add(folder)
                os.makedirs(folder, exist_ok=True)
                known_dirs.add(folder)
            backup: str | None = None
            if folder not in new_dirs and os.path.lexists(target):
                backup = os.path.join(old_folder, f"{index}.yaml")
                os.makedirs(old_folder, exist_ok=True)
                os.replace(target, backup)
            moved.append((target, backup))
            _place(_staged(new_folder, index), target)
        progress(total, total)
    except OSError as exc:
        _rollback(moved, staging, created_dirs)
        raise ImportFailed(
            f"cannot write '{exc.filename or root}': {exc.strerror}; nothing was imported, "
            "fix the problem and run the import again"
        ) from exc
    except BaseException:
        _rollback(moved, staging, created_dirs)
        raise
    if on_written is not None:
        try:
            on_written()
        except BaseException:
            _rollback(moved, staging, created_dirs)
            raise
    shutil.rmtree(staging, ignore_errors=True)


@dataclass(slots=True)
class ExistingItem:
    """An item file already in the vault: its id, vault-relative path and raw mapping."""

    id: str
    rel: str
    raw: dict[str, Any]


@dataclass(slots=True)
class VaultIndex:
    """What the vault holds: ids, file paths, and imported items by identity."""

    by_id: dict[str, ExistingItem] = field(default_factory=dict)
    by_identity: dict[tuple[str, str], ExistingItem] = field(default_factory=dict)
    paths: set[str] = field(default_factory=set)
    unreadable: list[str] = field(default_factory=list)
    """Item files that are not valid YAML mappings (their identity is unknown)."""


def format_family(format_name: str) -> str:
    """Format family for identity: StaffML ids are one namespace however they were copied."""
    return "staffml" if format_name.startswith("staffml") else format_name


def scan_vault_index(root: Path) -> VaultIndex:
    """Read every item file of a vault quickly (YAML only, no validation) into an index."""
    index = VaultIndex()
    for name, rel in list_item_file_names(root):
        path = Path(name)
        index.paths.add(rel.casefold())
        try:
            raw = yaml.load(path.read_text("utf-8"), Loader=_Loader)  # noqa: S506 - safe
        except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
            index.unreadable.append(rel)
            continue
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
            index.unreadable.append(rel)
            continue
        existing = ExistingItem(raw["id"], rel, raw)
        index.by_id.setdefault(existing.id, existing)
        stamp = raw.get("source")
        if isinstance(stamp, dict) and stamp.get("format") and stamp.get("key") is not None:
            identity = (format_family(str(stamp["format"])), str(stamp["key"]))
            index.by_identity.setdefault(identity, existing)
    return index


class IdAllocator:
    """Hands out ``<track>-<kind>-NNNN`` ids that no file in the vault uses."""

    def __init__(self, index: VaultIndex) -> None:
        self._taken = {item_id.casefold() for item_id in index.by_id}
        self._paths = index.paths
        self._next: dict[str, int] = {}

    def reserve(self, item_id: str) -> None:
        """Mark an id as used (an id the source brings along)."""
        self._taken.add(item_id.casefold())

    def taken(self, item_id: str) -> bool:
        """Whether a file of the vault or this import already uses the id."""
        return item_id.casefold() in self._taken

    def allocate_exact(self, item_id: str, folder: str) -> str:
        """Return ``item_id`` when it is free, else the lowest free ``<item_id>-NNNN``."""
        rel = f"{folder}/{item_id}.yaml".casefold()
        if item_id.casefold() in self._taken or rel in self._paths:
            return self.allocate(item_id, folder)
        self._taken.add(item_id.casefold())
        return item_id

    def allocate(self, prefix: str, folder: str) -> str:
        """Return the lowest free ``<prefix>-NNNN`` whose file in ``folder`` does not exist."""
        number = self._next.get(prefix, 1)
        while True:
            candidate = f"{prefix}-{number:04d}"
            rel = f"{folder}/{candidate}.yaml".casefold()
            if candidate.casefold() not in self._taken and rel not in self._paths:
                break
            number += 1
        self._next[prefix] = number + 1
        self._taken.add(candidate.casefold())
        return candidate


def load_decks_file(root: Path) -> dict[str, Any]:
    """Read ``decks.yaml`` as plain data (``{"decks": []}`` when absent).

    Raises:
        ImportFailed: If the file is not valid YAML or not a mapping with a ``decks`` list.
    """
    path = root / "decks.yaml"
    if not path.is_file():
        return {"decks": []}
    try:
        raw = yaml.load(path.read_text("utf-8"), Loader=_Loader)  # noqa: S506 - safe
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ImportFailed(
            f"{path}: cannot read decks.yaml ({exc}); fix it (`sysdrill check` shows where) "
            "and import again"
        ) from exc
    if raw is None:
        return {"decks": []}
    if not isinstance(raw, dict) or not isinstance(raw.get("decks", []), list):
        raise ImportFailed(
            f"{path}: decks.yaml is not a mapping with a 'decks' list; fix it and import again"
        )
    raw.setdefault("decks", [])
    return raw


def _merged_chains_json(held: str, incoming: str) -> str | None:
    """The vault's chains.json with the source's chains put in by ``chain_id``, or None.

    None when either file is not a JSON array of chains (then the source's replaces it).
    """
    try:
        old, new = json.loads(held), json.loads(incoming)
    except json.JSONDecodeError:
        return None
    if not isinstance(old, list) or not isinstance(new, list):
        return None
    incoming_by_id = {
        entry["chain_id"]: entry for entry in new if isinstance(entry, dict) and "chain_id" in entry
    }
    merged = [
        incoming_by_id.pop(entry["chain_id"], entry)
        if isinstance(entry, dict) and "chain_id" in entry
        else entry
        for entry in old
    ]
    merged += [entry for entry in new if entry in incoming_by_id.values()]
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n"


def shared_file_update(root: Path, rel: str, text: str) -> tuple[str | None, str | None]:
    """What an import writes for a taxonomy or chain file of the source vault.

    A file the vault lacks is copied as written. ``chains.json`` is merged by
    ``chain_id`` (the source's chains replace the vault's of the same id, new ones
    are appended, the vault's others stay); any other file the vault holds with
    different text is replaced by the source's.

    Args:
        root: The target vault.
        rel: The file's path relative to the vault root, with ``/``.
        text: The source's text of the file.

    Returns:
        (text to write or None when the vault's copy is already the same,
        a note for the report or None).
    """
    path = root / rel
    if not path.is_file():
        return text, None
    try:
        held = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        held = None
    if held == text:
        return None, None
    if held is not None and rel == "chains.json":
        merged = _merged_chains_json(held, text)
        if merged is not None:
            if merged == held:
                return None, None
            return merged, "merged the source's chains into the vault's chains.json by chain_id"
    return text, f"replaced the vault's {rel} with the source's"
