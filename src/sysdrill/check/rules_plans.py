"""Vault rules for study plans: ``plans.yaml`` reads, and names only decks and topics that exist."""

from __future__ import annotations

from sysdrill.check.registry import RULES
from sysdrill.content.diagnostics import Finding
from sysdrill.content.loader import Vault, locator_for
from sysdrill.content.plans import PLANS_FILE, load_plans
from sysdrill.errors import ContentInvalid

__all__ = ["plan_findings"]


def plan_findings(vault: Vault) -> list[Finding]:
    """Findings about the vault's ``plans.yaml`` (none when it has no such file).

    ``plan-schema`` when the file cannot be read as plans (every problem in one
    message); ``plan-ref-exists`` for each deck or topic a plan names that the
    vault does not define.
    """
    path = vault.root / PLANS_FILE
    if not path.is_file():
        return []
    try:
        plans = load_plans(vault.root)
    except ContentInvalid as exc:
        rule = RULES["plan-schema"]
        message = str(exc).removeprefix(f"{path}: ")
        return [Finding("plan-schema", rule.severity, PLANS_FILE, 1, 1, message, rule.fix)]
    decks = {deck.name for deck in vault.decks} | {item.deck for item in vault.items if item.deck}
    topics = {topic.id for topic in vault.taxonomy.topics} if vault.taxonomy else set()
    topics |= {item.topic for item in vault.items if item.topic}
    locator = locator_for(path)
    rule = RULES["plan-ref-exists"]
    findings: list[Finding] = []
    for index, plan in enumerate(plans):
        for key, names, known in (("decks", plan.decks, decks), ("topics", plan.topics, topics)):
            for position, name in enumerate(names):
                if name not in known:
                    line, column = locator.locate(("plans", index, key, position))
                    message = f"plan '{plan.name}' names unknown {key[:-1]} '{name}'"
                    findings.append(
                        Finding(
                            "plan-ref-exists",
                            rule.severity,
                            PLANS_FILE,
                            line,
                            column,
                            message,
                            rule.fix,
                        )
                    )
    return findings
