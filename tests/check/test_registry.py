"""The rule catalogue and docs/check-rules.md stay in step."""

from __future__ import annotations

import re
from pathlib import Path

from sysdrill.check import all_rules
from sysdrill.check.registry import RULES, RuleClass, Scope
from sysdrill.check.rules_style import ZONE_BLOOMS, ZONE_LEVELS
from sysdrill.content.enums import BLOOM_ORDER, LEVEL_ORDER, Zone

DOCS = Path(__file__).resolve().parents[2] / "docs" / "check-rules.md"
ROW = re.compile(
    r"^\| `([a-z0-9-]+)` \| (\w+) \| (\w+) \| (\w+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$"
)


def _documented() -> dict[str, tuple[str, ...]]:
    rows = {}
    for line in DOCS.read_text("utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows[match.group(1)] = tuple(part.strip() for part in match.groups()[1:])
    return rows


def test_docs_list_every_rule_with_its_severity_class_meaning_and_fix() -> None:
    documented = _documented()
    rules = all_rules()
    assert set(documented) == set(rules)
    for code, rule in rules.items():
        severity, rule_class, scope, _, meaning, fix = documented[code]
        assert (severity, rule_class, scope, meaning, fix) == (
            rule.severity.value,
            rule.rule_class.value,
            rule.scope.value,
            rule.meaning,
            rule.fix,
        ), code


def test_content_rules_are_style_wording_and_napkin_math_and_the_rest_structural() -> None:
    from sysdrill.check import napkin_rules

    rules = all_rules()
    content = {code for code, rule in rules.items() if rule.rule_class is RuleClass.CONTENT}
    assert content == {
        "unknown-field",
        "field-misspelt",
        "topic-in-taxonomy",
        "kind-field-unused",
        "id-format",
        "id-matches-filename",
        "track-matches-folder",
        "zone-bloom",
        "zone-level",
        "question-length",
        "title",
        "answer-missing",
        "scenario-length",
        "common-mistake-markers",
        "napkin-markers",
        "resource-url",
        "rule-crashed",
        "chain-levels-monotonic",
        "chain-level-mismatch",
        "template-draw",
        "diagram",
    } | set(napkin_rules.RULES)
    for code in ("yaml-syntax", "schema", "id-unique", "chain-ref-exists", "deck-ref-exists"):
        assert rules[code].rule_class is RuleClass.STRUCTURAL, code


def test_docs_zone_table_matches_the_rules() -> None:
    text = DOCS.read_text("utf-8")
    for zone in Zone:
        blooms = ", ".join(b.value for b in BLOOM_ORDER if b in ZONE_BLOOMS[zone])
        levels = ", ".join(level.value for level in LEVEL_ORDER if level in ZONE_LEVELS[zone])
        assert f"| {zone.value} | {blooms} | {levels} |" in text


def test_napkin_tier_codes_join_the_catalogue() -> None:
    from sysdrill.check import napkin_rules

    rules = all_rules()
    for code, (severity, meaning, fix) in napkin_rules.RULES.items():
        assert rules[code].scope is Scope.NAPKIN
        assert (rules[code].severity, rules[code].meaning, rules[code].fix) == (
            severity,
            meaning,
            fix,
        )
    assert {"napkin-arithmetic", "napkin-units"} <= set(rules)


def test_rule_codes_are_kebab_case_and_unique() -> None:
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code) for code in all_rules())
    assert len(RULES) == len({rule.code for rule in RULES.values()})
