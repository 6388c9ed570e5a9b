"""A vault's catalogue: one small row per item, kept between commands.

Reading, parsing and validating every item file of a vault of 100,000 items
takes seconds and about a gigabyte, yet most commands need only a few fields of
each item: ``progress`` its coverage cell and topic, ``workload`` its id,
``stats`` the fields it counts, practice and daily the fields their filters
read. So every command that reads a vault opens its catalogue
(:func:`open_catalogue`): one :class:`CatalogueRow` per item file that loads
(its file, id and those fields), in vault order, and the number of files that
did not. A command that needs whole items loads just their files
(:func:`load_items`): ``show`` one item, a practice or daily session the few it
can ask (:mod:`sysdrill.app.practice_vault`).

**Where and how kept.** One :mod:`marshal` file per vault in the user cache
folder (plain data, no code runs on load), written atomically; a file from
another version of sysdrill, or of another layout, is ignored.

**When trusted.** While :func:`~sysdrill.app.study_vault.vault_signature` is
unchanged: adding, removing or renaming an item file, or writing one by
renaming a new file into place (as editors and sysdrill do), changes its
folder's time, so a dozen stats stand in for a stat of every file (the rule the
web app's vault cache follows). A signature recorded within
:data:`~sysdrill.content.cache.RACY_WINDOW_NS` of a change to it is not
trusted: a change in the same clock tick could leave a folder's time as it was.
A file rewritten in place keeps its folder's time: the catalogue sees it at its
next refresh. ``show`` reads the item's own file and ``search`` stats every file
before its query, so both see such an edit at once.

**When refreshed.** When the signature changed, every item file is stat'ed and
only those whose size or mtime differ from their row's (or that are too recent
to trust, :func:`~sysdrill.content.cache.trusted_by_stat`) are read again, so
an edit costs a stat of each file and a parse of the edited ones. The first
build reads every file.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sysdrill import __version__
from sysdrill.app.catalogue_files import READING, Entry, read_entries, row_values
from sysdrill.app.catalogue_signature import (
    Signature,
    signature_settled,
    signature_unchanged,
    vault_signature,
)
from sysdrill.content.cache import trusted_by_stat
from sysdrill.content.gc_pause import collector_paused
from sysdrill.content.vault_identity import VaultIdentity, read_vault_identity
from sysdrill.study.user_state import LEGACY_VAULT_ID, StudyScope, VaultId

# A fresh catalogue is read with marshal and os alone: the loader, the models and
# the hashing (pydantic, the YAML parsers) load only when files must be read.
if TYPE_CHECKING:
    from sysdrill.content.loader import ItemFile
    from sysdrill.content.models import Item
    from sysdrill.storage.vault_query import VaultStats
    from sysdrill.study.service import StudyService

__all__ = [
    "CATALOGUE_FORMAT",
    "Catalogue",
    "CatalogueRow",
    "READING",
    "Signature",
    "catalogue_stats",
    "adopt_catalogue_state",
    "find_item",
    "load_items",
    "open_catalogue",
    "read_fresh_catalogue",
    "save_catalogue",
    "vault_signature",
]

CATALOGUE_FORMAT = 3
"""Bumped whenever the layout of a catalogue file changes."""


class CatalogueRow(NamedTuple):
    """What commands need to know of one item without loading it."""

    rel: str
    """The item file, relative to the vault, with forward slashes."""
    id: str
    status: str
    deck: str | None
    track: str | None
    level: str | None
    zone: str | None
    topic: str | None
    competency_area: str | None
    tags: tuple[str, ...]
    kind: str
    """The item's ``format`` (``question`` when it names none)."""
    content_hash: str | None
    """:func:`~sysdrill.content.hashing.content_hash` of a published item (what the
    release hash covers); None for the others."""
    size_bytes: int
    """The file's size when read, to tell at the next refresh whether it changed."""
    mtime_ns: int
    """The file's modification time when read, in ns since the epoch."""


_BrokenFile = tuple[str, int, int]
"""A file that did not load: (rel, size in bytes, mtime in ns), to skip it while unchanged."""


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The catalogue of one vault, as fresh as its files' folders say."""

    root: Path
    rows: list[CatalogueRow]
    """One row per item file that loads, in vault (path) order."""
    broken_files: int
    """Item files that did not load (left out; ``sysdrill check`` says why)."""
    built_at: datetime
    """When the rows were last brought up to date (UTC)."""
    changed_at_ns: int = 0
    """A stamp of the rows: when a refresh last found an item file added, removed or
    changed (ns since the epoch); the same while every file stays as it was."""
    path: Path | None = None
    """The file the catalogue is kept in, in the user cache folder (what is kept
    beside it, such as :mod:`~sysdrill.app.pass_marks`, is named after it)."""
    recorded_at_ns: int = 0
    """When the files were last stat'ed or read for the rows (ns since the epoch)."""
    broken: Sequence[_BrokenFile] = ()
    """The files that did not load, as (rel, size in bytes, mtime in ns)."""

    @property
    def identity(self) -> VaultIdentity:
        """Whom the vault's study state belongs to (``content/vault_identity.py``).

        Raises:
            ContentInvalid: If the vault's ``vault.yaml`` is unreadable or its id invalid.
        """
        return read_vault_identity(self.root)

    @property
    def release_hash(self) -> str:
        """:func:`~sysdrill.content.hashing.release_hash` of the published items."""
        from sysdrill.content.hashing import release_hash_from_hashes

        return release_hash_from_hashes(
            (row.id, row.content_hash) for row in self.rows if row.content_hash is not None
        )

    def find(self, item_id: str) -> CatalogueRow | None:
        """The row of the item with ``item_id``, or None."""
        return next((row for row in self.rows if row.id == item_id), None)

    def holds(self, files: Collection[tuple[str, int, int]]) -> bool:
        """Whether a refresh would read none of these files: every item file, as just read.

        Args:
            files: (rel, size in bytes, mtime in ns) of every item file of the vault.

        Returns:
            True when they are the files of the rows and of :attr:`broken`, each
            trusted by its size and mtime (:func:`~sysdrill.content.cache.trusted_by_stat`):
            the rows are then those of the files as read.
        """
        recorded = {row.rel: (row.size_bytes, row.mtime_ns) for row in self.rows}
        recorded.update((rel, (size, mtime_ns)) for rel, size, mtime_ns in self.broken)
        if len(recorded) != len(files):
            return False
        at_ns = self.recorded_at_ns
        return all(
            (old := recorded.get(rel)) is not None
            and trusted_by_stat(old, size=size, mtime_ns=mtime_ns, recorded_at_ns=at_ns)
            for rel, size, mtime_ns in files
        )


def _check_root(root: Path) -> None:
    if not root.is_dir():
        from sysdrill.content.loader import check_vault_root

        check_vault_root(root)  # raises VaultNotFound, saying why


def _catalogue_path(cache_dir: Path, root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:24]
    return cache_dir / "catalogue" / f"{key}.marshal"


def _row(loaded: ItemFile, item: Item) -> CatalogueRow:
    return CatalogueRow._make(row_values(loaded, item))


def _read(path: Path) -> dict[str, Any] | None:
    """The saved catalogue of this version and layout, fresh or not; None if there is none."""
    try:
        # A million objects that all stay: a collection would walk them for nothing.
        with collector_paused():
            data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("format") != CATALOGUE_FORMAT:
        return None
    if data.get("version") != __version__:
        return None
    return data


def _catalogue(root: Path, data: dict[str, Any], path: Path) -> Catalogue:
    # Rows are saved as plain tuples; named ones cost about 0.2 µs each to build.
    with collector_paused():
        rows = list(map(CatalogueRow._make, data["rows"]))
    return Catalogue(
        root=root,
        rows=rows,
        broken_files=len(data["broken"]),
        built_at=datetime.fromtimestamp(data["built_at_s"], UTC),
        changed_at_ns=data["changed_at_ns"],
        path=path,
        recorded_at_ns=data["recorded_at_ns"],
        broken=data["broken"],
    )


def _shared_values(rows: Sequence[CatalogueRow]) -> list[tuple[Any, ...]]:
    """The rows as plain tuples, equal field values (a track, a deck, tags) one object.

    :mod:`marshal` writes an object met again as a reference to the first, so
    the file is smaller and reading it builds a few hundred strings, not a
    million: about a third less time and memory for a large vault.
    """
    seen: dict[Any, Any] = {}
    one = seen.setdefault
    return [
        (row[0], row[1], *(one(value, value) for value in row[2:11]), *row[11:]) for row in rows
    ]


def _write(
    path: Path,
    *,
    signature: Signature,
    recorded_at_ns: int,
    rows: Sequence[CatalogueRow],
    broken: Sequence[_BrokenFile],
    now: datetime,
    changed_at_ns: int,
) -> None:
    blob = marshal.dumps(
        {
            "format": CATALOGUE_FORMAT,
            "version": __version__,
            "signature": signature,
            "recorded_at_ns": recorded_at_ns,
            "changed_at_ns": changed_at_ns,
            "built_at_s": now.timestamp(),
            "rows": _shared_values(rows),
            "broken": [tuple(file) for file in broken],
        }
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Named for this process and thread: a web server's threads may write at once.
        scratch = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        scratch.write_bytes(blob)
        os.replace(scratch, path)
    except OSError:
        return  # a catalogue that cannot be written only costs the next command its speed


def read_fresh_catalogue(root: Path, *, cache_dir: Path, now: datetime) -> Catalogue | None:
    """The saved catalogue of the vault when no folder of it changed since, else None.

    A catalogue whose signature is unchanged but too recent to trust alone is
    brought up to date first (as :func:`open_catalogue` does: a stat of each
    file); a changed one is left for the caller to rebuild as it sees fit.

    Args:
        root: The vault folder.
        cache_dir: The user cache folder (the catalogue lives below it).
        now: Current time (UTC), the ``built_at`` of a catalogue brought up to date.
    """
    path = _catalogue_path(cache_dir, root)
    saved = _read(path)
    if saved is None or not signature_unchanged(saved["signature"]):
        return None
    if signature_settled(saved["signature"], saved["recorded_at_ns"]):
        return _catalogue(root, saved, path)
    return _refreshed(root, path, saved, now=now)


class _Refresh(NamedTuple):
    signature: Signature
    recorded_at_ns: int
    rows: list[CatalogueRow]
    broken: list[_BrokenFile]
    changed: bool
    """Whether a file was added, removed or changed since the previous catalogue."""
    read: int
    """Item files read (new, changed, or too recent to trust by their stat)."""


def _refresh(
    root: Path,
    previous: dict[str, Any] | None,
    progress: Callable[[str, int, int], None] | None = None,
) -> _Refresh:
    """Rows for every item file, reusing the previous rows of files unchanged since.

    The signature is taken before any file is read, so a change made meanwhile
    leaves the catalogue stale rather than wrong.
    """
    from sysdrill.content.loader import list_item_file_names

    signature = vault_signature(root)
    recorded_at_ns = time.time_ns()
    known: dict[str, Entry] = {}
    known_at_ns = 0
    if previous is not None:
        known = {row[0]: row for row in previous["rows"]}
        known.update((file[0], file) for file in previous["broken"])
        known_at_ns = previous["recorded_at_ns"]
    names = list_item_file_names(root)
    entries: list[Entry] = []
    unread: list[int] = []
    for path, rel in names:
        old = known.get(rel)
        if old is not None:
            try:
                stat = os.stat(path)
            except OSError:
                pass  # reading it finds it unreadable
            else:
                recorded = (old[-2], old[-1])
                if trusted_by_stat(
                    recorded,
                    size=stat.st_size,
                    mtime_ns=stat.st_mtime_ns,
                    recorded_at_ns=known_at_ns,
                ):
                    entries.append(old)
                    continue
        unread.append(len(entries))
        entries.append(())
    changed = previous is None or len(names) != len(known)
    for at, entry in zip(unread, read_entries([names[at] for at in unread], progress), strict=True):
        changed = changed or known.get(names[at][1]) != entry
        entries[at] = entry
    width = len(CatalogueRow._fields)
    return _Refresh(
        signature,
        recorded_at_ns,
        rows=[CatalogueRow._make(entry) for entry in entries if len(entry) == width],
        broken=[(entry[0], entry[1], entry[2]) for entry in entries if len(entry) != width],
        changed=changed,
        read=len(unread),
    )


def open_catalogue(
    root: Path,
    *,
    cache_dir: Path,
    now: datetime,
    refresh: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> Catalogue:
    """The vault's catalogue, brought up to date first if its files' folders changed.

    Args:
        root: The vault folder.
        cache_dir: The user cache folder (the catalogue lives below it).
        now: Current time (UTC), recorded as the catalogue's ``built_at`` when it is
            written.
        refresh: Stat every item file even when the signature is trusted (a file
            was found changed in place).
        progress: Called as ``progress(READING, done, total)`` while item files
            are read (all of them on a first build, the changed ones after).

    Returns:
        The catalogue, saved for the next command when it had to be refreshed.

    Raises:
        VaultNotFound: If the folder does not exist.
    """
    _check_root(root)
    path = _catalogue_path(cache_dir, root)
    saved = _read(path)
    if (
        saved is not None
        and not refresh
        and signature_unchanged(saved["signature"])
        and signature_settled(saved["signature"], saved["recorded_at_ns"])
    ):
        return _catalogue(root, saved, path)
    return _refreshed(root, path, saved, now=now, progress=progress)


def _refreshed(
    root: Path,
    path: Path,
    saved: dict[str, Any] | None,
    *,
    now: datetime,
    progress: Callable[[str, int, int], None] | None = None,
) -> Catalogue:
    """The catalogue brought up to date from ``saved`` (None: built afresh).

    Saved again unless nothing at all changed (no file read, the signature as
    recorded and trusted), so a check that finds the vault as it was writes nothing.
    """
    # The rows are kept and everything else freed by reference counting: a
    # collection during the read would walk them for nothing.
    with collector_paused():
        found = _refresh(root, saved, progress)
    if saved is not None and not found.changed:
        changed_at_ns = saved["changed_at_ns"]
        if (
            found.read == 0
            and found.signature == saved["signature"]
            and signature_settled(saved["signature"], saved["recorded_at_ns"])
        ):
            built_at = datetime.fromtimestamp(saved["built_at_s"], UTC)
            return Catalogue(
                root,
                found.rows,
                len(found.broken),
                built_at,
                changed_at_ns,
                path,
                found.recorded_at_ns,
                found.broken,
            )
    else:
        changed_at_ns = found.recorded_at_ns
    _write(
        path,
        signature=found.signature,
        recorded_at_ns=found.recorded_at_ns,
        rows=found.rows,
        broken=found.broken,
        now=now,
        changed_at_ns=changed_at_ns,
    )
    return Catalogue(
        root,
        found.rows,
        len(found.broken),
        now,
        changed_at_ns,
        path,
        found.recorded_at_ns,
        found.broken,
    )


def save_catalogue(
    root: Path,
    files: Iterable[ItemFile],
    *,
    signature: Signature,
    recorded_at_ns: int,
    cache_dir: Path,
    now: datetime,
) -> None:
    """Save the catalogue of a vault just loaded whole (nothing is read again).

    Args:
        root: The vault folder.
        files: Every item file of the vault as :func:`~sysdrill.content.loader.load_vault`
            loaded it.
        signature: :func:`~sysdrill.app.study_vault.vault_signature`, taken before loading.
        recorded_at_ns: When the signature was taken (ns since the epoch).
        cache_dir: The user cache folder.
        now: Current time (UTC), the catalogue's ``built_at``.
    """
    rows: list[CatalogueRow] = []
    broken: list[_BrokenFile] = []
    for loaded in files:
        if loaded.item is None:
            broken.append((loaded.rel, loaded.size, loaded.mtime_ns))
        else:
            rows.append(_row(loaded, loaded.item))
    _write(
        _catalogue_path(cache_dir, root),
        signature=signature,
        recorded_at_ns=recorded_at_ns,
        rows=rows,
        broken=broken,
        now=now,
        changed_at_ns=recorded_at_ns,
    )


def load_items(
    catalogue: Catalogue, rows: Iterable[CatalogueRow]
) -> list[tuple[ItemFile, Item]] | None:
    """Read the files of ``rows`` (in the order given) and validate their items.

    Returns:
        Each file with its item; None when a file no longer holds the item its row
        names (it was changed in place since: the caller refreshes the catalogue).
    """
    from sysdrill.content.loader import read_item_file

    found: list[tuple[ItemFile, Item]] = []
    for row in rows:
        loaded = read_item_file(catalogue.root / row.rel, row.rel)
        if loaded.item is None or loaded.item.id != row.id:
            return None
        found.append((loaded, loaded.item))
    return found


def find_item(
    root: Path,
    item_id: str,
    *,
    cache_dir: Path,
    now: datetime,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[ItemFile, Item]:
    """The file of the item with ``item_id`` and the item, read from the vault as it is.

    Args:
        root: The vault folder.
        item_id: The item's id.
        cache_dir: The user cache folder (the catalogue lives below it).
        now: Current time (UTC), for the catalogue if it must be brought up to date.
        progress: Called as ``progress(READING, done, total)`` while the catalogue
            reads item files (see :func:`open_catalogue`).

    Raises:
        QuestionNotFound: If no item has that id (the message suggests close ids).
        VaultNotFound: If the folder does not exist.
    """
    catalogue = open_catalogue(root, cache_dir=cache_dir, now=now, progress=progress)
    for attempt in range(2):
        row = catalogue.find(item_id)
        loaded = None if row is None else load_items(catalogue, [row])
        if loaded is not None:
            return loaded[0]
        if attempt == 0:
            # Missing, or changed in place since the catalogue was made (its folder's
            # time kept): look at every file before saying there is no such item.
            catalogue = open_catalogue(
                root, cache_dir=cache_dir, now=now, refresh=True, progress=progress
            )
    import difflib

    from sysdrill.errors import QuestionNotFound

    close = difflib.get_close_matches(item_id, [row.id for row in catalogue.rows], n=3)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    raise QuestionNotFound(f"no item with id '{item_id}'; {hint}find ids with `sysdrill search`")


def _counted(values: Iterable[str | None], none: str) -> dict[str, int]:
    return dict(sorted(Counter(value or none for value in values).items()))


def catalogue_stats(catalogue: Catalogue) -> VaultStats:
    """Counts by track and level, zone, competency area, status and kind, as ``stats`` shows.

    The same counts, in the same order, as
    :func:`~sysdrill.storage.vault_query.vault_stats` gives of a database ``build``
    wrote from the vault: tracks by name, levels within a track in level order.
    """
    from sysdrill.content.enums import Level
    from sysdrill.storage.vault_query import NONE_KEY, VaultStats

    rows = catalogue.rows
    stats = VaultStats(total=len(rows))
    rank = {level.value: level.rank for level in Level}
    pairs = Counter((row.track or NONE_KEY, row.level) for row in rows)
    for (track, level), count in sorted(
        pairs.items(), key=lambda pair: (pair[0][0], rank.get(pair[0][1] or "", 99))
    ):
        stats.by_track_level.setdefault(track, {})[level or NONE_KEY] = count
    stats.by_zone = _counted((row.zone for row in rows), NONE_KEY)
    stats.by_competency_area = _counted((row.competency_area for row in rows), NONE_KEY)
    stats.by_status = _counted((row.status for row in rows), NONE_KEY)
    stats.by_kind = _counted((row.kind for row in rows), NONE_KEY)
    return stats


def adopt_catalogue_state(study: StudyService, catalogue: Catalogue) -> None:
    """:func:`~sysdrill.app.study.adopt_earlier_state` for a vault known by its catalogue.

    The same two cases: a vault that now declares an id takes the state kept
    under its folder's identity, and the legacy state goes to the first vault
    opened that holds one of its studied items; each only while the vault has
    no state of its own (``StudyService.adopt_state`` keeps to that).
    """
    identity = catalogue.identity
    if identity.declared and identity.path_id != identity.vault_id:
        study.adopt_state(VaultId(identity.path_id))
    legacy = study.store.studied_item_ids(StudyScope(study.user_id, LEGACY_VAULT_ID))
    if legacy and not legacy.isdisjoint(row.id for row in catalogue.rows):
        study.adopt_state(LEGACY_VAULT_ID)
