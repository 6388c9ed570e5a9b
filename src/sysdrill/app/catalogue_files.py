"""Item files read into catalogue rows, in two processes for a large vault.

What :mod:`sysdrill.app.catalogue` reads when it is built or refreshed: each item
file parsed and validated into the plain values of a
:class:`~sysdrill.app.catalogue.CatalogueRow` (in its field order), or the
record of a file that did not load.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sysdrill.content.loader import ItemFile
    from sysdrill.content.models import Item

__all__ = ["PARALLEL_MIN_FILES", "READING", "Entry", "read_entries", "row_values"]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def row_values(loaded: ItemFile, item: Item) -> tuple[Any, ...]:
    """The values of the catalogue row of a loaded item file, in the row's field order."""
    from sysdrill.content.hashing import content_hash

    published = item.status == "published"
    return (
        loaded.rel,
        item.id,
        str(item.status),
        item.deck,
        _text(item.track),
        _text(item.level),
        _text(item.zone),
        item.topic,
        _text(item.competency_area),
        tuple(item.tags),
        str(item.format),
        # The hash of the mapping as written, as ``build`` stores it.
        content_hash(loaded.raw) if published else None,
        loaded.size,
        loaded.mtime_ns,
    )


PARALLEL_MIN_FILES = 2000
"""Item files to read from which a second process reads half of them."""

Entry = tuple[Any, ...]
"""A row as a plain tuple (:func:`row_values`), or a file that did not load:
(rel, size in bytes, mtime in ns)."""


READING = "Reading item files"
"""The stage a catalogue build reports to its progress callback, one step per item file read."""

_REPORT_EVERY = 500
"""Files read between two calls of a progress callback."""


def _entries(
    files: Sequence[tuple[str, str]], report: Callable[[int], None] | None = None
) -> list[Entry]:
    """Read, parse and validate item files: each one's row, or its broken-file record.

    ``report(done)`` is called every :data:`_REPORT_EVERY` files and at the end.
    """
    from sysdrill.content.loader import read_item_file

    found: list[Entry] = []
    for path, rel in files:
        loaded = read_item_file(path, rel)
        if loaded.item is None:
            found.append((rel, loaded.size, loaded.mtime_ns))
        else:
            found.append(row_values(loaded, loaded.item))
        if report is not None and len(found) % _REPORT_EVERY == 0:
            report(len(found))
    if report is not None:
        report(len(found))
    return found


def read_entries(
    files: list[tuple[str, str]], progress: Callable[[str, int, int], None] | None = None
) -> list[Entry]:
    """:func:`_entries` of ``files``, the second half in a forked process when worth it.

    Parsing and validating are CPU-bound Python: a second process is what uses a
    second core (as ``check`` does), and forking shares the imported modules.
    Small reads, one-core machines and hosts running other threads (forking
    copies their locks in whatever state) read in this process.

    ``progress(READING, done, total)`` follows the files read; with two
    processes it follows this one's half, the other's read at the same pace.
    """
    total = len(files)

    def report(scale: int) -> Callable[[int], None] | None:
        if progress is None or not files:
            return None
        return lambda done: progress(READING, min(total, done * scale), total)

    if len(files) < PARALLEL_MIN_FILES or (os.cpu_count() or 1) < 2 or threading.active_count() > 1:
        return _entries(files, report(1))
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if "fork" not in multiprocessing.get_all_start_methods():
        return _entries(files, report(1))
    half = len(files) // 2
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            later = pool.submit(_entries, files[half:])
            return _entries(files[:half], report(2)) + later.result()
    except (OSError, BrokenProcessPool):
        return _entries(files, report(1))
