"""What an item rule sees: one validated item file, and a way to report findings."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sysdrill.check.registry import RULES
from sysdrill.content.diagnostics import Finding
from sysdrill.content.loader import ItemFile, Locator
from sysdrill.content.models import Item

__all__ = ["FileContext", "iter_strings"]

_KINDS_OF = {code: rule.kinds for code, rule in RULES.items()}
"""Kinds each item rule covers (``applies`` runs a few times for every item)."""


@dataclass(slots=True)
class FileContext:
    """One validated item file under audit, collecting the findings of item rules."""

    loaded: ItemFile
    item: Item
    findings: list[Finding] = field(default_factory=list)
    _locator: Locator | None = None

    @property
    def raw(self) -> dict[str, Any]:
        """The item's raw YAML mapping."""
        raw: dict[str, Any] = self.loaded.raw
        return raw

    def applies(self, code: str) -> bool:
        """Whether rule ``code`` covers this kind of item."""
        return self.item.format in _KINDS_OF[code]

    def locate(self, loc: Sequence[str | int], *, needle: str | None = None) -> tuple[int, int]:
        """Line and column of a field, parsing the file for lines only on first use."""
        if self._locator is None:
            self._locator = Locator(self.loaded.path)
        return self._locator.locate(loc, needle=needle)

    def add(
        self,
        code: str,
        message: str,
        loc: Sequence[str | int],
        *,
        needle: str | None = None,
        fix: str | None = None,
    ) -> None:
        """Report a finding of rule ``code`` at the field ``loc``.

        Args:
            code: A code of :data:`~sysdrill.check.registry.RULES`.
            message: What is wrong, naming the value.
            loc: Field path, such as ``("details", "options", 2)``.
            needle: Text inside the field's value to point the line at.
            fix: A fix more specific than the rule's own.
        """
        rule = RULES[code]
        line, column = self.locate(loc, needle=needle)
        self.findings.append(
            Finding(code, rule.severity, self.loaded.rel, line, column, message, fix or rule.fix)
        )


def iter_strings(
    value: Any, loc: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Every string inside ``value`` (keys excluded), with its field path."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from iter_strings(child, (*loc, str(key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from iter_strings(child, (*loc, index))
