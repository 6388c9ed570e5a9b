"""Which findings stop ``build`` (issue 11, part 4); ``search``, ``show``, ``stats`` audit none.

Only structural errors do: unreadable YAML, duplicate ids, broken references,
schema violations that make an item unusable. Content findings (style, wording,
napkin math) are reported by ``check`` and the vault still builds, unless the
caller is strict, in which case a build fails on whatever ``check --strict``
fails on. Each rule's class is in :mod:`sysdrill.check.registry`.
"""

from __future__ import annotations

from collections.abc import Iterable

from sysdrill.check.registry import Rule, RuleClass, all_rules
from sysdrill.content.diagnostics import Finding, Severity

__all__ = ["blocking_findings", "rule_class"]


def rule_class(code: str, rules: dict[str, Rule] | None = None) -> RuleClass:
    """The class of rule ``code``; a code no rule has counts as structural.

    Args:
        code: A finding's rule code.
        rules: The catalogue (default: :func:`~sysdrill.check.registry.all_rules`).
    """
    rule = (rules if rules is not None else all_rules()).get(code)
    # An unknown code (from a newer cache, say) blocks, as every error once did.
    return rule.rule_class if rule is not None else RuleClass.STRUCTURAL


def blocking_findings(findings: Iterable[Finding], *, strict: bool = False) -> list[Finding]:
    """The findings that stop a build, in the order given.

    Args:
        findings: What ``check`` reported (suppressed findings already left out).
        strict: Block on every error and warning, as ``check --strict`` fails on;
            otherwise only errors of structural rules block.

    Returns:
        The blocking findings; empty when the vault may be built.
    """
    if strict:
        return [f for f in findings if f.severity is not Severity.INFO]
    rules = all_rules()
    return [
        f
        for f in findings
        if f.severity is Severity.ERROR and rule_class(f.code, rules) is RuleClass.STRUCTURAL
    ]
