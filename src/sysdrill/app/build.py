"""``sysdrill build``: audit a vault, compile what changed, write the database.

The steps belong to three layers, joined only here:

- the audit (:mod:`sysdrill.check`): a vault with structural errors is refused;
  content findings are counted in the report and the build goes on.
  Small rebuilds audit first; a large one audits in a child process while the
  database is written (:class:`~sysdrill.app.vault_audit.BackgroundCheck`);
- the compiler (:mod:`sysdrill.content.compile`): which files changed since the
  previous build, and the rows they become;
- the writer (:mod:`sysdrill.storage.vault_db`): one SQLite file with FTS5,
  written to a temporary file and moved into place only if the audit is clean.

When nothing changed since the previous build (and it was written by this
version), the build writes nothing.
"""

from __future__ import annotations

import marshal
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sysdrill import __version__
from sysdrill.app.catalogue import open_catalogue
from sysdrill.app.example_draw import with_example_text
from sysdrill.app.vault_audit import (
    AuditOutcome,
    BackgroundCheck,
    ReportedFindings,
    check_errors,
    refuse_invalid,
)
from sysdrill.content.cache import RACY_WINDOW_NS
from sysdrill.content.compile import (
    SHARED_FILES,
    BuildPlan,
    CompiledItem,
    KnownHashes,
    compile_collections,
    compile_items,
    plan_build,
)
from sysdrill.content.gc_pause import collector_paused
from sysdrill.errors import ContentInvalid, StorageError, VaultNotFound
from sysdrill.storage.vault_db import (
    BuildRecord,
    default_db_path,
    read_build_record,
    write_vault_db,
)

__all__ = ["COMPILING", "PARALLEL_CHECK_MIN_FILES", "BuildReport", "build_vault", "compiled_vault"]

COMPILING = "Compiling items"
"""The stage a build reports to its progress callback, one step per changed item file."""

PARALLEL_CHECK_MIN_FILES = 2000
"""Changed item files from which the audit runs in a child process during the build."""


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build did."""

    out: Path
    """The compiled database."""
    items: int
    """Items in the database."""
    published: int
    """Items with status ``published`` (those the release hash covers)."""
    parsed: int
    """Item files parsed by this build (new or changed since the last one)."""
    reused: int
    """Item files carried over unparsed from the previous build."""
    removed: int
    """Item files dropped since the previous build."""
    release_hash: str
    built_at: datetime
    """When the database was written (for an up-to-date build, when it was last written)."""
    up_to_date: bool
    """True when nothing had changed and nothing was written."""
    reported: tuple[ReportedFindings, ...] = ()
    """Findings of the audit that did not stop the build (content findings, and
    warnings and info), counted by rule; empty when no audit ran (an up-to-date
    lenient build, or ``check=False``)."""


def _counted(
    rows: Iterable[CompiledItem], total: int, progress: Callable[[str, int, int], None] | None
) -> Iterator[CompiledItem]:
    """The compiled rows as they are written, reported to ``progress`` one by one."""
    if progress is None:
        yield from rows
        return
    done = 0
    for row in rows:
        progress(COMPILING, done, total)
        yield row
        done += 1
    progress(COMPILING, done, total)


def _require_utc(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        raise ValueError("now must be a timezone-aware UTC datetime")


# What a build makes is acyclic and freed by reference counting: collections meanwhile
# only walk what stays (the plan's records, the rows in flight, a caller's catalogue),
# about a tenth of a first search's CPU at 100,000 items.
@collector_paused()
def build_vault(
    root: Path,
    out: Path,
    *,
    now: datetime,
    cache_dir: Path | None = None,
    check: bool = True,
    strict: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    loadable: Collection[str] | None = None,
    known_hashes: KnownHashes | None = None,
    plan: BuildPlan | None = None,
) -> BuildReport:
    """Compile a vault into a SQLite database, incrementally and atomically.

    Args:
        root: The vault folder.
        out: The database file to write (replaced atomically).
        now: The build time, a timezone-aware UTC datetime (stored as ``built_at``).
        cache_dir: Cache folder for the audit run before building (None: audit afresh).
        check: Run the audit and refuse a vault with structural errors. Off for
            the search's copy (:func:`compiled_vault`) and in tests that exercise
            failures while writing.
        strict: Refuse on every error and warning of the audit, content ones too
            (see :func:`sysdrill.check.policy.blocking_findings`).
        progress: Called as ``progress(COMPILING, done, total)`` as changed item
            files are compiled and written.
        loadable: Compile only these item files (vault-relative paths); a changed
            file not among them is left out of the database. None compiles all.
        known_hashes: Content hashes already computed, taken for files of the
            same size and mtime (see :func:`~sysdrill.content.compile.compile_items`).
        plan: The vault's files as the caller just read them for a new database
            (:func:`~sysdrill.content.compile.plan_build` against no record):
            the database is written afresh from them.

    Returns:
        What was built, parsed and carried over.

    Raises:
        ValueError: If ``now`` is naive or not UTC.
        VaultNotFound: If ``root`` is not an existing folder.
        ContentInvalid: If the vault has blocking findings (nothing is written).
        DuplicateQuestion: If two files define one id (only with ``check=False``).
        StorageError: If the database cannot be written.
    """
    _require_utc(now)
    if not root.is_dir():
        raise VaultNotFound(
            f"vault '{root}' does not exist or is not a folder; pass a vault folder"
        )
    if out.is_dir():
        raise StorageError(f"'{out}' is a folder; give a file name such as {out / 'vault.db'}")
    previous = read_build_record(out) if plan is None else None
    if previous is not None and previous.tool_version != __version__:
        previous = None
    recorded = previous.files if previous is not None else {}
    if plan is None:
        plan = _planned(root, previous)
    item_files = plan.item_files
    if previous is not None and plan.unchanged:
        reported: tuple[ReportedFindings, ...] = ()
        if check and strict:  # built leniently before: content findings still refuse
            outcome = check_errors(root, cache_dir, strict=True)
            refuse_invalid(root, outcome)
            reported = outcome.reported
        return BuildReport(
            out=out,
            items=int(previous.meta.get("item_count", 0)),
            published=int(previous.meta.get("published_count", 0)),
            parsed=0,
            reused=len(item_files),
            removed=0,
            release_hash=previous.meta.get("release_hash", ""),
            built_at=previous.built_at,
            up_to_date=True,
            reported=reported,
        )
    background = None
    audited = AuditOutcome(0, "")
    if check and len(plan.changed) >= PARALLEL_CHECK_MIN_FILES:
        background = BackgroundCheck(root, cache_dir, strict=strict)
    elif check:
        audited = check_errors(root, cache_dir, strict=strict)
        refuse_invalid(root, audited)

    def gate() -> None:
        nonlocal audited
        if background is not None:
            audited = background.result()
            refuse_invalid(root, audited)

    compiled = plan
    if loadable is not None:
        compiled = replace(plan, changed=[rel for rel in plan.changed if rel in loadable])
    try:
        written = write_vault_db(
            out,
            root=root,
            now=now,
            incremental=previous is not None,
            drop=[rel for rel in plan.changed if rel in recorded] + plan.gone,
            items=with_example_text(
                _counted(
                    compile_items(compiled, known=known_hashes), len(compiled.changed), progress
                )
            ),
            collections=compile_collections(plan),
            files=plan.states,
            gate=gate,
        )
    except ContentInvalid:
        # A parse problem or id clash is better explained by the audit's findings.
        if background is not None:
            refuse_invalid(root, background.result())
        raise
    finally:
        if background is not None:
            background.close()
    return BuildReport(
        out=out,
        items=written.items,
        published=written.published,
        parsed=len(plan.changed),
        reused=len(item_files) - len(plan.changed),
        removed=len(plan.gone),
        release_hash=written.release_hash,
        built_at=now,
        up_to_date=False,
        reported=audited.reported,
    )


def _planned(root: Path, previous: BuildRecord | None) -> BuildPlan:
    """:func:`~sysdrill.content.compile.plan_build` against the previous build's record."""
    return plan_build(
        root,
        previous.files if previous is not None else {},
        recorded_at_ns=int(previous.built_at.timestamp() * 1e9) if previous is not None else 0,
    )


def _shared_files(root: Path) -> tuple[tuple[str, int, int], ...]:
    """(name, size in bytes, mtime in ns) of each of the vault's shared files there is."""
    found = []
    for name in SHARED_FILES:
        try:
            stat = os.stat(root / name)
        except OSError:
            continue
        found.append((name, stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def _stamp_path(out: Path) -> Path:
    return out.with_name(f"{out.name}.stamp")


def _compiled_from(out: Path) -> tuple[Any, ...] | None:
    """What the copy at ``out`` was last brought up to date from, as recorded beside it."""
    try:
        stamp = marshal.loads(_stamp_path(out).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return stamp if isinstance(stamp, tuple) and out.is_file() else None


def _record_compiled_from(out: Path, stamp: tuple[Any, ...]) -> None:
    path = _stamp_path(out)
    scratch = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        scratch.write_bytes(marshal.dumps(stamp))
        os.replace(scratch, path)
    except OSError:
        return  # unrecorded, the next search compares every file again: slower, never wrong


@collector_paused()  # as build_vault
def compiled_vault(
    root: Path,
    *,
    now: datetime,
    cache_dir: Path,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Bring the cached compiled copy of a vault up to date and return its path.

    ``search`` reads this copy, so it always sees the vault as it is on disk, a
    file edited in place included. Whether anything changed is asked of the
    vault's catalogue (:mod:`sysdrill.app.catalogue`), which stats every item
    file and reads only the changed ones: when its rows and the shared files
    are as they were when the copy was last brought up to date, the copy is
    used as it is; otherwise the build compiles what changed. A new copy reads
    every file, so the catalogue is checked against what it read instead.

    The copy holds the items the catalogue holds, those whose files load, as
    ``show``, ``stats`` and ``practice`` see them; it runs no audit: after an
    import that would be a cold ``check`` of every item (about 15 s of CPU at
    100,000 items, docs/benchmarks.md), and what it refuses in a file that
    loads is for ``check`` and ``build`` to report, not for a search to stop
    on. A shared file that does not validate, or two files of one id, still
    stop it. Its rows hold the content hash of published items only.

    Args:
        root: The vault folder.
        now: Build time, a timezone-aware UTC datetime.
        cache_dir: The user cache folder; the database is
            :func:`~sysdrill.storage.vault_db.default_db_path`.
        progress: Called as ``progress(stage, done, total)`` while item files are
            read into the catalogue and compiled (see :func:`build_vault`).

    Returns:
        The database path.

    Raises:
        VaultNotFound: If ``root`` is not an existing folder.
        ContentInvalid: If a shared file does not validate or two items share an id.
        StorageError: If the database cannot be written.
    """
    out = default_db_path(root, cache_dir)
    new_copy = not out.is_file()
    # A new copy reads every item file: the catalogue is checked against what that
    # read found instead of by a stat of every file first (0.5 s at 100,000 items).
    catalogue = open_catalogue(
        root, cache_dir=cache_dir, now=now, refresh=not new_copy, progress=progress
    )
    shared = _shared_files(root)  # before the files are read: a later change shows next time
    plan = _planned(root, None) if new_copy else None
    if plan is not None and not catalogue.holds(
        [(rel, *plan.files[rel].state[:2]) for rel in plan.item_files]
    ):
        # A file was changed in place (its folder's time kept) since the catalogue.
        catalogue = open_catalogue(
            root, cache_dir=cache_dir, now=now, refresh=True, progress=progress
        )
    stamp = (__version__, catalogue.changed_at_ns, shared)
    # A shared file changed in the same clock tick as its stat could keep both.
    settled = all(mtime < time.time_ns() - RACY_WINDOW_NS for _, _, mtime in shared)
    if settled and _compiled_from(out) == stamp:
        return out
    loadable = {row.rel for row in catalogue.rows}
    # The catalogue hashed each published item as it read it. The copy needs no other
    # hash (the release hash covers published items; search reads none), so the rows
    # of the others store "" instead of a hash: about half the cost of a row.
    known = {
        row.rel: (row.size_bytes, row.mtime_ns, row.content_hash or "") for row in catalogue.rows
    }
    build_vault(
        root,
        out,
        now=now,
        check=False,
        progress=progress,
        loadable=loadable,
        known_hashes=known,
        plan=plan,
    )
    _record_compiled_from(out, stamp)
    return out
