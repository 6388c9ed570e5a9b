"""The audit: rules with codes and severities, findings with file:line.

``run_check(root)`` loads a vault and returns a :class:`CheckReport` holding
every finding at once; :func:`all_rules` is the catalogue of rule codes.
``service.check_paths`` is what the CLI runs (files, a git ref), ``policy`` decides
which findings stop a build, ``suppress`` reads ignore comments and ``formats``
writes GitHub annotations and SARIF.
"""

from __future__ import annotations

from sysdrill.check.registry import RULES, Rule, RuleClass, Scope, all_rules
from sysdrill.check.runner import CheckReport, run_check

__all__ = ["RULES", "CheckReport", "Rule", "RuleClass", "Scope", "all_rules", "run_check"]
