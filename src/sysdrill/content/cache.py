"""A per-vault cache of loaded item files, so unchanged files are not parsed again.

An entry is reused only when the file's size, modification time (ns) and SHA-256
digest all match what was cached; :meth:`ParseCache.lookup_stat` lets the check
runner skip reading files whose size and mtime match, as git does, except files
modified within two seconds of the cache's writing (:func:`trusted_by_stat`, the
rule ``build`` applies to its own record of files too).

The cache holds two files per vault: a small index (sizes, digests, loader
findings, an opaque slot per file the ``check`` runner fills with its per-file
findings, and one for the whole vault, :attr:`ParseCache.vault_extra`) and the
raw mappings, read only when a caller needs an unchanged file's content. Both
are written with :mod:`marshal`, which holds plain data only (no code runs on
load), atomically (temporary file, then rename). A cache that is missing,
corrupt or from another version is ignored.

The folder is ``SYSDRILL_CACHE_DIR`` when set, else the platform's user cache
folder (``platformdirs.user_cache_dir("sysdrill")``).
"""

from __future__ import annotations

import hashlib
import marshal
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sysdrill import __version__
from sysdrill.content.diagnostics import Finding, Severity

__all__ = [
    "CACHE_FORMAT",
    "CachedFile",
    "ParseCache",
    "default_cache_dir",
    "findings_from_data",
    "findings_to_data",
    "raw_blob",
    "trusted_by_stat",
]

CACHE_FORMAT = 3
"""Bumped whenever the layout of the cache files changes."""

RACY_WINDOW_NS = 2_000_000_000
"""Files modified this close (ns) before a record of them was written are always hashed again."""


def trusted_by_stat(
    recorded: tuple[int, int], *, size: int, mtime_ns: int, recorded_at_ns: int
) -> bool:
    """Whether a file may be taken as unchanged without reading it, as git's index does.

    Args:
        recorded: (size in bytes, mtime in ns) when the file was last read.
        size: The file's size now, in bytes.
        mtime_ns: Its modification time now, in ns since the epoch.
        recorded_at_ns: When the record was written, in ns since the epoch.

    Returns:
        True when size and mtime are unchanged and the mtime lies more than
        :data:`RACY_WINDOW_NS` before the record: an edit within the same clock
        tick as the record could keep both, so a file that recent is hashed.
    """
    return recorded == (size, mtime_ns) and mtime_ns < recorded_at_ns - RACY_WINDOW_NS


def default_cache_dir() -> Path:
    """Folder for caches: ``SYSDRILL_CACHE_DIR`` or the platform's user cache folder."""
    override = os.environ.get("SYSDRILL_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("sysdrill", appauthor=False))


@dataclass(slots=True)
class CachedFile:
    """What the cache knows about one item file."""

    size: int
    """File size in bytes."""
    mtime_ns: int
    """Modification time in nanoseconds since the epoch."""
    digest: str
    """SHA-256 hex digest of the file bytes."""
    valid: bool
    """Whether the raw mapping validated as an item."""
    findings: tuple[Finding, ...]
    """Findings the loader made for this file."""
    extra: Any = None
    """Opaque marshal-able data a caller attached (the check runner's findings)."""


def _finding_to_tuple(finding: Finding) -> tuple[Any, ...]:
    return (
        finding.code,
        finding.severity.value,
        finding.path,
        finding.line,
        finding.column,
        finding.message,
        finding.fix,
    )


def findings_to_data(findings: tuple[Finding, ...] | list[Finding]) -> tuple[Any, ...]:
    """Findings as plain tuples, for :mod:`marshal`."""
    if not findings:
        return ()
    return tuple(_finding_to_tuple(f) for f in findings)


def findings_from_data(data: Any) -> tuple[Finding, ...]:
    """Findings back from :func:`findings_to_data` output."""
    if not data:
        return ()
    return tuple(
        Finding(code, Severity(severity), path, line, column, message, fix)
        for code, severity, path, line, column, message, fix in data
    )


def raw_blob(raw: Any) -> bytes | None:
    """``raw`` in the cache's storage form, or None when marshal cannot hold it."""
    try:
        return marshal.dumps(raw)
    except ValueError:
        return None


def code_fingerprint(*folders: Path) -> str:
    """Size and mtime of every module in ``folders``, hashed.

    Cached findings depend on the code that made them (the models and the rules);
    a released version changes ``__version__``, but a working copy changes code
    without a version bump, so the modules themselves are part of the cache key.
    """
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            stat = path.stat()
            digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()[:20]


CONTENT_CODE = Path(__file__).resolve().parent
"""The content package: its models decide what validates."""


class ParseCache:
    """The cache of one vault folder, loaded from and saved to ``cache_dir``.

    Args:
        cache_dir: Folder holding caches of any number of vaults.
        root: The vault folder this cache belongs to.
        salt: Extra text that must match for the cache to be used (for example
            the parser in use), so that a change of behaviour starts afresh.
        keeps_raw: Whether entries keep the raw mapping (the loader needs it to
            rebuild items; the check runner needs only findings and summaries).
    """

    def __init__(
        self, cache_dir: Path, root: Path, *, salt: str = "", keeps_raw: bool = True
    ) -> None:
        key = hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:20]
        self.keeps_raw = keeps_raw
        self.folder = cache_dir / f"{'vault' if keeps_raw else 'check'}-{key}"
        self._stamp = f"{CACHE_FORMAT}/{__version__}/{salt}/{code_fingerprint(CONTENT_CODE)}"
        self._index: dict[str, CachedFile] = {}
        self._raw: dict[str, bytes] | None = None
        self._new_raw: dict[str, bytes] = {}
        self._seen: set[str] = set()
        self._saved_at_ns = 0
        self._dirty = False
        self._vault_extra: Any = None
        self._load_index()

    @property
    def has_entries(self) -> bool:
        """Whether anything was cached before."""
        return bool(self._index)

    @property
    def index_path(self) -> Path:
        """File holding the index."""
        return self.folder / "index.marshal"

    @property
    def raw_path(self) -> Path:
        """File holding the raw mappings."""
        return self.folder / "raw.marshal"

    def _read(self, path: Path) -> Any:
        try:
            data = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if not isinstance(data, tuple) or len(data) != 2 or data[0] != self._stamp:
            return None
        return data[1]

    @property
    def vault_extra(self) -> Any:
        """Opaque marshal-able data a caller keeps for the whole vault (None if none)."""
        return self._vault_extra

    @vault_extra.setter
    def vault_extra(self, value: Any) -> None:
        if value != self._vault_extra:
            self._vault_extra = value
            self._dirty = True

    def _load_index(self) -> None:
        payload = self._read(self.index_path)
        if not isinstance(payload, tuple) or len(payload) != 3:
            return
        saved_at_ns, entries, vault_extra = payload
        if not isinstance(entries, dict) or not isinstance(saved_at_ns, int):
            return
        self._saved_at_ns = saved_at_ns
        self._vault_extra = vault_extra
        try:
            for rel, (size, mtime_ns, digest, valid, findings, extra) in entries.items():
                self._index[rel] = CachedFile(
                    size, mtime_ns, digest, valid, findings_from_data(findings), extra
                )
        except (TypeError, ValueError):
            self._index = {}

    def lookup(self, rel: str, *, size: int, mtime_ns: int, digest: str) -> CachedFile | None:
        """The cached entry of ``rel`` if the file is unchanged, else None."""
        self._seen.add(rel)
        entry = self._index.get(rel)
        if entry is None or (entry.size, entry.mtime_ns, entry.digest) != (size, mtime_ns, digest):
            return None
        return entry

    def entry(self, rel: str) -> CachedFile | None:
        """The entry of ``rel`` as it stands (after :meth:`lookup` or :meth:`store`)."""
        return self._index.get(rel)

    def _blob(self, rel: str) -> bytes | None:
        if rel in self._new_raw:
            return self._new_raw[rel]
        if self._raw is None:
            loaded = self._read(self.raw_path)
            self._raw = loaded if isinstance(loaded, dict) else {}
        return self._raw.get(rel)

    def lookup_stat(self, rel: str, *, size: int, mtime_ns: int) -> CachedFile | None:
        """The entry of ``rel`` if size and mtime match and the file is not racy.

        Like git's index, a file whose size and mtime (ns) are unchanged is taken
        as unchanged without reading it (:func:`trusted_by_stat`), unless its
        mtime falls within :data:`RACY_WINDOW_NS` of the moment the cache was
        written: such a file could have been edited again in the same clock
        tick, so the caller must hash it and use :meth:`lookup`.
        """
        entry = self._index.get(rel)
        if entry is None or not trusted_by_stat(
            (entry.size, entry.mtime_ns),
            size=size,
            mtime_ns=mtime_ns,
            recorded_at_ns=self._saved_at_ns,
        ):
            return None
        self._seen.add(rel)
        return entry

    def raw(self, rel: str) -> Any:
        """The raw mapping cached for ``rel`` (None when it was not cached)."""
        blob = self._blob(rel)
        if blob is None:
            return None
        try:
            return marshal.loads(blob)
        except (EOFError, ValueError, TypeError):
            return None

    def store(
        self, rel: str, entry: CachedFile, raw: Any = None, *, blob: bytes | None = None
    ) -> None:
        """Record a freshly loaded file with its raw data (or its :func:`raw_blob`).

        Raw data that marshal cannot hold (dates or binary from the libyaml road)
        is not kept, so such a file is loaded afresh next time.
        """
        if self.keeps_raw:
            if blob is None:
                blob = raw_blob(raw)
                if blob is None:
                    return
            self._new_raw[rel] = blob
        self._seen.add(rel)
        self._index[rel] = entry
        self._dirty = True

    def attach(self, rel: str, extra: Any) -> None:
        """Attach caller data (marshal-able) to the entry of ``rel``."""
        entry = self._index.get(rel)
        if entry is not None and entry.extra != extra:
            entry.extra = extra
            self._dirty = True

    def save(self) -> None:
        """Write the cache if anything changed; files no longer seen are dropped.

        Failing to write (read-only or full disk) is ignored: the cache only saves time.
        """
        stale = set(self._index) - self._seen
        if not self._dirty and not stale:
            return
        for rel in stale:
            del self._index[rel]
        raw: dict[str, bytes] = {}
        for rel in list(self._index) if self.keeps_raw else ():
            blob = self._blob(rel)
            if blob is None:
                del self._index[rel]
            else:
                raw[rel] = blob
        index = {
            rel: (e.size, e.mtime_ns, e.digest, e.valid, findings_to_data(e.findings), e.extra)
            for rel, e in self._index.items()
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            files: list[tuple[Path, Any]] = [
                (self.index_path, (time.time_ns(), index, self._vault_extra))
            ]
            if self.keeps_raw:
                files.insert(0, (self.raw_path, raw))
            for path, payload in files:
                tmp = path.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(marshal.dumps((self._stamp, payload)))
                os.replace(tmp, path)
        except (OSError, ValueError):
            return
        self._dirty = False
