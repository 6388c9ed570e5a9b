"""Compile a vault for ``sysdrill build``: which files changed, and the rows they become.

This is the content half of a build. :func:`plan_build` compares the files on
disk with the previous build's record of them (size, mtime in ns and SHA-256
digest of each item file and of :data:`SHARED_FILES`) and names the item files
to compile and to drop; :func:`compile_items` parses those files into
:class:`CompiledItem` rows, one at a time, and :func:`compile_collections`
validates the shared files. Writing the rows is :mod:`sysdrill.storage.vault_db`'s
job, and :func:`sysdrill.app.build.build_vault` runs the audit and both halves.

Files are found by the loader's walk and read by its :func:`read_file`; an item
file whose size and mtime match the record, and whose mtime is old enough, is
trusted unread by the cache's rule (:func:`~sysdrill.content.cache.trusted_by_stat`).
Items are not validated here: the build refuses a vault with error findings
before (or, on large rebuilds, while) it writes, so compiling reads only what
the rows need, and a file that cannot be parsed raises :class:`ContentInvalid`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from sysdrill.content.cache import trusted_by_stat
from sysdrill.content.collections import (
    SHARED_MODELS,
    Chain,
    Deck,
    Taxonomy,
    combine_collections,
)
from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.content.enums import Level
from sysdrill.content.hashing import content_hash
from sysdrill.content.loader import (
    MAX_FILE_BYTES,
    MAX_SHARED_FILE_BYTES,
    SharedModel,
    list_item_file_names,
    parse_shared_file,
    parse_yaml,
    read_file,
)
from sysdrill.errors import ContentInvalid

__all__ = [
    "SHARED_FILES",
    "BuildPlan",
    "CompiledItem",
    "FileState",
    "ItemRow",
    "KnownHashes",
    "VaultCollections",
    "VaultFile",
    "compile_collections",
    "compile_items",
    "plan_build",
    "with_shown_text",
]

SHARED_FILES: tuple[str, ...] = tuple(SHARED_MODELS)
"""Vault files besides the items (ours and StaffML's), tracked for incremental builds
(always read)."""

_LEVEL_RANK = {level.value: level.rank for level in Level}
_CHECK_HINT = "run `sysdrill check` for every finding"


class FileState(NamedTuple):
    """What a build records of one file, to tell next time whether it changed."""

    size_bytes: int
    mtime_ns: int
    """Modification time in nanoseconds since the epoch."""
    digest: str
    """SHA-256 hex digest of the bytes ("" when the file could not be read)."""


@dataclass(slots=True)
class VaultFile:
    """One file found by :func:`plan_build`."""

    rel: str
    """Path relative to the vault root, with forward slashes."""
    path: str
    state: FileState
    data: bytes = b""
    """The bytes when read (b"" once compiled, or when trusted unread)."""
    findings: list[Finding] = field(default_factory=list)
    """Why the file could not be read (too large, unreadable), if it could not."""


@dataclass(slots=True)
class BuildPlan:
    """The files of a vault and what changed since the previous build."""

    files: dict[str, VaultFile]
    """Every tracked file by relative path: the shared files first, then the items."""
    changed: list[str]
    """Item files new or changed since the previous build, to compile."""
    gone: list[str]
    """Item files of the previous build no longer on disk, whose rows go."""
    unchanged: bool
    """True when every tracked file is as the previous build recorded it."""

    @property
    def states(self) -> dict[str, FileState]:
        """The record of every file, for the next build."""
        return {rel: file.state for rel, file in self.files.items()}

    @property
    def item_files(self) -> list[str]:
        """Relative paths of the item files."""
        return [rel for rel in self.files if rel not in SHARED_FILES]


def _scan(root: Path, previous: Mapping[str, FileState], recorded_at_ns: int) -> list[VaultFile]:
    base = str(root)
    names = [(os.path.join(base, name), name) for name in SHARED_FILES]
    names = [(path, rel) for path, rel in names if os.path.isfile(path)]
    names.extend(list_item_file_names(root))
    found: list[VaultFile] = []
    for path, rel in names:
        old = previous.get(rel)
        if old is not None and rel not in SHARED_FILES:
            try:
                stat = os.stat(path)
            except OSError:
                pass  # read_file below reports it
            else:
                if trusted_by_stat(
                    (old.size_bytes, old.mtime_ns),
                    size=stat.st_size,
                    mtime_ns=stat.st_mtime_ns,
                    recorded_at_ns=recorded_at_ns,
                ):
                    state = FileState(stat.st_size, stat.st_mtime_ns, old.digest)
                    found.append(VaultFile(rel, path, state))
                    continue
        limit = MAX_SHARED_FILE_BYTES if rel in SHARED_FILES else MAX_FILE_BYTES
        data, size, mtime_ns, problems = read_file(path, rel, max_bytes=limit)
        digest = hashlib.sha256(data).hexdigest() if data is not None else ""
        found.append(VaultFile(rel, path, FileState(size, mtime_ns, digest), data or b"", problems))
    return found


def plan_build(root: Path, previous: Mapping[str, FileState], *, recorded_at_ns: int) -> BuildPlan:
    """Find the vault's files and compare them with the previous build's record.

    Args:
        root: The vault folder.
        previous: The previous build's record of each file ({} for a first build).
        recorded_at_ns: When that record was written, in ns since the epoch (0
            without one); files modified within :data:`~sysdrill.content.cache.RACY_WINDOW_NS`
            of it are hashed even when their size and mtime match.

    Returns:
        The plan: every file, and the item files to compile and to drop.
    """
    files = {file.rel: file for file in _scan(root, previous, recorded_at_ns)}
    states = {rel: file.state for rel, file in files.items()}
    changed = [rel for rel in files if rel not in SHARED_FILES and previous.get(rel) != states[rel]]
    gone = [rel for rel in previous if rel not in files and rel not in SHARED_FILES]
    return BuildPlan(files=files, changed=changed, gone=gone, unchanged=states == dict(previous))


class ItemRow(NamedTuple):
    """One item as the compiled vault stores it; field names are the column names."""

    id: str
    path: str
    """Item file relative to the vault root."""
    kind: str
    track: str | None
    level: str | None
    level_rank: int | None
    """The level's position (L1 = 1), for ordering by level."""
    zone: str | None
    topic: str | None
    competency_area: str | None
    bloom_level: str | None
    phase: str | None
    status: str
    title: str | None
    scenario: str | None
    question: str | None
    answer: str
    """The answer, options and part texts, for full-text search."""
    deck: str | None
    content_hash: str
    item_json: str
    """The whole mapping as JSON, for ``show``."""


@dataclass(frozen=True, slots=True)
class CompiledItem:
    """An item file compiled: its row and its tags."""

    row: ItemRow
    tags: tuple[str, ...]


def _first_error(findings: list[Finding]) -> ContentInvalid | None:
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        return ContentInvalid(f"{errors[0].render()}; {_CHECK_HINT}")
    return None


def _parse(file: VaultFile) -> dict[str, Any]:
    failure = _first_error(file.findings)
    if failure is not None:
        raise failure
    raw, findings = parse_yaml(file.data, file.rel)
    failure = _first_error(findings)
    if failure is not None:
        raise failure
    if not isinstance(raw, dict):
        raise ContentInvalid(f"{file.rel}: top level is not a mapping; {_CHECK_HINT}")
    return raw


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _answer_text(raw: Mapping[str, Any]) -> str:
    details = raw.get("details")
    pieces = []
    if isinstance(details, dict):
        pieces.append(details.get("realistic_solution"))
        options = details.get("options")
        if isinstance(options, list):
            pieces.extend(str(option) for option in options)
    parts = raw.get("parts")
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, dict):
                pieces.extend((part.get("text"), part.get("answer")))
    return "\n".join(piece for piece in pieces if isinstance(piece, str) and piece)


def _json(raw: dict[str, Any]) -> str:
    import orjson

    # orjson is about six times faster than json here, which matters for 10,000 items.
    return orjson.dumps(raw, default=str, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")


def _item_row(rel: str, raw: dict[str, Any], digest: str | None = None) -> ItemRow:
    """The row of one item file's mapping (``digest``: its content hash, if known).

    Raises:
        ContentInvalid: If the mapping has no id.
    """
    item_id = raw.get("id")
    if not isinstance(item_id, str) or not item_id:
        raise ContentInvalid(f"{rel}: the item has no id; {_CHECK_HINT}")
    level = raw.get("level")
    return ItemRow(
        id=item_id,
        path=rel,
        kind=raw.get("format") or "question",
        track=raw.get("track"),
        level=level,
        level_rank=_LEVEL_RANK.get(level) if isinstance(level, str) else None,
        zone=raw.get("zone"),
        topic=raw.get("topic"),
        competency_area=raw.get("competency_area"),
        bloom_level=raw.get("bloom_level"),
        phase=raw.get("phase"),
        status=raw.get("status") or "draft",
        title=_text(raw.get("title")),
        scenario=_text(raw.get("scenario")),
        question=_text(raw.get("question")),
        answer=_answer_text(raw),
        deck=_text(raw.get("deck")),
        content_hash=content_hash(raw) if digest is None else digest,
        item_json=_json(raw),
    )


def with_shown_text(row: ItemRow, shown: Mapping[str, Any]) -> ItemRow:
    """The row with its searchable texts taken from ``shown`` (an item as learners see it).

    A parametric item's file holds ``{placeholders}``; search and its snippets should
    show one concrete draw instead, while ``item_json`` keeps the template itself.
    """
    return row._replace(
        title=_text(shown.get("title")),
        scenario=_text(shown.get("scenario")),
        question=_text(shown.get("question")),
        answer=_answer_text(shown),
    )


KnownHashes = Mapping[str, tuple[int, int, str]]
"""Content hashes already computed, by item file: (size in bytes, mtime in ns, hash)."""


def compile_items(plan: BuildPlan, *, known: KnownHashes | None = None) -> Iterator[CompiledItem]:
    """Parse the plan's changed item files into rows, one file at a time.

    Each file's bytes are dropped once compiled, so a large build holds only
    the rows its writer has not stored yet.

    Args:
        plan: The files and what changed.
        known: Content hashes to take instead of computing them (about half of
            a row's cost), each for a file of the same size and mtime only.

    Raises:
        ContentInvalid: If a file cannot be read or parsed, or has no id.
    """
    found = known or {}
    for rel in plan.changed:
        file = plan.files[rel]
        raw = _parse(file)
        file.data = b""
        tags = raw.get("tags")
        held = found.get(rel)
        digest = None
        if held is not None and held[:2] == (file.state.size_bytes, file.state.mtime_ns):
            digest = held[2]
        yield CompiledItem(
            _item_row(rel, raw, digest),
            tuple(str(tag) for tag in tags) if isinstance(tags, list) else (),
        )


@dataclass(frozen=True, slots=True)
class VaultCollections:
    """The shared files, validated and merged (ours and StaffML's; empty when absent)."""

    taxonomy: Taxonomy
    chains: list[Chain]
    decks: list[Deck]


def _shared(plan: BuildPlan, name: str, model: type[SharedModel]) -> SharedModel:
    file = plan.files.get(name)
    if file is None:
        return model()
    failure = _first_error(file.findings)
    if failure is not None:
        raise failure
    loaded, findings = parse_shared_file(file.data, name, model, Path(file.path))
    if loaded is None:
        raise _first_error(findings) or ContentInvalid(f"{name}: cannot be read; {_CHECK_HINT}")
    return loaded


def compile_collections(plan: BuildPlan) -> VaultCollections:
    """Validate the shared files and merge them (see :func:`combine_collections`).

    Raises:
        ContentInvalid: If one of them has an error finding.
    """
    parts = {
        name: _shared(plan, name, model)
        for name, model in SHARED_MODELS.items()
        if name in plan.files
    }
    merged = combine_collections(parts)
    return VaultCollections(
        taxonomy=merged.taxonomy or Taxonomy(), chains=merged.chains, decks=merged.decks
    )
