"""Load a vault folder: item YAML files, taxonomy, chains and decks.

Loading never raises on bad content: every problem becomes a
:class:`~sysdrill.content.diagnostics.Finding`, so ``check`` can report all of
them at once. Only a vault path that does not exist raises
:class:`~sysdrill.errors.VaultNotFound`.

YAML is read by :mod:`sysdrill.content.yaml_source` (a fast Rust parser, with
libyaml for files that need exact positions); line numbers are found lazily by
its :class:`Locator`, only when a finding needs them. With a cache folder,
files unchanged in size, mtime and SHA-256 are not parsed again
(:mod:`sysdrill.content.cache`).
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISDIR
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from sysdrill.content.cache import CachedFile, ParseCache
from sysdrill.content.collections import (
    SHARED_MODELS,
    Chain,
    Deck,
    Taxonomy,
    combine_collections,
)
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.json_source import JsonLocator, parse_json
from sysdrill.content.models import Item, validate_item
from sysdrill.content.yaml_source import (
    MAX_DEPTH,
    PARSER,
    Locator,
    decode_text,
    locate,
    parse_text,
    parse_yaml,
)
from sysdrill.errors import VaultNotFound

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_SHARED_FILE_BYTES",
    "PARSER",
    "ItemFile",
    "Locator",
    "Vault",
    "check_vault_root",
    "list_item_file_names",
    "list_item_files",
    "load_item_file",
    "load_shared_files",
    "load_vault",
    "locate",
    "locator_for",
    "parse_shared",
    "parse_shared_file",
    "parse_yaml",
    "read_file",
    "read_item_file",
    "shared_file_names",
]

MAX_FILE_BYTES = 256 * 1024
"""Largest item file read, in bytes; larger files get a ``file-too-large`` finding."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def _finding(
    code: str, rel: str, message: str, fix: str, *, line: int = 0, column: int | None = None
) -> Finding:
    column = (1 if line else 0) if column is None else column
    return Finding(code, Severity.ERROR, rel, line, column, message, fix)


@dataclass(slots=True)
class ItemFile:
    """One item file as loaded: its raw mapping, the validated item, and findings."""

    path: Path
    rel: str
    """Path relative to the vault root, with forward slashes (used in findings)."""
    raw: Any = None
    """The mapping read from the file (None when it could not be read)."""
    item: Item | None = None
    """The validated item (None when the file has errors that prevent it)."""
    findings: list[Finding] = field(default_factory=list)
    """What the loader found wrong (YAML, size, encoding and schema problems)."""
    digest: str = ""
    """SHA-256 hex digest of the file bytes ("" when the file was not read)."""
    size: int = 0
    """File size in bytes."""
    mtime_ns: int = 0
    """Modification time in nanoseconds since the epoch."""
    text: str | None = None
    """The decoded file text, kept for rules that scan the source (None if not read)."""


@dataclass(slots=True)
class Vault:
    """A loaded vault. Items that failed validation are in ``files`` but not ``items``."""

    root: Path
    files: list[ItemFile] = field(default_factory=list)
    taxonomy: Taxonomy | None = None
    chains: list[Chain] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    """Findings about the vault's shared files (taxonomy, chains, decks)."""

    @property
    def items(self) -> list[Item]:
        """Every item that validated, in path order."""
        return [f.item for f in self.files if f.item is not None]

    def all_findings(self) -> list[Finding]:
        """Loader findings of every file, then of the shared files."""
        found = [finding for f in self.files for finding in f.findings]
        return found + self.findings


def _walk(folder: str, out: list[str]) -> None:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, out)
            elif entry.name.endswith((".yaml", ".yml")) and entry.is_file():
                out.append(entry.path)


def locator_for(path: Path) -> Locator | JsonLocator:
    """A line finder for the file: JSON files (``chains.json``) have their own."""
    return JsonLocator(path) if path.suffix == ".json" else Locator(path)


def _schema_findings(path: Path, rel: str, exc: ValidationError) -> list[Finding]:
    found = []
    locator = locator_for(path)
    for error in exc.errors():
        loc = tuple(error["loc"])
        line, column = locator.locate(loc)
        dotted = ".".join(str(part) for part in loc) or "(top level)"
        found.append(
            _finding(
                "schema",
                rel,
                f"{dotted}: {error['msg']}",
                "see docs/vault-format.md for the field's allowed values",
                line=line,
                column=column,
            )
        )
    return found


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def list_item_files(root: Path, paths: Iterable[Path] | None = None) -> list[tuple[Path, str]]:
    """(path, path relative to ``root`` with ``/``) of each item file, sorted.

    Args:
        root: The vault folder.
        paths: Item files to use instead of scanning ``root/questions``.
    """
    if paths is not None:
        return [(path, _rel(path, root)) for path in paths]
    return [(Path(name), rel) for name, rel in list_item_file_names(root)]


def list_item_file_names(root: Path) -> list[tuple[str, str]]:
    """The one walk of a vault's item files, used by the loader, ``check`` and ``build``.

    Returns:
        (path, path relative to ``root`` with ``/``) of every ``*.yaml`` and
        ``*.yml`` file below ``root/questions`` (symlinked folders are not
        followed), sorted; plain strings, cheaper than paths for 10,000 files.
    """
    questions = root / "questions"
    if not questions.is_dir():
        return []
    found: list[str] = []
    _walk(str(questions), found)
    found.sort()
    # String slicing: pathlib's relative_to costs more than parsing the file. The
    # prefix is cut from the questions folder as spelt here: for root "." it is
    # "questions", not "./questions".
    prefix = len(str(questions)) + 1
    return [(p, "questions/" + p[prefix:].replace(os.sep, "/")) for p in found]


def read_file(
    path: Path | str, rel: str, *, max_bytes: int = MAX_FILE_BYTES
) -> tuple[bytes | None, int, int, list[Finding]]:
    """Read a file's bytes unless it is too large.

    Args:
        path: The file.
        rel: Path used in findings.
        max_bytes: Largest size read (an item file's limit unless told otherwise).

    Returns:
        (bytes or None, size in bytes, mtime in ns, findings): ``file-too-large``
        files are not read, and an unreadable file gives ``file-unreadable``.
    """
    # os.open/os.read, not open(): no file object per file (a third of the read time).
    try:
        fd = os.open(path, _OPEN_FLAGS)
        try:
            stat = os.fstat(fd)
            if S_ISDIR(stat.st_mode):  # open() refuses a folder at once; os.open does not
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
            if stat.st_size > max_bytes:
                return (
                    None,
                    stat.st_size,
                    stat.st_mtime_ns,
                    [
                        _finding(
                            "file-too-large",
                            rel,
                            f"file is {stat.st_size} bytes, more than the {max_bytes} allowed",
                            "split it or remove what does not belong in one item",
                        )
                    ],
                )
            data = os.read(fd, stat.st_size + 1)
            if len(data) != stat.st_size:  # a short read, or the file grew: read to the end
                parts = [data]
                while chunk := os.read(fd, 65536):
                    parts.append(chunk)
                data = b"".join(parts)
            return data, stat.st_size, stat.st_mtime_ns, []
        finally:
            os.close(fd)
    except OSError as exc:
        return (
            None,
            0,
            0,
            [
                _finding(
                    "file-unreadable",
                    rel,
                    f"cannot read file: {exc.strerror or exc}",
                    "check that the file exists and is readable",
                )
            ],
        )


def _validate(loaded: ItemFile) -> None:
    raw = loaded.raw
    if not isinstance(raw, dict):
        shape = "empty" if raw is None else f"a {type(raw).__name__}"
        loaded.findings.append(
            _finding(
                "schema",
                loaded.rel,
                f"top level is {shape}, not a mapping of fields",
                "write one item as `key: value` lines",
                line=1,
            )
        )
        return
    try:
        loaded.item = validate_item(raw)
    except ValidationError as exc:
        loaded.findings.extend(_schema_findings(loaded.path, loaded.rel, exc))


def read_item_file(path: Path | str, rel: str, data: bytes | None = None) -> ItemFile:
    """Read, parse and validate one item file; problems become findings, never exceptions.

    Args:
        path: The file.
        rel: Its path relative to the vault, used in findings.
        data: The file's bytes when already read (size and mtime are then read afresh).
    """
    if data is None:
        data, size, mtime_ns, findings = read_file(path, rel)
    else:
        stat = os.stat(path)
        size, mtime_ns, findings = stat.st_size, stat.st_mtime_ns, []
    loaded = ItemFile(path=Path(path), rel=rel, findings=findings, size=size, mtime_ns=mtime_ns)
    if data is None:
        return loaded
    loaded.digest = hashlib.sha256(data).hexdigest()
    loaded.text, problems = decode_text(data, rel)
    if loaded.text is not None:
        loaded.raw, more = parse_text(loaded.text, rel)
        problems.extend(more)
    if problems:
        loaded.findings.extend(problems)
    if loaded.text is not None and not any(f.code == "yaml-syntax" for f in problems):
        _validate(loaded)
    return loaded


def load_item_file(path: Path, root: Path) -> ItemFile:
    """Read and validate one item file below ``root``; problems become findings."""
    return read_item_file(path, _rel(path, root))


def _cached_item_file(path: Path, rel: str, cache: ParseCache) -> ItemFile:
    """Load one file through the cache: unchanged files are not parsed again."""
    data, size, mtime_ns, findings = read_file(path, rel)
    if data is None:
        return ItemFile(path=path, rel=rel, findings=findings, size=size, mtime_ns=mtime_ns)
    digest = hashlib.sha256(data).hexdigest()
    entry = cache.lookup(rel, size=size, mtime_ns=mtime_ns, digest=digest)
    raw = cache.raw(rel) if entry is not None else None
    if entry is not None and (raw is not None or not entry.valid):
        loaded = ItemFile(
            path=path,
            rel=rel,
            raw=raw,
            findings=list(entry.findings),
            digest=digest,
            size=size,
            mtime_ns=mtime_ns,
        )
        if entry.valid:
            loaded.item = validate_item(raw)
        return loaded
    loaded = read_item_file(path, rel, data)
    loaded.size, loaded.mtime_ns = size, mtime_ns
    cache.store(
        rel,
        CachedFile(size, mtime_ns, digest, loaded.item is not None, tuple(loaded.findings)),
        loaded.raw,
    )
    return loaded


SharedModel = TypeVar("SharedModel", bound=BaseModel)
"""The model of one of the vault's shared files."""

_USABLE_DESPITE = frozenset({"yaml-anchor", "yaml-duplicate-key"})
"""Findings after which a shared file's data is still used (aliases resolved, last key wins)."""


MAX_SHARED_FILE_BYTES = 64 * 1024 * 1024
"""Largest shared file read, in bytes (StaffML's ``chains.json`` is about 1 MB)."""


def parse_shared_file(
    data: bytes, name: str, model: type[SharedModel], path: Path
) -> tuple[SharedModel | None, list[Finding]]:
    """Parse and validate a shared file (ours, or StaffML's ``chains.json`` and taxonomy).

    Args:
        data: The file's bytes.
        name: Its name in the vault, used in findings (``.json`` names are read as JSON).
        model: The model the file holds.
        path: The file (read again only to find the line of a schema finding).

    Returns:
        The validated model (None when a finding prevents it) and the findings.
    """
    raw, findings = parse_shared(data, name)
    if any(f.code not in _USABLE_DESPITE for f in findings):
        return None, findings
    try:
        # An empty file holds an empty collection.
        return model.model_validate(raw if raw is not None else model().model_dump()), findings
    except ValidationError as exc:
        return None, findings + _schema_findings(path, name, exc)


def _load_shared(
    root: Path, name: str, model: type[SharedModel], findings: list[Finding]
) -> SharedModel | None:
    path = root / name
    data, _, _, problems = read_file(path, name, max_bytes=MAX_SHARED_FILE_BYTES)
    if data is None:
        findings.extend(problems)
        return None
    loaded, problems = parse_shared_file(data, name, model, path)
    findings.extend(problems)
    return loaded


def parse_shared(data: bytes, rel: str) -> tuple[Any, list[Finding]]:
    """Parse a shared file's bytes: JSON for ``.json`` files, else YAML; failures are findings."""
    return parse_json(data, rel) if rel.endswith(".json") else parse_yaml(data, rel)


def shared_file_names(root: Path) -> list[str]:
    """Names (relative to ``root``, with ``/``) of the shared files the vault has.

    They are the keys of :data:`~sysdrill.content.collections.SHARED_MODELS`
    that exist as files, in that order.
    """
    return [name for name in SHARED_MODELS if (root / name).is_file()]


def check_vault_root(root: Path) -> None:
    """Raise :class:`VaultNotFound` unless ``root`` is an existing folder."""
    if not root.exists():
        raise VaultNotFound(f"vault '{root}' does not exist; pass an existing vault folder")
    if not root.is_dir():
        raise VaultNotFound(f"vault '{root}' is not a folder; pass the folder holding questions/")


def load_shared_files(vault: Vault) -> None:
    """Load the vault's taxonomies, chains and decks into ``vault``, merged.

    Ours (``taxonomy.yaml``, ``chains.yaml``, ``decks.yaml``) and StaffML's
    (``taxonomy_data.yaml`` or ``schema/taxonomy_data.yaml``, ``chains.json``)
    are read alike; a file with errors becomes findings and adds nothing.
    """
    root = vault.root
    parts = {
        name: model
        for name in shared_file_names(root)
        if (model := _load_shared(root, name, SHARED_MODELS[name], vault.findings)) is not None
    }
    merged = combine_collections(parts)
    vault.taxonomy, vault.chains, vault.decks = merged.taxonomy, merged.chains, merged.decks


def load_vault(
    root: Path,
    *,
    paths: Iterable[Path] | None = None,
    cache_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Vault:
    """Load every item file and the shared files of a vault.

    Args:
        root: The vault folder (holding ``questions/``).
        paths: Item files to load instead of scanning ``questions/``.
        cache_dir: Folder for the load cache; files unchanged in size, mtime and
            digest since the last load with the same folder are not parsed again.
        progress: Called as ``progress(done, total)`` after each item file is read.

    Returns:
        The loaded vault; problems are findings on it, never exceptions.

    Raises:
        VaultNotFound: If ``root`` does not exist or is not a folder.
    """
    check_vault_root(root)
    vault = Vault(root=root)
    cache = ParseCache(cache_dir, root, salt=PARSER) if cache_dir is not None else None
    listed = list_item_files(root, paths)
    for done, (path, rel) in enumerate(listed, start=1):
        if cache is None:
            vault.files.append(read_item_file(path, rel))
        else:
            vault.files.append(_cached_item_file(path, rel, cache))
        if progress is not None:
            progress(done, len(listed))
    load_shared_files(vault)
    if cache is not None and paths is None:
        cache.save()
    return vault
