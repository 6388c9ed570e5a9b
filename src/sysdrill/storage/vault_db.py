"""Compile a vault into one SQLite file: ``sysdrill build``.

The build is incremental and atomic:

- Every item file and shared file (``taxonomy.yaml``, ``chains.yaml``,
  ``decks.yaml``) is recorded in the ``files`` table with its size, mtime (ns)
  and SHA-256 digest. A file unchanged in all three since the last build is not
  parsed again: its rows are carried over. Like git, an item file whose size
  and mtime match and whose mtime is more than two seconds older than the last
  build is not even read (:data:`RACY_WINDOW_NS`). When nothing changed at all (and the
  database was written by this version), the build writes nothing.
- The new database is written to a temporary file beside the target (starting
  from a copy of the previous build) and moved into place with :func:`os.replace`,
  so a failed build leaves the previous database untouched.
- A vault with error findings is refused: the build runs the full audit
  (:func:`sysdrill.check.run_check`); on large rebuilds in a child process
  while it writes, and the new file replaces the old only if the audit is clean.

Read functions for ``search``, ``show`` and ``stats`` live in
:mod:`sysdrill.storage.vault_query` and are re-exported here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sysdrill import __version__
from sysdrill.content.collections import SHARED_MODELS, combine_collections
from sysdrill.content.diagnostics import Severity
from sysdrill.content.enums import Level
from sysdrill.content.hashing import content_hash, release_hash_from_hashes
from sysdrill.content.loader import parse_shared, parse_yaml
from sysdrill.errors import ContentInvalid, DuplicateQuestion, StorageError, VaultNotFound
from sysdrill.storage.vault_audit import BackgroundCheck, check_errors, refuse_invalid
from sysdrill.storage.vault_query import (
    ItemRecord,
    ReleaseInfo,
    SearchHit,
    VaultStats,
    get_item,
    read_release,
    search_items,
    vault_stats,
)
from sysdrill.storage.vault_schema import SCHEMA_SQL, SCHEMA_VERSION

__all__ = [
    "SHARED_FILES",
    "BuildReport",
    "ItemRecord",
    "ReleaseInfo",
    "SearchHit",
    "VaultStats",
    "build_vault",
    "compiled_vault",
    "default_db_path",
    "get_item",
    "read_release",
    "search_items",
    "vault_stats",
]

SHARED_FILES: tuple[str, ...] = tuple(SHARED_MODELS)
"""Vault files besides the items, tracked for incremental builds."""

_LEVEL_RANK = {level.value: level.rank for level in Level}


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


@dataclass(slots=True)
class _File:
    rel: str
    path: str
    size_bytes: int
    mtime_ns: int
    digest: str
    data: bytes


def default_db_path(root: Path, cache_dir: Path) -> Path:
    """Where ``search``, ``show`` and ``stats`` keep the compiled copy of a vault.

    Args:
        root: The vault folder.
        cache_dir: The user cache folder (``SYSDRILL_CACHE_DIR`` or the platform's).

    Returns:
        ``<cache_dir>/vaults/<first 20 hex of SHA-256 of the resolved root>.db``.
    """
    key = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:20]
    return cache_dir / "vaults" / f"{key}.db"


def _require_utc(now: datetime) -> None:
    if now.tzinfo is None or now.utcoffset() != timedelta(0):
        raise ValueError("now must be a timezone-aware UTC datetime")


def _item_files(root: str) -> list[str]:
    """Relative paths of the item files (``questions/**/*.yaml|yml``), as the loader finds them."""
    found: list[str] = []
    pending = [os.path.join(root, "questions")]
    if not os.path.isdir(pending[0]):
        return found
    prefix = len(root) + 1
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.name.endswith((".yaml", ".yml")) and entry.is_file():
                    found.append(entry.path[prefix:].replace(os.sep, "/"))
    return sorted(found)


PARALLEL_CHECK_MIN_FILES = 2000
"""Changed item files from which the audit runs in a child process during the build."""

RACY_WINDOW_NS = 2_000_000_000
"""Files modified this close to (or after) the last build are always hashed."""


def _scan(
    root: Path,
    known: Mapping[str, tuple[int, int, str]],
    *,
    trusted_before_ns: int,
) -> dict[str, _File]:
    """Stat every tracked file; read and hash those that may have changed.

    An item file whose size and mtime equal the last build's, and whose mtime is
    older than ``trusted_before_ns``, keeps its recorded digest unread, as git
    does: an edit within the same clock tick as the last build could keep size
    and mtime, so files that recent are hashed anyway. Plain strings instead of
    Path objects: on 10,000 files pathlib's overhead is most of a no-change build.
    """
    base = str(root)
    rels = [name for name in SHARED_FILES if os.path.isfile(os.path.join(base, name))]
    rels.extend(_item_files(base))
    found: dict[str, _File] = {}
    for rel in rels:
        full = os.path.join(base, rel)
        try:
            old = known.get(rel)
            if old is not None and rel not in SHARED_FILES:
                stat = os.stat(full)
                if (stat.st_size, stat.st_mtime_ns) == old[:2] and (
                    stat.st_mtime_ns < trusted_before_ns
                ):
                    found[rel] = _File(rel, full, stat.st_size, stat.st_mtime_ns, old[2], b"")
                    continue
            with open(full, "rb") as handle:
                stat = os.fstat(handle.fileno())
                data = handle.read()
        except OSError as exc:
            raise ContentInvalid(
                f"{rel}: cannot read file ({exc.strerror}); check its permissions"
            ) from exc
        found[rel] = _File(
            rel, full, stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest(), data
        )
    return found


def _previous(out: Path) -> tuple[dict[str, tuple[int, int, str]], dict[str, str]] | None:
    """Files and meta of the previous build, or None if there is no usable one."""
    if not out.is_file():
        return None
    try:
        with contextlib.closing(sqlite3.connect(out)) as db:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("schema_version") != str(SCHEMA_VERSION):
                return None
            files = {
                rel: (size, mtime, digest)
                for rel, size, mtime, digest in db.execute(
                    "SELECT rel, size_bytes, mtime_ns, digest FROM files"
                )
            }
    except sqlite3.Error:
        return None
    return files, meta


def _parse(file: _File) -> dict[str, Any]:
    raw, findings = parse_yaml(file.data, file.rel)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        raise ContentInvalid(f"{errors[0].render()}; run `sysdrill check` for every finding")
    if not isinstance(raw, dict):
        raise ContentInvalid(
            f"{file.rel}: top level is not a mapping; run `sysdrill check` for every finding"
        )
    return raw


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _answer_text(raw: Mapping[str, Any]) -> str:
    details = raw.get("details") if isinstance(raw.get("details"), dict) else {}
    assert isinstance(details, dict)
    pieces = [details.get("realistic_solution")]
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


def _item_row(rel: str, raw: dict[str, Any]) -> tuple[Any, ...]:
    item_id = raw.get("id")
    if not isinstance(item_id, str) or not item_id:
        raise ContentInvalid(f"{rel}: the item has no id; run `sysdrill check` for every finding")
    level = raw.get("level")
    return (
        item_id,
        rel,
        raw.get("format") or "question",
        raw.get("track"),
        level,
        _LEVEL_RANK.get(level) if isinstance(level, str) else None,
        raw.get("zone"),
        raw.get("topic"),
        raw.get("competency_area"),
        raw.get("bloom_level"),
        raw.get("phase"),
        raw.get("status") or "draft",
        _text(raw.get("title")),
        _text(raw.get("scenario")),
        _text(raw.get("question")),
        _answer_text(raw),
        _text(raw.get("deck")),
        content_hash(raw),
        _json(raw),
    )


_ITEM_COLUMNS = (
    "id, path, kind, track, level, level_rank, zone, topic, competency_area, bloom_level, "
    "phase, status, title, scenario, question, answer, deck, content_hash, item_json"
)


def _shared(file: _File, model: Any) -> Any:
    raw, findings = parse_shared(file.data, file.rel)
    errors = [f for f in findings if f.severity is Severity.ERROR]
    if errors:
        raise ContentInvalid(f"{errors[0].render()}; run `sysdrill check` for every finding")
    try:
        return model.model_validate(raw if raw is not None else model().model_dump())
    except ValueError as exc:
        raise ContentInvalid(f"{file.rel}: {exc}; run `sysdrill check` for every finding") from exc


def _drop_rows(db: sqlite3.Connection, rels: list[str]) -> None:
    """Delete the items of ``rels`` and their full-text and tag rows."""
    for start in range(0, len(rels), 500):
        chunk = rels[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = db.execute(
            "SELECT rowid, id, title, scenario, question, answer FROM items "
            f"WHERE path IN ({marks})",
            chunk,
        ).fetchall()
        db.executemany(
            "INSERT INTO items_fts(items_fts, rowid, title, scenario, question, answer) "
            "VALUES ('delete', ?, ?, ?, ?, ?)",
            [(row[0], *row[2:]) for row in rows],
        )
        db.executemany("DELETE FROM tags WHERE item_id = ?", [(row[1],) for row in rows])
        db.executemany("DELETE FROM items WHERE rowid = ?", [(row[0],) for row in rows])


def _duplicate_message(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> str:
    # executemany stops at the clash, so rows before it may be stored already.
    paths: dict[str, set[str]] = {}
    for item_id, path in db.execute("SELECT id, path FROM items").fetchall():
        paths.setdefault(item_id, set()).add(path)
    for row in rows:
        paths.setdefault(row[0], set()).add(row[1])
    for item_id, where in sorted(paths.items()):
        if len(where) > 1:
            return (
                f"id '{item_id}' is defined by {' and '.join(sorted(where))}; "
                "give each item its own id (`sysdrill check` lists every clash)"
            )
    return "two items share one id; run `sysdrill check` to find them"


_BATCH = 1000
"""Items parsed and inserted per ``executemany``; bounds memory on large builds."""


def _insert_items(db: sqlite3.Connection, files: dict[str, _File], rels: list[str]) -> None:
    """Parse, hash and insert the items of ``rels`` with their tags and full-text rows."""
    for start in range(0, len(rels), _BATCH):
        rows: list[tuple[Any, ...]] = []
        tags: list[tuple[str, str]] = []
        for rel in rels[start : start + _BATCH]:
            raw = _parse(files[rel])
            files[rel].data = b""  # the bytes are no longer needed
            row = _item_row(rel, raw)
            rows.append(row)
            values = raw.get("tags")
            if isinstance(values, list):
                tags.extend((row[0], str(tag)) for tag in values)
        try:
            db.executemany(
                f"INSERT INTO items ({_ITEM_COLUMNS}) VALUES ({','.join('?' * 19)})", rows
            )
        except sqlite3.IntegrityError as exc:
            raise DuplicateQuestion(_duplicate_message(db, rows)) from exc
        db.executemany("INSERT OR IGNORE INTO tags (item_id, tag) VALUES (?, ?)", tags)
        ids = [row[0] for row in rows]
        for first in range(0, len(ids), 500):
            chunk = ids[first : first + 500]
            marks = ",".join("?" * len(chunk))
            db.execute(
                "INSERT INTO items_fts (rowid, title, scenario, question, answer) "
                f"SELECT rowid, title, scenario, question, answer FROM items WHERE id IN ({marks})",
                chunk,
            )


def _write_collections(db: sqlite3.Connection, files: dict[str, _File]) -> None:
    """Rewrite decks, chains and topics (small) from the shared files and item decks."""
    parts = {
        name: _shared(files[name], model) for name, model in SHARED_MODELS.items() if name in files
    }
    merged = combine_collections(parts)
    topics = merged.taxonomy.topics if merged.taxonomy is not None else []
    for table in ("decks", "deck_items", "chains", "chain_items", "topics", "topic_prerequisites"):
        db.execute(f"DELETE FROM {table}")
    db.executemany(
        "INSERT INTO topics (id, name, area, description) VALUES (?, ?, ?, ?)",
        [(t.id, t.name, t.area.value if t.area else None, t.description) for t in topics],
    )
    db.executemany(
        "INSERT OR IGNORE INTO topic_prerequisites (topic, prerequisite) VALUES (?, ?)",
        [(t.id, p) for t in topics for p in t.prerequisite_ids],
    )
    db.executemany(
        "INSERT OR REPLACE INTO chains (id, topic, title) VALUES (?, ?, ?)",
        [(c.id, c.topic, c.title) for c in merged.chains],
    )
    db.executemany(
        "INSERT OR REPLACE INTO chain_items (chain_id, position, item_id) VALUES (?, ?, ?)",
        [(c.id, pos, item_id) for c in merged.chains for pos, item_id in enumerate(c.items)],
    )
    members: dict[str, list[str]] = {}
    for deck in merged.decks:
        db.execute(
            "INSERT OR REPLACE INTO decks (name, title, description, track) VALUES (?, ?, ?, ?)",
            (deck.name, deck.title, deck.description, deck.track.value if deck.track else None),
        )
        members.setdefault(deck.name, []).extend(deck.items)
    for item_id, deck_name in db.execute(
        "SELECT id, deck FROM items WHERE deck IS NOT NULL ORDER BY id"
    ).fetchall():
        if deck_name not in members:
            db.execute("INSERT INTO decks (name) VALUES (?)", (deck_name,))
            members[deck_name] = []
        if item_id not in members[deck_name]:
            members[deck_name].append(item_id)
    db.executemany(
        "INSERT INTO deck_items (deck, position, item_id) VALUES (?, ?, ?)",
        [(name, pos, item_id) for name, ids in members.items() for pos, item_id in enumerate(ids)],
    )


def _write_meta(db: sqlite3.Connection, root: Path, now: datetime) -> tuple[str, int, int]:
    pairs = db.execute("SELECT id, content_hash FROM items WHERE status = 'published'").fetchall()
    digest = release_hash_from_hashes(pairs)
    count = db.execute("SELECT count(*) FROM items").fetchone()[0]
    meta = {
        "schema_version": str(SCHEMA_VERSION),
        "tool_version": __version__,
        "built_at": now.isoformat(),
        "release_hash": digest,
        "item_count": str(count),
        "published_count": str(len(pairs)),
        "vault_root": str(root.resolve()),
    }
    db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta.items())
    return digest, count, len(pairs)


@contextlib.contextmanager
def _staging(
    out: Path, *, start_from: Path | None, gate: Callable[[], None]
) -> Iterator[sqlite3.Connection]:
    """A connection to a temporary copy of ``out``, moved into place on success.

    ``gate`` runs after the commit and before the move; raising there discards
    the temporary file and leaves ``out`` as it was.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if start_from is not None:
            shutil.copyfile(start_from, tmp)
        elif tmp.exists():
            tmp.unlink()
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            db.execute("PRAGMA cache_size = -65536")
            if start_from is None:
                db.executescript(SCHEMA_SQL)
            db.execute("BEGIN")
            yield db
            db.execute("COMMIT")
        finally:
            db.close()
        gate()
        os.replace(tmp, out)
    except sqlite3.Error as exc:
        raise StorageError(
            f"cannot write '{out}' ({exc}); check free space and permissions"
        ) from exc
    except OSError as exc:
        raise StorageError(
            f"cannot write '{out}' ({exc.strerror}); check free space and permissions"
        ) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def build_vault(
    root: Path,
    out: Path,
    *,
    now: datetime,
    cache_dir: Path | None = None,
    check: bool = True,
) -> BuildReport:
    """Compile a vault into a SQLite database, incrementally and atomically.

    Args:
        root: The vault folder.
        out: The database file to write (replaced atomically).
        now: The build time, a timezone-aware UTC datetime (stored as ``built_at``).
        cache_dir: Cache folder for the audit run before building (None: audit afresh).
        check: Run the audit and refuse a vault with error findings. Only tests
            turn this off, to exercise failures while writing.

    Returns:
        What was built, parsed and carried over.

    Raises:
        ValueError: If ``now`` is naive or not UTC.
        VaultNotFound: If ``root`` is not an existing folder.
        ContentInvalid: If the vault has error findings (nothing is written).
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
    previous = _previous(out)
    old_files, old_meta = previous if previous is not None else ({}, {})
    if previous is not None and old_meta.get("tool_version") != __version__:
        previous, old_files, old_meta = None, {}, {}
    trusted_before_ns = 0
    if previous is not None:
        last = datetime.fromisoformat(old_meta["built_at"])
        trusted_before_ns = int(last.timestamp() * 1e9) - RACY_WINDOW_NS
    files = _scan(root, old_files, trusted_before_ns=trusted_before_ns)
    current = {rel: (f.size_bytes, f.mtime_ns, f.digest) for rel, f in files.items()}
    item_rels = [rel for rel in files if rel not in SHARED_FILES]
    if previous is not None and current == old_files:
        return BuildReport(
            out=out,
            items=int(old_meta.get("item_count", 0)),
            published=int(old_meta.get("published_count", 0)),
            parsed=0,
            reused=len(item_rels),
            removed=0,
            release_hash=old_meta.get("release_hash", ""),
            built_at=datetime.fromisoformat(old_meta["built_at"]),
            up_to_date=True,
        )
    changed = [rel for rel in item_rels if old_files.get(rel) != current[rel]]
    gone = [rel for rel in old_files if rel not in current and rel not in SHARED_FILES]
    background = None
    if check and len(changed) >= PARALLEL_CHECK_MIN_FILES:
        background = BackgroundCheck(root, cache_dir)
    elif check:
        refuse_invalid(root, check_errors(root, cache_dir))

    def gate() -> None:
        if background is not None:
            refuse_invalid(root, background.result())

    try:
        with _staging(out, start_from=out if previous is not None else None, gate=gate) as db:
            _drop_rows(db, [rel for rel in changed if rel in old_files] + gone)
            _insert_items(db, files, changed)
            _write_collections(db, files)
            db.execute("DELETE FROM files")
            db.executemany(
                "INSERT INTO files (rel, size_bytes, mtime_ns, digest) VALUES (?, ?, ?, ?)",
                [(rel, *stat) for rel, stat in current.items()],
            )
            digest, count, published = _write_meta(db, root, now)
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
        items=count,
        published=published,
        parsed=len(changed),
        reused=len(item_rels) - len(changed),
        removed=len(gone),
        release_hash=digest,
        built_at=now,
        up_to_date=False,
    )


def compiled_vault(root: Path, *, now: datetime, cache_dir: Path) -> Path:
    """Bring the cached compiled copy of a vault up to date and return its path.

    ``search``, ``show`` and ``stats`` read this copy, so they always see the
    vault as it is on disk; an unchanged vault costs one scan of its files.

    Args:
        root: The vault folder.
        now: Build time, a timezone-aware UTC datetime.
        cache_dir: The user cache folder; the database is :func:`default_db_path`.

    Returns:
        The database path.

    Raises:
        VaultNotFound: If ``root`` is not an existing folder.
        ContentInvalid: If the vault has error findings.
        StorageError: If the database cannot be written.
    """
    out = default_db_path(root, cache_dir)
    build_vault(root, out, now=now, cache_dir=cache_dir)
    return out
