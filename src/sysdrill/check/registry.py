"""The catalogue of ``check`` rules: code, severity, class, meaning, fix, and kinds covered.

Every finding ``check`` can report has its code here (the loader's codes too),
so the docs (docs/check-rules.md, kept in step by a test) and ``--rule`` come
from one place. The napkin tier's codes come from
:data:`sysdrill.check.napkin_rules.RULES` and are merged in by :func:`all_rules`;
a napkin tier that cannot be imported raises :class:`~sysdrill.errors.TierUnavailable`
rather than quietly checking less (issue 10).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType

from sysdrill.content.diagnostics import Severity
from sysdrill.content.enums import ItemKind
from sysdrill.errors import TierUnavailable

__all__ = ["NAPKIN_TIER", "RULES", "Rule", "RuleClass", "Scope", "all_rules", "napkin_module"]

NAPKIN_TIER = "sysdrill.check.napkin_rules"
"""The module of the napkin tier."""


class Scope(StrEnum):
    """What a rule looks at."""

    FILE = "file"
    """The bytes and YAML of one file (reported by the loader)."""
    ITEM = "item"
    """One item on its own."""
    VAULT = "vault"
    """Several items, or the taxonomy, chains and decks."""
    NAPKIN = "napkin"
    """The arithmetic and units of one item (the napkin tier)."""


class RuleClass(StrEnum):
    """Whether a finding makes the item unusable, which decides if ``build`` refuses it."""

    STRUCTURAL = "structural"
    """The file, item or reference cannot be used as written: ``build`` refuses the
    vault on such an error."""
    CONTENT = "content"
    """Style, wording or arithmetic: reported, and the vault still builds (unless
    ``--strict``); an author may silence one with ``# sysdrill: ignore[CODE]``."""


_ALL = frozenset(ItemKind)
_NOT_FLASHCARD = _ALL - {ItemKind.FLASHCARD}


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the audit."""

    code: str
    severity: Severity
    meaning: str
    """What a finding with this code says is wrong."""
    fix: str
    """How to fix it."""
    scope: Scope
    kinds: frozenset[ItemKind] = _ALL
    """Kinds of item the rule applies to."""
    rule_class: RuleClass = RuleClass.STRUCTURAL
    """Structural findings block a build; content findings do not (see check.policy)."""


def _rule(
    code: str,
    severity: Severity,
    scope: Scope,
    meaning: str,
    fix: str,
    kinds: frozenset[ItemKind] = _ALL,
    *,
    rule_class: RuleClass = RuleClass.STRUCTURAL,
) -> Rule:
    # Structural is the default so that a new rule blocks builds, as every error
    # did before the classes existed, until someone decides it is only content.
    return Rule(code, severity, meaning, fix, scope, kinds, rule_class)


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741
CONTENT = RuleClass.CONTENT

_DEFINED = (
    # Reported by the loader (sysdrill.content.loader).
    _rule(
        "file-unreadable",
        E,
        Scope.FILE,
        "the file cannot be opened or read",
        "check that the file exists and is readable",
    ),
    _rule(
        "file-too-large",
        E,
        Scope.FILE,
        "the file is larger than 256 KiB (an item) or 64 MiB (a shared file) and was not read",
        "split it or remove what does not belong in one item",
    ),
    _rule(
        "file-not-text",
        E,
        Scope.FILE,
        "the file is binary or its bytes are not UTF-8",
        "save the file as UTF-8 YAML text",
    ),
    _rule(
        "yaml-syntax",
        E,
        Scope.FILE,
        "the file is not valid YAML (or nests deeper than 50 levels, or holds several documents)",
        "fix the YAML at the given line and column",
    ),
    _rule(
        "json-syntax",
        E,
        Scope.FILE,
        "a JSON shared file (StaffML's chains.json) is not valid JSON",
        "fix the JSON at the given line and column",
    ),
    _rule(
        "yaml-duplicate-key",
        E,
        Scope.FILE,
        "a key appears twice in one mapping (YAML keeps only the last)",
        "remove or rename one of the two keys",
    ),
    _rule(
        "yaml-anchor",
        E,
        Scope.FILE,
        "the file uses a YAML anchor (&a) or alias (*a)",
        "write the value out in full",
    ),
    _rule(
        "schema",
        E,
        Scope.FILE,
        "a field is missing, has the wrong type or a value outside its vocabulary "
        "(one finding per field)",
        "see docs/vault-format.md for the field's allowed values",
    ),
    # One item on its own.
    _rule(
        "unknown-field",
        I,
        Scope.ITEM,
        "a field the schema does not know (it is kept as is)",
        "check the spelling, or leave it if a tool of yours reads it",
        rule_class=CONTENT,
    ),
    _rule(
        "field-misspelt",
        W,
        Scope.ITEM,
        "a field the schema does not know is close to one it does (`napkin_maths` for "
        "`napkin_math`): what the author wrote there is neither shown nor checked",
        "rename the field as the message suggests",
        rule_class=CONTENT,
    ),
    _rule(
        "kind-field-unused",
        W,
        Scope.ITEM,
        "a flashcard carries a scenario, markers or options, which flashcards never show",
        "remove the field, or make the item a `question`",
        rule_class=CONTENT,
    ),
    _rule(
        "option-parsed-as-mapping",
        E,
        Scope.ITEM,
        "an unquoted option such as `- Peak: 28 GB` was read by YAML as a mapping",
        "quote the option: `- 'Peak: 28 GB'`",
    ),
    _rule(
        "id-format",
        E,
        Scope.ITEM,
        "the id is not `<track>-<suffix>` (a track name, a hyphen, then letters, digits, "
        "`-`, `_` or `.`), or its track prefix differs from the item's track",
        "rename the id, for example `cloud-1013`",
        rule_class=CONTENT,
    ),
    _rule(
        "id-matches-filename",
        E,
        Scope.ITEM,
        "the file name is not `<id>.yaml`",
        "rename the file after the id (or the id after the file)",
        rule_class=CONTENT,
    ),
    _rule(
        "track-matches-folder",
        E,
        Scope.ITEM,
        "the item sits under `questions/<track>/` but declares another track",
        "move the file to its track's folder or correct `track`",
        rule_class=CONTENT,
    ),
    _rule(
        "zone-bloom",
        E,
        Scope.ITEM,
        "the Bloom level is not one the zone allows (see the zone-bloom table)",
        "pick a Bloom level the zone allows, or a zone that fits the Bloom level",
        _NOT_FLASHCARD,
        rule_class=CONTENT,
    ),
    _rule(
        "zone-level",
        W,
        Scope.ITEM,
        "the level is outside the zone's usual range (see the zone-level table)",
        "check the level and the zone; change one if the item was misfiled",
        _NOT_FLASHCARD,
        rule_class=CONTENT,
    ),
    _rule(
        "question-length",
        E,
        Scope.ITEM,
        "the question is longer than 200 characters or does not end with `?`",
        "move context into the scenario and end the question with `?`",
        frozenset({ItemKind.QUESTION, ItemKind.NUMERIC}),
        rule_class=CONTENT,
    ),
    _rule(
        "title",
        E,
        Scope.ITEM,
        "the title is longer than 120 characters, ends with a period, holds Markdown, "
        "LaTeX or underscores, or is a placeholder such as `Question 12`",
        "write a short, concrete plain-text title",
        rule_class=CONTENT,
    ),
    _rule(
        "answer-missing",
        W,
        Scope.ITEM,
        "a quiz question has no model answer (details.realistic_solution), so it cannot "
        "be self-graded; importers keep such questions and this rule reports them",
        "write the answer in details.realistic_solution",
        frozenset({ItemKind.QUIZ}),
        rule_class=CONTENT,
    ),
    _rule(
        "scenario-length",
        E,
        Scope.ITEM,
        "the scenario is shorter than 30 characters",
        "describe the situation: system, scale and constraint",
        _NOT_FLASHCARD,
        rule_class=CONTENT,
    ),
    _rule(
        "common-mistake-markers",
        E,
        Scope.ITEM,
        "common_mistake lacks `**The Pitfall:**`, `**The Rationale:**` or "
        "`**The Consequence:**`, or has them out of order",
        "write the three markers, in that order, each starting its paragraph",
        _NOT_FLASHCARD,
        rule_class=CONTENT,
    ),
    _rule(
        "napkin-markers",
        E,
        Scope.ITEM,
        "napkin_math lacks an Assumptions header, the canonical `**Calculations:**` "
        "marker or a Conclusion header, or has them out of order",
        "use `**Assumptions & Constraints:**`, `**Calculations:**` and "
        "`**Conclusion & Interpretation:**`, in that order",
        _NOT_FLASHCARD,
        rule_class=CONTENT,
    ),
    _rule(
        "mcq",
        E,
        Scope.ITEM,
        "multiple-choice options are not exactly 4 distinct strings, or correct_index "
        "is missing, present without options, or out of range",
        "give four distinct quoted options and a 0-based correct_index",
    ),
    _rule(
        "numeric-answer",
        E,
        Scope.ITEM,
        "a numeric answer that cannot be graded: answer_unit or answer_tolerance without "
        "answer_value, answer_value without answer_unit, or a unit sysdrill cannot read",
        'give answer_value with a unit sysdrill reads (`sysdrill calc "1 UNIT"` tells), '
        "and a relative answer_tolerance such as 0.05",
    ),
    _rule(
        "template-draw",
        E,
        Scope.ITEM,
        "a draw of a parametric item fails: its constraints cannot be met, its answer "
        "cannot be computed in answer_unit, a placeholder is unknown, or its rendered "
        "napkin math holds a claim that is wrong or that no claim could be checked",
        "fix the range, constraint or expression the message names; "
        "`sysdrill napkin check` on the quoted text shows the claim",
        rule_class=CONTENT,
    ),
    _rule(
        "diagram",
        E,
        Scope.ITEM,
        "an item's diagram cannot be drawn: its kind is unknown, a parameter is "
        "missing, unknown, negative or refers to no template value, or the picture "
        "would be too large to read",
        "use a kind and the parameters docs/vault-format.md lists for it, within their "
        "caps; a template's {name} must name one of its parameters or derived values",
        rule_class=CONTENT,
    ),
    _rule(
        "unsafe-markup",
        E,
        Scope.ITEM,
        "a text field holds a script or embedding tag, a `javascript:` or "
        "`data:text/html` URL, or an event-handler attribute such as `onclick=`",
        "remove the markup; write plain Markdown",
    ),
    _rule(
        "resource-url",
        E,
        Scope.ITEM,
        "a resource URL is not an absolute https URL",
        "link the https address of the page",
        rule_class=CONTENT,
    ),
    _rule(
        "rule-crashed",
        E,
        Scope.ITEM,
        "a rule tier failed with an internal error on this item (the rest of the audit ran)",
        "report it with the item attached; run `sysdrill --debug check` for the traceback",
        rule_class=CONTENT,
    ),
    # Several items and the shared files.
    _rule(
        "vault-layout",
        W,
        Scope.VAULT,
        "the vault has no questions/ folder, so no item was checked",
        "pass the folder that holds questions/ (not questions/ itself)",
    ),
    _rule(
        "id-unique", E, Scope.VAULT, "two item files use the same id", "give each item its own id"
    ),
    _rule(
        "topic-in-taxonomy",
        E,
        Scope.VAULT,
        "the item's topic is not a topic of the vault's taxonomy "
        "(taxonomy.yaml or StaffML's taxonomy_data.yaml)",
        "use a topic id from the taxonomy or add the topic there",
        # The item still works (a vault without a taxonomy takes any topic): a gap in
        # the taxonomy is the author's to close, never a reason to refuse the build.
        rule_class=CONTENT,
    ),
    _rule(
        "taxonomy-acyclic",
        E,
        Scope.VAULT,
        "taxonomy prerequisites form a cycle",
        "remove one prerequisite edge of the cycle",
    ),
    _rule(
        "taxonomy-ref-exists",
        E,
        Scope.VAULT,
        "a prerequisite or another topic edge names a topic that no taxonomy file "
        "defines, or a topic id is defined twice (in one file or across files)",
        "define the topic or correct the name",
    ),
    _rule(
        "chain-ref-exists",
        E,
        Scope.VAULT,
        "a chain (chains.yaml or chains.json) lists an item id that no file defines",
        "correct the id or remove it from the chain",
    ),
    _rule(
        "chain-levels-monotonic",
        E,
        Scope.VAULT,
        "a chain steps down in level (chains go from L1 towards L6+)",
        "reorder the chain so that levels never decrease",
        rule_class=CONTENT,
    ),
    _rule(
        "chain-level-mismatch",
        W,
        Scope.VAULT,
        "chains.json gives a question a level other than the one its item file declares",
        "correct the level in chains.json or in the item",
        rule_class=CONTENT,
    ),
    _rule(
        "chain-duplicate",
        E,
        Scope.VAULT,
        "an item appears twice in one chain, or two chains share an id "
        "(in one file or across chains.yaml and chains.json)",
        "keep one occurrence, or rename one chain",
    ),
    _rule(
        "media-missing",
        W,
        Scope.VAULT,
        "an item refers to a media file (`media/<name>`) that the vault's media/ folder lacks",
        "put the file in media/ (import the package again) or remove the reference",
    ),
    _rule(
        "deck-ref-exists",
        E,
        Scope.VAULT,
        "a deck in decks.yaml lists an unknown item id",
        "correct the id or remove it from the deck",
    ),
    # Reported by sysdrill.check.rules_plans.
    _rule(
        "plan-schema",
        E,
        Scope.VAULT,
        "plans.yaml is not a list of plans with a name, title, days and new_per_day each",
        "fix the fields the message names (see docs/content.md, Study plans)",
    ),
    _rule(
        "plan-ref-exists",
        E,
        Scope.VAULT,
        "a plan in plans.yaml names a deck or topic the vault does not define",
        "correct the name, or add the deck to decks.yaml or the topic to taxonomy.yaml",
    ),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _DEFINED}
"""The rules defined here, by code (without the napkin tier)."""


def napkin_module() -> ModuleType:
    """The napkin tier module.

    Raises:
        TierUnavailable: If the module cannot be imported or lacks ``RULES`` and
            ``napkin_findings``: a check without its napkin tier would report
            clean arithmetic it never looked at.
    """
    try:
        module = importlib.import_module(NAPKIN_TIER)
    except Exception as exc:  # any failure to import means the tier is gone
        raise TierUnavailable(
            f"the napkin tier ({NAPKIN_TIER}) cannot be loaded "
            f"({type(exc).__name__}: {exc}); reinstall sysdrill, or run "
            "`sysdrill --debug check` for the traceback"
        ) from exc
    if not isinstance(getattr(module, "RULES", None), dict) or not callable(
        getattr(module, "napkin_findings", None)
    ):
        raise TierUnavailable(
            f"the napkin tier ({NAPKIN_TIER}) lacks RULES or napkin_findings; reinstall sysdrill"
        )
    return module


def all_rules() -> dict[str, Rule]:
    """Every rule, the napkin tier's included, by code.

    Raises:
        TierUnavailable: If the napkin tier cannot be loaded.
    """
    rules = dict(RULES)
    for code, (severity, meaning, fix) in napkin_module().RULES.items():
        rules[code] = Rule(
            code, Severity(severity), meaning, fix, Scope.NAPKIN, rule_class=RuleClass.CONTENT
        )
    return rules
