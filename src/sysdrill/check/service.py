"""``check`` as the CLI runs it: paths or a git ref in, one report out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from sysdrill.check.registry import all_rules
from sysdrill.check.runner import CheckReport, run_check
from sysdrill.check.selection import changed_since as git_changed
from sysdrill.check.selection import select, targets
from sysdrill.errors import UsageError, VaultNotFound

__all__ = ["check_paths"]


def check_paths(
    paths: Sequence[Path],
    *,
    changed_since: str | None = None,
    codes: Iterable[str] | None = None,
    cache_dir: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> CheckReport:
    """Audit the vault ``paths`` name and report on what they select.

    Args:
        paths: One vault folder, or files inside one vault (see
            :func:`~sysdrill.check.selection.targets`).
        changed_since: A git ref: report only on files changed since it, and on
            what refers to them (``paths`` must then be one folder).
        codes: Report only these rule codes.
        cache_dir: Folder of the check cache; None checks everything afresh.
        progress: Called as ``progress(stage, done, total)`` while files are audited.

    Raises:
        UsageError: On paths that cannot be checked together, files given with
            ``changed_since``, or a git failure.
        VaultNotFound: If the vault folder does not exist or holds no questions/.
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    root, files = targets(paths)
    if root.is_dir() and not (root / "questions").is_dir():
        # A folder without questions/ is almost always the wrong folder (the vault's
        # parent, or questions/ itself); reporting it clean would hide that.
        inside = " (that is the questions/ folder itself)" if root.name == "questions" else ""
        raise VaultNotFound(
            f"'{root}' has no questions/ folder{inside}, so there is nothing to check; "
            "pass the vault folder that holds questions/"
        )
    if changed_since is not None:
        if files is not None:
            raise UsageError("give a vault folder, not files, with --changed-since")
        if root.is_dir():
            files = git_changed(root, changed_since)
    selection = select(root, files, all_rules()) if files is not None else None
    return run_check(root, codes=codes, cache_dir=cache_dir, selection=selection, progress=progress)
