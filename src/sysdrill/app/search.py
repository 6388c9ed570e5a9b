"""Search a vault, show one item, count its items: what ``search``, ``show`` and ``stats`` do.

Search needs the full-text index of the vault's compiled database
(:func:`~sysdrill.app.build.compiled_vault`), which the CLI and the web app both
read, so both rank matches the same way. ``show`` and ``stats`` of a vault
folder read its catalogue (:mod:`sysdrill.app.catalogue`) instead: ``show``
reads the one item's file, ``stats`` counts the catalogue's rows, and neither
parses every item file nor builds the database. Given a database written by
``sysdrill build`` (``--db``), all three read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from sysdrill.app.example_draw import EXAMPLE_SEED, example_draw
from sysdrill.content.ignore_marks import without_ignore_marks
from sysdrill.content.models import Item
from sysdrill.errors import UsageError
from sysdrill.storage.vault_query import ItemRecord, SearchHit, VaultStats

__all__ = [
    "CountedItems",
    "SearchResult",
    "ShownItem",
    "count_items",
    "search_vault",
    "show_item",
    "show_vault_item",
    "vault_database",
]


def vault_database(
    vault: Path | None,
    db: Path | None,
    *,
    now: datetime,
    cache_dir: Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """The compiled database to read: ``db`` as given, else the vault's up-to-date copy.

    Args:
        vault: Vault folder; the bundled sample vault when both are None.
        db: A database written by ``sysdrill build``.
        now: Build time (UTC) if the copy must be brought up to date.
        cache_dir: The user cache folder holding the compiled copies.
        progress: Called as ``progress(stage, done, total)`` while the copy is
            brought up to date (:func:`~sysdrill.app.build.compiled_vault`).

    Raises:
        UsageError: If both ``vault`` and ``db`` are given.
        VaultNotFound: If the vault folder does not exist.
        ContentInvalid: If the vault has error findings.
    """
    from sysdrill.app.build import compiled_vault
    from sysdrill.content.sample import default_vault_path

    _one_source(vault, db)
    if db is not None:
        return db
    root = vault if vault is not None else default_vault_path()
    return compiled_vault(root, now=now, cache_dir=cache_dir, progress=progress)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Items matching a query, best first (by id when the query is blank)."""

    query: str
    hits: list[SearchHit]
    total: int | None = None
    """Every match, beyond the limit (counted only when asked for)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: the query, each hit and the total when counted."""
        shown = {"query": self.query, "hits": [hit.to_dict() for hit in self.hits]}
        return shown if self.total is None else shown | {"total": self.total}


def search_vault(
    database: Path,
    query: str,
    *,
    tracks: Sequence[str] = (),
    levels: Sequence[str] = (),
    topics: Sequence[str] = (),
    limit: int = 20,
    count_all: bool = False,
    name_untitled: bool = True,
) -> SearchResult:
    """Full-text search of a compiled vault (FTS5 syntax, else plain words).

    Args:
        database: A compiled vault.
        query: Words to find; blank lists items by id.
        tracks: Keep only these tracks (any of them).
        levels: Keep only these levels.
        topics: Keep only these topics.
        limit: Most hits returned.
        count_all: Also count every match (``total``) without ranking past ``limit``.
        name_untitled: Give each hit without a title the first words of its question
            (:func:`~sysdrill.study.sessions.text.untitled_heading`), as every other
            view names it; a caller that shows no titles saves reading those items.

    Raises:
        StorageError: If the database cannot be read.
    """
    from sysdrill.storage.vault_query import count_matches, search_items

    hits = search_items(database, query, tracks=tracks, levels=levels, topics=topics, limit=limit)
    if name_untitled:
        hits = [hit if hit.title else _named(database, hit) for hit in hits]
    total = None
    if count_all:
        total = count_matches(database, query, tracks=tracks, levels=levels, topics=topics)
    return SearchResult(query=query, hits=hits, total=total)


def _named(database: Path, hit: SearchHit) -> SearchHit:
    """``hit`` titled by the opening of its question (of its example draw, for a template)."""
    from sysdrill.storage.vault_query import get_item
    from sysdrill.study.sessions.text import untitled_heading

    return replace(hit, title=untitled_heading(_shown(get_item(database, hit.id)).shown))


@dataclass(frozen=True, slots=True)
class ShownItem:
    """One item of a compiled vault with the file it came from.

    A parametric item is shown with its example draw (:mod:`sysdrill.app.example_draw`):
    ``record.item`` is the template as written, :attr:`shown` the item with numbers.
    """

    record: ItemRecord
    shown: Item
    draw_values: dict[str, float] | None = None
    """A template's drawn numbers by parameter name, in their declared units."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping: id, path in the vault, content hash and the item's fields.

        A template adds ``example``: the seed, the numbers drawn and the item they make.
        """
        from sysdrill.content.models import dump_item

        record = self.record
        shown: dict[str, Any] = {
            "id": record.item.id,
            "path": record.path,
            "content_hash": record.content_hash,
            "item": dump_item(record.item),
        }
        if self.draw_values is not None:
            shown["example"] = {
                "seed": EXAMPLE_SEED,
                "values": dict(self.draw_values),
                "item": dump_item(self.shown),
            }
        return shown


def show_item(database: Path, item_id: str) -> ShownItem:
    """The item with ``item_id`` (a template with its example draw).

    Raises:
        QuestionNotFound: If there is none (the message suggests close ids).
        StorageError: If the database cannot be read.
    """
    from sysdrill.storage.vault_query import get_item

    return _shown(get_item(database, item_id))


def _shown(record: ItemRecord, raw: Any = None) -> ShownItem:
    # What a reader sees: an author's ``# sysdrill: ignore[...]`` marker is check's.
    item = without_ignore_marks(record.item, raw=raw)
    if item is not record.item:
        record = replace(record, item=item)
    draw = example_draw(record.item)
    if draw is None:
        return ShownItem(record, record.item)
    return ShownItem(record, draw.item, dict(draw.values))


def _one_source(vault: Path | None, db: Path | None) -> None:
    if db is not None and vault is not None:
        raise UsageError("give --vault or --db, not both")


def show_vault_item(
    vault: Path | None,
    db: Path | None,
    item_id: str,
    *,
    now: datetime,
    cache_dir: Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> ShownItem:
    """The item with ``item_id``: read from its file in the vault, or from ``db``.

    Args:
        vault: Vault folder; the bundled starter vault when both are None.
        db: A database written by ``sysdrill build``.
        item_id: The item's id.
        now: Current time (UTC), for the catalogue if it must be brought up to date.
        cache_dir: The user cache folder holding the vault's catalogue.
        progress: Called as ``progress(stage, done, total)`` while the catalogue
            reads item files (:func:`~sysdrill.app.catalogue.find_item`).

    Raises:
        UsageError: If both ``vault`` and ``db`` are given.
        QuestionNotFound: If there is none (the message suggests close ids).
        VaultNotFound: If the vault folder does not exist.
        StorageError: If the database cannot be read.
    """
    from sysdrill.app.catalogue import find_item
    from sysdrill.content.hashing import content_hash
    from sysdrill.content.sample import default_vault_path

    _one_source(vault, db)
    if db is not None:
        return show_item(db, item_id)
    file, item = find_item(
        vault or default_vault_path(), item_id, cache_dir=cache_dir, now=now, progress=progress
    )
    # The hash of the mapping as written, as ``build`` stores it.
    record = ItemRecord(item=item, path=file.rel, content_hash=content_hash(file.raw))
    return _shown(record, raw=file.raw)


@dataclass(frozen=True, slots=True)
class CountedItems:
    """What ``stats`` shows: the counts, the release they describe, and when it was read."""

    stats: VaultStats
    release_hash: str
    built_at: datetime
    """When the counts were last brought up to date from the files."""
    broken_files: int = 0
    """Item files left out because they do not load (``sysdrill check`` says why)."""


def count_items(
    vault: Path | None,
    db: Path | None,
    *,
    now: datetime,
    cache_dir: Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> CountedItems:
    """Counts of a vault's items (by its catalogue), or of a database ``build`` wrote.

    Args:
        vault: Vault folder; the bundled starter vault when both are None.
        db: A database written by ``sysdrill build``.
        now: Current time (UTC), for the catalogue if it must be brought up to date.
        cache_dir: The user cache folder holding the vault's catalogue.
        progress: Called as ``progress(stage, done, total)`` while the catalogue
            reads item files (:func:`~sysdrill.app.catalogue.open_catalogue`).

    Raises:
        UsageError: If both ``vault`` and ``db`` are given.
        VaultNotFound: If the vault folder does not exist.
        StorageError: If the database cannot be read.
    """
    from sysdrill.app.catalogue import catalogue_stats, open_catalogue
    from sysdrill.content.sample import default_vault_path
    from sysdrill.storage.vault_query import read_release, vault_stats

    _one_source(vault, db)
    if db is not None:
        release = read_release(db)
        return CountedItems(vault_stats(db), release.release_hash, release.built_at)
    catalogue = open_catalogue(
        vault or default_vault_path(), cache_dir=cache_dir, now=now, progress=progress
    )
    return CountedItems(
        catalogue_stats(catalogue),
        catalogue.release_hash,
        catalogue.built_at,
        catalogue.broken_files,
    )
