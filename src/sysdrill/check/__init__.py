"""The audit: rules with codes and severities, findings with file:line.

``run_check(root)`` loads a vault and returns a :class:`CheckReport` holding
every finding at once; :func:`all_rules` is the catalogue of rule codes.
"""

from __future__ import annotations

from sysdrill.check.registry import RULES, Rule, Scope, all_rules
from sysdrill.check.runner import CheckReport, run_check

__all__ = ["RULES", "CheckReport", "Rule", "Scope", "all_rules", "run_check"]
