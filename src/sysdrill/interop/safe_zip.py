"""Read zip archives from strangers (Anki ``.apkg`` files) without being hurt.

An archive is checked before anything is read: it must be a complete zip, its
member names must stay inside the archive (no ``..``, no absolute or drive
paths), it may hold at most :data:`MAX_MEMBERS` members, and the sizes its
members declare may add up to at most :data:`MAX_EXPANDED_BYTES`. Declared
sizes can lie, so bytes are also counted while a member is copied out (and
while a zstd stream inside it is decompressed): the copy stops as soon as the
budget is spent. Memory stays bounded because members are copied to disk in
1 MiB chunks, never read whole.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import IO

from sysdrill.errors import HostileInput, ImportFailed

__all__ = [
    "MAX_EXPANDED_BYTES",
    "MAX_MEMBERS",
    "SafeZip",
    "open_safe_zip",
]

MAX_EXPANDED_BYTES = 200 * 1024 * 1024
"""Most bytes an archive may expand to, in bytes (200 MiB), declared or counted."""

MAX_MEMBERS = 100_000
"""Most members an archive may list."""

_CHUNK_BYTES = 1024 * 1024


def _unsafe_name(name: str) -> str | None:
    """Why a member name is unsafe, or None when it stays inside the archive."""
    if not name or "\x00" in name:
        return "an empty or NUL-containing name"
    if name.startswith(("/", "\\")) or PureWindowsPath(name).drive:
        return "an absolute path"
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if ".." in parts:
        return "a '..' component"
    return None


@dataclass(slots=True)
class SafeZip:
    """An opened, checked archive that members can be copied out of within a budget."""

    path: Path
    archive: zipfile.ZipFile
    limit_bytes: int
    """Most bytes the whole archive may expand to."""
    budget_bytes: int
    """Bytes that may still be written by copies out of this archive."""

    def names(self) -> list[str]:
        """Member names, in archive order (directories excluded)."""
        return [info.filename for info in self.archive.infolist() if not info.is_dir()]

    def declared_size(self, name: str) -> int:
        """Uncompressed size the member declares, in bytes."""
        return self.archive.getinfo(name).file_size

    def _spend(self, count: int) -> None:
        self.budget_bytes -= count
        if self.budget_bytes < 0:
            raise HostileInput(
                f"'{self.path.name}' expands past {self.limit_bytes // 1_048_576} MiB; "
                "export the deck again without media, or split it into smaller decks"
            )

    def copy_member(self, name: str, target: Path) -> int:
        """Copy one member to ``target`` in chunks, counting bytes against the budget.

        Returns:
            Bytes written.

        Raises:
            HostileInput: If the copy would spend more than the remaining budget.
            ImportFailed: If the member's data is damaged.
        """
        with self.open_member(name) as source, target.open("wb") as sink:
            return self.copy_stream(source, sink)

    def copy_stream(self, source: IO[bytes], sink: IO[bytes]) -> int:
        """Copy a byte stream (such as a decompressor over a member) within the budget."""
        written = 0
        try:
            while chunk := source.read(_CHUNK_BYTES):
                self._spend(len(chunk))
                sink.write(chunk)
                written += len(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ImportFailed(
                f"'{self.path.name}' is damaged or truncated ({exc}); download or export it again"
            ) from exc
        return written

    def read_small(self, name: str, *, limit_bytes: int) -> bytes:
        """Read a member expected to be small (such as Anki's ``media`` index).

        Raises:
            HostileInput: If the member holds more than ``limit_bytes``.
        """
        with self.open_member(name) as source:
            data = source.read(limit_bytes + 1)
        if len(data) > limit_bytes:
            raise HostileInput(
                f"'{self.path.name}': member '{name}' is larger than {limit_bytes} bytes; "
                "this is not a file Anki wrote"
            )
        self._spend(len(data))
        return data

    @contextmanager
    def open_member(self, name: str) -> Iterator[IO[bytes]]:
        """Open one member for reading; zip failures become :class:`ImportFailed`."""
        try:
            with self.archive.open(name) as stream:
                yield stream
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ImportFailed(
                f"'{self.path.name}' is damaged or truncated ({exc}); download or export it again"
            ) from exc
        except NotImplementedError as exc:
            raise ImportFailed(
                f"'{self.path.name}' uses a compression method sysdrill cannot read ({exc}); "
                "export it again from Anki"
            ) from exc
        except RuntimeError as exc:  # encrypted members
            raise ImportFailed(
                f"'{self.path.name}' is encrypted; export it again without a password"
            ) from exc


@contextmanager
def open_safe_zip(
    path: Path, *, kind: str = "zip archive", max_bytes: int = MAX_EXPANDED_BYTES
) -> Iterator[SafeZip]:
    """Open and check an archive; the checks run before any member is read.

    Args:
        path: The archive file.
        kind: What the file should be, for messages ("Anki package").
        max_bytes: Most bytes the archive may expand to, declared or counted.

    Yields:
        The checked archive.

    Raises:
        ImportFailed: If the file is missing, not a zip, or truncated.
        HostileInput: If a member name escapes the archive, there are too many
            members, or the declared sizes add up past ``max_bytes``.
    """
    if not path.is_file():
        raise ImportFailed(f"'{path}' does not exist; check the path")
    if not zipfile.is_zipfile(path):
        raise HostileInput(
            f"'{path.name}' is not a zip archive or is truncated, so not a valid {kind}; "
            "download or export it again"
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise ImportFailed(
            f"'{path.name}' is damaged or truncated ({exc}); download or export it again"
        ) from exc
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise HostileInput(
                f"'{path.name}' lists {len(infos)} members, more than {MAX_MEMBERS}; "
                f"this is not a {kind} sysdrill can read"
            )
        declared = 0
        for info in infos:
            why = _unsafe_name(info.filename)
            if why:
                raise HostileInput(
                    f"'{path.name}' has a member with {why} ({info.filename!r}); "
                    f"refusing it: only open {kind}s from a source you trust"
                )
            declared += info.file_size
        if declared > max_bytes:
            raise HostileInput(
                f"'{path.name}' would expand to {declared / 1_048_576:.0f} MiB, more than "
                f"{max_bytes // 1_048_576} MiB; export the deck again without media, "
                "or split it into smaller decks"
            )
        yield SafeZip(path=path, archive=archive, limit_bytes=max_bytes, budget_bytes=max_bytes)
