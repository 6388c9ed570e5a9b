"""Findings: what ``check`` (and the loader) report about content."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Finding", "Severity"]


class Severity(StrEnum):
    """How bad a finding is; ``check`` exits 1 on errors (on warnings with --strict)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in one place.

    ``line`` and ``column`` are 1-based; 0 means the whole file.
    """

    code: str
    severity: Severity
    path: str
    line: int
    column: int
    message: str
    fix: str

    def render(self) -> str:
        """Format as ``path:line:col: SEVERITY CODE message (fix: ...)``."""
        text = (
            f"{self.path}:{self.line}:{self.column}: "
            f"{self.severity.value.upper()} {self.code} {self.message}"
        )
        return f"{text} (fix: {self.fix})" if self.fix else text

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape {code, severity, path, line, column, message, fix}."""
        data = asdict(self)
        data["severity"] = self.severity.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """Rebuild a finding from :meth:`to_dict` output."""
        return cls(**{**data, "severity": Severity(data["severity"])})
