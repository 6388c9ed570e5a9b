"""Files the user keeps: written whole or not at all, with the user's normal permissions.

Exports and state files are written to a temporary file beside the target and
moved into place with :func:`os.replace`, so a failure or Ctrl-C leaves the old
file as it was. ``tempfile.mkstemp`` would create the file readable by its owner
only (0600); a file the user asked for should get the mode their umask gives any
new file, or keep the mode of the file it replaces.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

__all__ = ["replace_atomically", "write_text_atomically"]

_NEW_FILE_MODE = 0o666
"""Mode asked for a new file; the kernel removes the umask's bits from it."""


def _temporary_beside(target: Path) -> Path:
    """Create an empty temporary file in ``target``'s folder and return its path.

    Raises:
        OSError: If the folder is missing or not writable.
    """
    for _ in range(100):
        candidate = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            handle = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE)
        except FileExistsError:
            continue
        os.close(handle)
        return candidate
    raise FileExistsError(f"no free temporary name beside {target}")


def replace_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Call ``write`` on a temporary path beside ``target``, then move it into place.

    The new file has the mode of the file it replaces, or the user's default
    mode for new files (0666 less the umask) when ``target`` did not exist.

    Raises:
        OSError: If the temporary file cannot be created, written or moved; it
            is removed and ``target`` is left as it was. Any exception ``write``
            raises is re-raised after the same clean-up.
    """
    temporary = _temporary_beside(target)
    try:
        write(temporary)
        try:
            os.chmod(temporary, os.stat(target).st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text_atomically(target: Path, text: str) -> None:
    """Write ``text`` as UTF-8 to ``target`` whole or not at all (see :func:`replace_atomically`).

    Raises:
        OSError: As :func:`replace_atomically`.
    """

    def write(path: Path) -> None:
        path.write_text(text, encoding="utf-8")

    replace_atomically(target, write)
