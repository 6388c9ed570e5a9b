"""The audit a build runs first: a vault with error findings is not compiled.

Running it in a child process while the database is written was tried and
measured (docs/benchmarks.md): the check already keeps both cores busy with its
own worker process, so overlapping it gained nothing on two cores.
"""

from __future__ import annotations

from pathlib import Path

from sysdrill.content.diagnostics import Severity
from sysdrill.errors import ContentInvalid

__all__ = ["check_errors", "refuse_invalid"]


def check_errors(root: Path, cache_dir: Path | None) -> tuple[int, str]:
    """Run the audit; return the number of error findings and the first one rendered.

    Args:
        root: The vault folder.
        cache_dir: The check cache folder (None audits afresh).
    """
    from sysdrill.check import run_check

    report = run_check(root, cache_dir=cache_dir)
    errors = [f for f in report.findings if f.severity is Severity.ERROR]
    return len(errors), errors[0].render() if errors else ""


def refuse_invalid(root: Path, outcome: tuple[int, str]) -> None:
    """Raise :class:`ContentInvalid` when the audit found errors.

    Args:
        root: The vault folder (named in the message's ``sysdrill check`` hint).
        outcome: What :func:`check_errors` returned.
    """
    count, first = outcome
    if count:
        raise ContentInvalid(
            f"the vault has {count} error finding(s), first {first}; "
            f"run `sysdrill check {root}` and fix them before building"
        )
