"""The audit a build runs first: a vault with structural errors is not compiled.

Which findings block is :func:`sysdrill.check.policy.blocking_findings`'s call:
content findings (style, napkin math, a topic missing from the taxonomy) do not
stop the build; they are counted by rule in :class:`AuditOutcome` so that
``build`` reports them and goes on.

Small rebuilds audit inline. A large rebuild audits in a child process while
the database is written (:class:`BackgroundCheck`), and the new file replaces
the old only if the audit is clean: on two quiet cores this took a cold build
of 10,711 items from about 5.6 s to 3.9 s (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sysdrill.content.diagnostics import Finding, Severity
from sysdrill.errors import ContentInvalid

__all__ = ["AuditOutcome", "BackgroundCheck", "ReportedFindings", "check_errors", "refuse_invalid"]

_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class ReportedFindings(NamedTuple):
    """Findings of one rule that the audit reported without refusing the build."""

    code: str
    severity: Severity
    total: int


@dataclass(frozen=True, slots=True)
class AuditOutcome:
    """What the audit before a build found: what blocks it, and what is only reported."""

    blocking: int
    """Findings that stop the build (see :func:`sysdrill.check.policy.blocking_findings`)."""
    first: str
    """The first blocking finding, rendered ("" when none blocks)."""
    reported: tuple[ReportedFindings, ...] = ()
    """The other findings, counted by rule: errors first, then warnings, then info,
    each by count, most first."""

    def to_json(self) -> str:
        """One line of JSON (what the background audit prints)."""
        rows = [[r.code, r.severity.value, r.total] for r in self.reported]
        return json.dumps([self.blocking, self.first, rows])

    @classmethod
    def from_json(cls, text: str) -> AuditOutcome:
        """Read :meth:`to_json`'s line back.

        Raises:
            ValueError: If the line is not that JSON (a failed child, say).
        """
        try:
            blocking, first, rows = json.loads(text)
            reported = tuple(
                ReportedFindings(str(code), Severity(severity), int(count))
                for code, severity, count in rows
            )
            return cls(int(blocking), str(first), reported)
        except (TypeError, KeyError) as exc:
            raise ValueError(f"not an audit outcome: {text[:80]!r}") from exc


def _counted(findings: list[Finding]) -> tuple[ReportedFindings, ...]:
    counts = Counter((f.code, f.severity) for f in findings)
    rows = [ReportedFindings(code, severity, n) for (code, severity), n in counts.items()]
    rows.sort(key=lambda r: (_SEVERITY_ORDER[r.severity], -r.total, r.code))
    return tuple(rows)


def check_errors(root: Path, cache_dir: Path | None, *, strict: bool = False) -> AuditOutcome:
    """Run the audit; return what blocks the build and what is only reported.

    Args:
        root: The vault folder.
        cache_dir: The check cache folder (None audits afresh).
        strict: Block on every error and warning, not only structural errors.
    """
    from sysdrill.check import run_check
    from sysdrill.check.policy import blocking_findings

    report = run_check(root, cache_dir=cache_dir)
    errors = blocking_findings(report.findings, strict=strict)
    blocked = {id(f) for f in errors}
    others = [f for f in report.findings if id(f) not in blocked]
    return AuditOutcome(len(errors), errors[0].render() if errors else "", _counted(others))


def refuse_invalid(root: Path, outcome: AuditOutcome) -> None:
    """Raise :class:`ContentInvalid` when the audit found blocking findings.

    Args:
        root: The vault folder (named in the message's ``sysdrill check`` hint).
        outcome: What :func:`check_errors` returned.
    """
    if outcome.blocking:
        raise ContentInvalid(
            f"the vault has {outcome.blocking} error finding(s), first {outcome.first}; "
            f"run `sysdrill check {root}` and fix them before building"
        )


_WORKER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from sysdrill.app.vault_audit import check_errors\n"
    "cache = Path(sys.argv[2]) if sys.argv[2] else None\n"
    "strict = sys.argv[3] == 'strict'\n"
    "print(check_errors(Path(sys.argv[1]), cache, strict=strict).to_json())\n"
)


class BackgroundCheck:
    """The audit of a large rebuild, run in a child process while the database is written.

    A plain subprocess (not multiprocessing) keeps this safe for any caller,
    including scripts without a ``__main__`` guard.

    Args:
        root: The vault folder.
        cache_dir: The check cache folder (None audits afresh).
        strict: Block on every error and warning, not only structural errors.
    """

    def __init__(self, root: Path, cache_dir: Path | None, *, strict: bool = False) -> None:
        self._args = (root, cache_dir)
        self._strict = strict
        mode = "strict" if strict else "lenient"
        command = [sys.executable, "-c", _WORKER, str(root), str(cache_dir or ""), mode]
        self._process = subprocess.Popen(  # noqa: S603 - our own interpreter and code
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    def result(self) -> AuditOutcome:
        """Wait for the audit; what :func:`check_errors` returns."""
        out, _ = self._process.communicate()
        try:
            return AuditOutcome.from_json(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            # The child failed (a bad vault path, out of memory): audit here, so
            # the real error, if any, is raised in this process.
            return check_errors(*self._args, strict=self._strict)

    def close(self) -> None:
        """Stop the child if it still runs, and reap it."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.communicate()
