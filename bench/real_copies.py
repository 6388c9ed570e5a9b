"""A vault of StaffML size made of copies of the real StaffML set (issue 27).

Real claims cost the napkin tier more than the generated ones of
``bench/real_style_vault.py`` (about 68 µs against 19 µs each), so a speed figure
taken on generated items flatters the checker. :func:`copy_real_vault` fills a
folder with ``count`` files copied round after round from the real question files
in ``../shared/realdata/staffml/interviews/vault`` (third-party text under
CC BY-NC 4.0: the bench copies it into a temporary folder at run time, never into
the repository). Each copy keeps its track and area folder and every byte of the
original except its id: ``global-0393`` becomes ``global-0393-c01`` in the second
round, both in the file name and on the ``id:`` line, so ids stay unique and still
match their file names. The first round keeps the original ids. The vault's
``schema/`` folder (the taxonomy) is copied too, so ``check`` judges topics as it
does on the real vault.

Usage: ``python bench/real_copies.py DEST [COUNT]`` (default 10,711 files).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["REAL_VAULT", "CopyStats", "copy_real_vault", "realdata_dir", "real_vault_dir"]

ROOT = Path(__file__).resolve().parents[1]

REAL_VAULT = Path("interviews") / "vault"
"""The real vault inside the ``staffml`` folder."""

_ID_LINE = re.compile(rb"^id:[ \t]*['\"]?([^'\"\r\n#]+?)['\"]?[ \t]*$", re.MULTILINE)


def realdata_dir() -> Path:
    """The ``staffml`` folder: ``$SYSDRILL_REALDATA`` or ``../shared/realdata/staffml``."""
    override = os.environ.get("SYSDRILL_REALDATA")
    return Path(override) if override else ROOT.parent / "shared" / "realdata" / "staffml"


def real_vault_dir() -> Path:
    """The real StaffML vault (a folder holding ``questions/`` and ``schema/``)."""
    return realdata_dir() / REAL_VAULT


@dataclass(frozen=True, slots=True)
class CopyStats:
    """What :func:`copy_real_vault` wrote."""

    files: int
    """Question files written."""
    sources: int
    """Real question files they were copied from."""
    rounds: int
    """Rounds over the real files (the last one may be partial)."""
    bytes: int
    """Bytes of question files written."""


def copy_real_vault(dest: Path, count: int = 10_711, *, source: Path | None = None) -> CopyStats:
    """Fill ``dest`` with ``count`` question files copied from the real vault, with new ids.

    Args:
        dest: The vault folder to write (``questions/`` and ``schema/`` under it).
        count: Question files to write.
        source: The real vault (default :func:`real_vault_dir`).

    Returns:
        What was written.

    Raises:
        FileNotFoundError: If the real vault has no question files.
        ValueError: If a real file has no ``id:`` line.
    """
    source = source or real_vault_dir()
    files = sorted((source / "questions").rglob("*.yaml"))
    if not files:
        raise FileNotFoundError(f"no question files under {source / 'questions'}")
    texts = [(path.relative_to(source / "questions").parent, path.read_bytes()) for path in files]
    written = 0
    rounds = 0
    folders: set[Path] = set()
    while written < count:
        for folder, text in texts[: count - written]:
            match = _ID_LINE.search(text)
            if match is None:
                raise ValueError(f"a real file in {folder} has no id: line")
            old = match.group(1)
            new = old if rounds == 0 else old + f"-c{rounds:02d}".encode()
            target = dest / "questions" / folder
            if target not in folders:
                target.mkdir(parents=True, exist_ok=True)
                folders.add(target)
            copied = text[: match.start(1)] + new + text[match.end(1) :]
            (target / f"{new.decode()}.yaml").write_bytes(copied)
            written += 1
        rounds += 1
    for shared in sorted(source.iterdir()):
        if shared.is_dir() and shared.name != "questions":
            shutil.copytree(shared, dest / shared.name, dirs_exist_ok=True)
    size = sum(path.stat().st_size for path in (dest / "questions").rglob("*.yaml"))
    return CopyStats(files=written, sources=len(files), rounds=rounds, bytes=size)


def main() -> None:
    """Write the copies to the folder given on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="vault folder to write")
    parser.add_argument("count", type=int, nargs="?", default=10_711, help="files to write")
    args = parser.parse_args()
    stats = copy_real_vault(args.dest, args.count)
    print(
        f"{stats.files} files ({stats.bytes / 1e6:.1f} MB) from {stats.sources} real files "
        f"in {stats.rounds} rounds"
    )


if __name__ == "__main__":
    main()
