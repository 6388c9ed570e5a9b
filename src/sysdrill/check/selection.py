"""Checking part of a vault: given files, or the files changed since a git ref.

Id and reference rules need every item, so the whole vault is still audited
(unchanged files come from the cache); a :class:`Selection` decides which
findings are reported. A selection holds the given files plus what refers to
them:

- a shared file at the vault root (``chains.yaml``, ``decks.yaml``, any
  ``*.yaml``/``*.json`` beside ``questions/``) that names the id of a selected
  item file, so a chain or deck broken by a renamed or deleted item is reported;
- when a shared file itself is selected (the taxonomy, say), the reference
  findings (scope ``vault``) of every item, since any item may refer to what
  changed.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sysdrill.check.registry import Rule, Scope
from sysdrill.content.diagnostics import Finding
from sysdrill.errors import UsageError

__all__ = ["Selection", "changed_since", "find_vault_root", "select", "targets"]

_ITEM_SUFFIXES = (".yaml", ".yml")
_SHARED_SUFFIXES = (".yaml", ".yml", ".json")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
GIT_TIMEOUT_S = 60
"""Longest wait for one git command, in seconds."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Which findings of a vault-wide audit to report."""

    files: frozenset[str]
    """Vault-relative POSIX paths whose findings are reported."""
    codes_everywhere: frozenset[str] = frozenset()
    """Codes reported wherever they are found (references to a changed shared file)."""

    def covers(self, finding: Finding) -> bool:
        """Whether ``finding`` is reported."""
        return finding.path in self.files or finding.code in self.codes_everywhere


def find_vault_root(path: Path) -> Path:
    """The vault holding ``path``: the nearest folder above it that holds ``questions/``.

    Raises:
        UsageError: If no folder above ``path`` holds ``questions/``.
    """
    absolute = Path(os.path.abspath(path))
    for folder in absolute.parents:
        if (folder / "questions").is_dir():
            return folder
    raise UsageError(
        f"'{path}' is not inside a vault (no folder above it holds questions/); "
        "pass a vault folder or files inside one"
    )


def targets(paths: Sequence[Path]) -> tuple[Path, list[str] | None]:
    """The vault to audit and the files to report on, from ``check``'s arguments.

    One folder is a vault checked whole (``None`` files); files are located in
    their vault, found by walking up to the folder that holds ``questions/``.

    Raises:
        UsageError: If folders and files are mixed, several folders are given,
            a file does not exist, or the files lie in several vaults.
    """
    if len(paths) == 1 and not paths[0].is_file():
        # A missing path goes to the runner as given, which names it in its error.
        folder = paths[0]
        return (Path(os.path.abspath(folder)) if folder.is_dir() else folder), None
    if any(path.is_dir() for path in paths):
        raise UsageError("give one vault folder, or files inside one vault, not both")
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise UsageError(f"'{missing[0]}' does not exist; pass existing files or a vault folder")
    roots = {find_vault_root(path) for path in paths}
    if len(roots) > 1:
        names = ", ".join(sorted(str(root) for root in roots))
        raise UsageError(f"the files lie in several vaults ({names}); check one vault at a time")
    root = roots.pop()
    return root, [Path(os.path.abspath(path)).relative_to(root).as_posix() for path in paths]


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(  # noqa: S603 - fixed program, arguments are not a shell line
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        raise UsageError("git is not installed or not on PATH; --changed-since needs it") from exc
    except subprocess.TimeoutExpired as exc:
        raise UsageError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s; try again") from exc
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        raise UsageError(f"git {' '.join(args)} failed: {lines[0]}")
    return done.stdout


def changed_since(root: Path, ref: str) -> list[str]:
    """Vault-relative paths changed since git ``ref``: edited, added, deleted or untracked.

    Runs ``git diff --name-only --no-renames REF`` (working tree against ``ref``, so
    a renamed file counts as its old and its new path) and ``git ls-files --others
    --exclude-standard`` in the repository holding ``root``.

    Raises:
        UsageError: If git is missing, ``root`` is not in a git repository or
            ``ref`` is not a revision (one line, git's own first line of error).
    """
    if ref.startswith("-"):
        raise UsageError(f"--changed-since takes a git ref such as HEAD or main, not '{ref}'")
    top = Path(_git(root, "rev-parse", "--show-toplevel").strip())
    names = _git(top, "diff", "--name-only", "--no-renames", ref, "--").splitlines()
    names += _git(top, "ls-files", "--others", "--exclude-standard", "--full-name").splitlines()
    vault = Path(os.path.abspath(root)).resolve()
    changed: set[str] = set()
    for name in names:
        path = (top / name).resolve()
        if path.is_relative_to(vault):
            changed.add(path.relative_to(vault).as_posix())
    return sorted(changed)


def _is_item(rel: str) -> bool:
    return rel.startswith("questions/") and rel.endswith(_ITEM_SUFFIXES)


def _shared_files(root: Path) -> list[str]:
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [n for n in names if n.endswith(_SHARED_SUFFIXES) and (root / n).is_file()]


def select(root: Path, files: Iterable[str], rules: dict[str, Rule]) -> Selection:
    """The selection for ``files`` (vault-relative) and what refers to them.

    Args:
        root: The vault folder.
        files: Vault-relative POSIX paths, existing or deleted.
        rules: The catalogue (its ``vault``-scope codes are the reference rules).
    """
    given = set(files)
    chosen = set(given)
    ids = {rel.rsplit("/", 1)[-1].rsplit(".", 1)[0] for rel in chosen if _is_item(rel)}
    shared = _shared_files(root)
    if ids:
        for name in shared:
            if name in chosen:
                continue
            try:
                text = (root / name).read_text("utf-8", "replace")
            except OSError:
                continue
            if ids & set(_TOKEN.findall(text)):
                chosen.add(name)
    everywhere: frozenset[str] = frozenset()
    if any("/" not in rel and rel.endswith(_SHARED_SUFFIXES) for rel in given):
        everywhere = frozenset(code for code, rule in rules.items() if rule.scope is Scope.VAULT)
    return Selection(frozenset(chosen), everywhere)
