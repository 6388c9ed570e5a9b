"""StaffML question YAML: one file, a folder tree of files, or a ``corpus.json`` array.

Every field is kept as written, including fields sysdrill does not know; the
StaffML ``id`` becomes the item's id and its identity across re-imports.

A folder holding ``questions/`` is read as a vault: only the files below
``questions/`` are questions, and its taxonomy and chain files
(``taxonomy_data.yaml`` or ``schema/taxonomy_data.yaml``, ``chains.json``, and
our ``taxonomy.yaml``/``chains.yaml``) travel with the import as written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from sysdrill.content.collections import CHAIN_FILES, TAXONOMY_FILES
from sysdrill.content.yaml_source import SAFE_LOADER
from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.text import read_source_text

__all__ = [
    "MAX_CORPUS_BYTES",
    "MAX_TREE_FILES",
    "SAFE_ID",
    "items_from_mappings",
    "load_yaml_text",
    "read_staffml",
]

MAX_CORPUS_BYTES = 256 * 1024 * 1024
"""Largest ``corpus.json`` read, in bytes (256 MiB, some 25 times the full StaffML corpus)."""

MAX_TREE_FILES = 100_000
"""Most YAML files read from one folder tree."""

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
"""Ids that are safe as file names: letters, digits, ``.``, ``_`` and ``-``."""

_SHARED_FILES = frozenset({"decks.yaml", "sysdrill.yaml", *TAXONOMY_FILES, *CHAIN_FILES})

_COLLECTION_FILES = (*TAXONOMY_FILES, *CHAIN_FILES)
"""Shared files an import brings along (decks are rebuilt from the items instead)."""

_Loader = SAFE_LOADER


def load_yaml_text(text: str, where: str) -> Any:
    """Parse YAML text, turning a syntax error into one ``file:line`` error.

    Args:
        text: The YAML text.
        where: File name used in the error message.

    Returns:
        The parsed Python objects.

    Raises:
        ImportFailed: If the text is not valid YAML.
    """
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        raise ImportFailed(
            f"{where}:{line}: invalid YAML ({exc.problem or 'syntax error'}); "
            "fix the YAML at that line"
        ) from exc
    except (yaml.YAMLError, RecursionError) as exc:
        raise ImportFailed(f"{where}: invalid YAML ({exc}); fix the YAML syntax") from exc


def items_from_mappings(mappings: list[tuple[Any, str]], source: ParsedSource) -> None:
    """Turn StaffML mappings into parsed items on ``source``, keeping every field.

    Mappings without a usable ``id`` and repeated ids are skipped with a note.

    Args:
        mappings: Each raw mapping with the location it came from.
        source: The parsed source to append items and notes to.
    """
    seen: set[str] = set()
    for raw, where in mappings:
        if not isinstance(raw, dict):
            shape = "empty" if raw is None else f"a {type(raw).__name__}"
            source.notes.append(
                ImportNote(f"skipped: {shape}, not a question mapping", where, skipped=True)
            )
            continue
        item_id = raw.get("id")
        if not isinstance(item_id, str) or not SAFE_ID.match(item_id):
            source.notes.append(
                ImportNote(
                    f"skipped: id {item_id!r} is missing or not a safe name "
                    "(letters, digits, '.', '_', '-')",
                    where,
                    skipped=True,
                )
            )
            continue
        if item_id in seen:
            source.notes.append(
                ImportNote(f"skipped: id '{item_id}' appears twice in the source", where, True)
            )
            continue
        seen.add(item_id)
        data = {key: value for key, value in raw.items() if key != "id"}
        source.items.append(ParsedItem(key=item_id, data=data, preferred_id=item_id))


def _read_json(path: Path) -> list[tuple[Any, str]]:
    size = path.stat().st_size
    if size > MAX_CORPUS_BYTES:
        raise HostileInput(
            f"'{path.name}' is {size / 1048576:.0f} MiB, over the "
            f"{MAX_CORPUS_BYTES // 1048576} MiB limit for a corpus; split it"
        )
    text = read_source_text(path, limit_bytes=MAX_CORPUS_BYTES).text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFailed(
            f"{path.name}:{exc.lineno}: invalid JSON ({exc.msg}); fix the JSON at that line"
        ) from exc
    if isinstance(data, dict):
        for key in ("questions", "items"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            data = [data]
    if not isinstance(data, list):
        raise ImportFailed(
            f"'{path.name}' holds a {type(data).__name__}; a StaffML corpus is an array "
            "of question objects"
        )
    return [(entry, f"{path.name}[{index}]") for index, entry in enumerate(data)]


def _read_yaml_file(path: Path, where: str) -> list[tuple[Any, str]]:
    text = read_source_text(path).text
    data = load_yaml_text(text, where)
    if isinstance(data, list):
        return [(entry, f"{where}[{index}]") for index, entry in enumerate(data)]
    return [(data, where)]


def _read_tree(root: Path) -> list[tuple[Any, str]]:
    # In a vault only questions/ holds questions (a StaffML vault keeps schemas,
    # exemplars and audit files beside it); paths stay relative to the root.
    top = root / "questions" if (root / "questions").is_dir() else root
    paths = sorted(
        p
        for p in top.rglob("*")
        if p.suffix.lower() in (".yaml", ".yml")
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
        and p.relative_to(root).as_posix() not in _SHARED_FILES
    )
    if len(paths) > MAX_TREE_FILES:
        raise HostileInput(
            f"'{root.name}' holds {len(paths)} YAML files, over the {MAX_TREE_FILES} "
            "limit; import its sub-folders one at a time"
        )
    found: list[tuple[Any, str]] = []
    for path in paths:
        found.extend(_read_yaml_file(path, path.relative_to(root).as_posix()))
    return found


def _collection_files(root: Path) -> dict[str, str]:
    """Text of the folder's taxonomy and chain files, by path relative to it."""
    return {
        name: read_source_text(root / name, limit_bytes=MAX_CORPUS_BYTES).text
        for name in _COLLECTION_FILES
        if (root / name).is_file()
    }


def read_staffml(path: Path) -> ParsedSource:
    """Read StaffML questions from a YAML file, a folder tree, or a JSON array.

    Args:
        path: A ``.yaml``/``.yml`` file (one question or a list), a folder
            (every YAML file below its ``questions/`` if it has one, else below
            it, shared files aside), or a ``.json`` corpus.

    Returns:
        One parsed item per question, keyed by its StaffML id; for a folder,
        its taxonomy and chain files in :attr:`ParsedSource.shared_files`.

    Raises:
        ImportFailed: If a file cannot be read or parsed, or nothing is found.
    """
    source = ParsedSource(format="staffml", path=str(path))
    if path.is_dir():
        mappings = _read_tree(path)
        source.shared_files = _collection_files(path)
        if not mappings:
            raise ImportFailed(
                f"folder '{path}' holds no .yaml question files; pass a StaffML vault folder"
            )
    elif path.suffix.lower() == ".json":
        mappings = _read_json(path)
    else:
        mappings = _read_yaml_file(path, path.name)
    items_from_mappings(mappings, source)
    return source
