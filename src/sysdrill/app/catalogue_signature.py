"""A vault's signature: the times of its folders, which tell whether any item file came or went.

Kept apart from :mod:`sysdrill.app.catalogue`, which trusts a saved catalogue
while its signature holds (the web app's vault cache reads the same signature).
"""

from __future__ import annotations

import os
from pathlib import Path

from sysdrill.content.cache import RACY_WINDOW_NS

__all__ = ["Signature", "signature_settled", "signature_unchanged", "vault_signature"]

Signature = tuple[tuple[str, int], ...]
"""Folders and top-level files of a vault with their mtimes (ns), as ``vault_signature``."""


def vault_signature(root: Path) -> Signature:
    """The modification times of the vault's folders and top-level files, in nanoseconds.

    Adding, removing or replacing an item file (editors and sysdrill write by
    renaming a new file into place) changes its folder's time, so a changed
    signature means the vault changed; reading it costs a listing of the
    folders, not a stat of every item file.
    """
    found: list[tuple[str, int]] = []
    # The catalogue is kept per resolved folder: its signature names the folders the
    # same way, so a vault named by a relative path and then by an absolute one (or
    # from another working folder) is found unchanged, not refreshed and written again.
    top = os.path.realpath(root)
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            found.append((folder, os.stat(folder).st_mtime_ns))
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif folder == top:
                        found.append((entry.path, entry.stat().st_mtime_ns))
        except FileNotFoundError:
            found.append((folder, -1))
    return tuple(sorted(found))


def signature_unchanged(signature: Signature) -> bool:
    """Whether the folders and files a signature lists still have its times.

    Adding, removing or renaming anything in a folder changes that folder's
    mtime, a new folder changes its parent's: a dozen stats stand in for
    listing every file.
    """
    try:
        return all(os.stat(path).st_mtime_ns == mtime for path, mtime in signature)
    except OSError:
        return False


def signature_settled(signature: Signature, recorded_at_ns: int) -> bool:
    """Whether every time of the signature lies safely before it was recorded.

    A folder changed within the same clock tick as the recording could keep its
    time through a later change (see :func:`~sysdrill.content.cache.trusted_by_stat`).
    """
    return all(mtime < recorded_at_ns - RACY_WINDOW_NS for _, mtime in signature)
