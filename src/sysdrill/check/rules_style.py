"""Item rules about classification and wording: zones, levels, question, title, scenario."""

from __future__ import annotations

import re

from sysdrill.check.context import FileContext
from sysdrill.content.enums import BLOOM_ORDER, LEVEL_ORDER, BloomLevel, Level, Zone

__all__ = [
    "MAX_QUESTION_CHARS",
    "MAX_TITLE_CHARS",
    "MIN_SCENARIO_CHARS",
    "ZONE_BLOOMS",
    "ZONE_LEVELS",
    "check_classification",
    "check_wording",
]

MAX_QUESTION_CHARS = 200
MAX_TITLE_CHARS = 120
MIN_SCENARIO_CHARS = 30


def _blooms(first: BloomLevel, last: BloomLevel) -> frozenset[BloomLevel]:
    return frozenset(BLOOM_ORDER[BLOOM_ORDER.index(first) : BLOOM_ORDER.index(last) + 1])


def _levels(first: Level, last: Level) -> frozenset[Level]:
    return frozenset(LEVEL_ORDER[LEVEL_ORDER.index(first) : LEVEL_ORDER.index(last) + 1])


B = BloomLevel
ZONE_BLOOMS: dict[Zone, frozenset[BloomLevel]] = {
    Zone.RECALL: _blooms(B.REMEMBER, B.UNDERSTAND),
    Zone.FLUENCY: _blooms(B.REMEMBER, B.APPLY),
    Zone.IMPLEMENT: _blooms(B.UNDERSTAND, B.CREATE),
    Zone.ANALYZE: _blooms(B.APPLY, B.ANALYZE),
    Zone.DIAGNOSIS: _blooms(B.APPLY, B.EVALUATE),
    Zone.SPECIFICATION: _blooms(B.APPLY, B.CREATE),
    Zone.EVALUATION: _blooms(B.ANALYZE, B.EVALUATE),
    Zone.MASTERY: _blooms(B.ANALYZE, B.CREATE),
    Zone.OPTIMIZATION: _blooms(B.APPLY, B.CREATE),
    Zone.DESIGN: _blooms(B.APPLY, B.CREATE),
    Zone.REALIZATION: _blooms(B.APPLY, B.CREATE),
}
"""Bloom levels each zone allows (``zone-bloom``, an error), from issue 2."""

L = Level
ZONE_LEVELS: dict[Zone, frozenset[Level]] = {
    Zone.RECALL: _levels(L.L1, L.L2),
    Zone.FLUENCY: _levels(L.L1, L.L3),
    Zone.IMPLEMENT: _levels(L.L2, L.L4),
    Zone.ANALYZE: _levels(L.L2, L.L5),
    Zone.DIAGNOSIS: _levels(L.L3, L.L6_PLUS),
    Zone.SPECIFICATION: _levels(L.L3, L.L6_PLUS),
    Zone.OPTIMIZATION: _levels(L.L3, L.L6_PLUS),
    Zone.EVALUATION: _levels(L.L4, L.L6_PLUS),
    Zone.DESIGN: _levels(L.L4, L.L6_PLUS),
    Zone.REALIZATION: _levels(L.L5, L.L6_PLUS),
    Zone.MASTERY: _levels(L.L5, L.L6_PLUS),
}
"""Levels each zone usually sits at (``zone-level``, a warning).

Recall and fluency are junior skills; diagnosing, specifying and optimising
need some experience; evaluating designs, realising systems and mastery are
senior work. Each range spans a level either side of where the zone is most
common, so only clear misfilings are flagged.
"""


def _span(values: frozenset[BloomLevel] | frozenset[Level], order: tuple[str, ...]) -> str:
    ordered = [v for v in order if v in values]
    return f"{ordered[0]} to {ordered[-1]}" if len(ordered) > 2 else " or ".join(ordered)


def check_classification(ctx: FileContext) -> None:
    """``zone-bloom`` and ``zone-level``."""
    item = ctx.item
    if item.zone is None or not ctx.applies("zone-bloom"):
        return
    if item.bloom_level is not None and item.bloom_level not in ZONE_BLOOMS[item.zone]:
        allowed = _span(ZONE_BLOOMS[item.zone], BLOOM_ORDER)
        ctx.add(
            "zone-bloom",
            f"zone '{item.zone}' allows Bloom level {allowed}, not '{item.bloom_level}'",
            ("bloom_level",),
        )
    if item.level is not None and item.level not in ZONE_LEVELS[item.zone]:
        usual = _span(ZONE_LEVELS[item.zone], LEVEL_ORDER)
        ctx.add(
            "zone-level",
            f"zone '{item.zone}' usually sits at {usual}, not {item.level}",
            ("level",),
        )


_PLACEHOLDER = re.compile(
    r"^\s*(?:(?:question|item|exercise|card|flashcard|quiz|problem|untitled|title|todo|tbd"
    r"|new item)\b\s*#?\s*[\d.]*|[\d.#\s]+)\s*$",
    re.IGNORECASE,
)
_MARKDOWN = re.compile(r"\*\*|__|`|^#|\[[^\]]*\]\(|^\s*[-*>]\s|<[a-z/][^>]*>", re.IGNORECASE)
_LATEX = re.compile(r"\$[^$\s][^$]*\$|\\[A-Za-z]+|\\[()\[\]]")


def _title_problems(title: str) -> list[str]:
    problems = []
    if len(title) > MAX_TITLE_CHARS:
        problems.append(f"is {len(title)} characters, more than {MAX_TITLE_CHARS}")
    if title.rstrip().endswith(".") and not title.rstrip().endswith("..."):
        problems.append("ends with a period")
    if _MARKDOWN.search(title):
        problems.append("holds Markdown")
    if _LATEX.search(title):
        problems.append("holds LaTeX")
    if "_" in title:
        problems.append("holds underscores")
    if _PLACEHOLDER.match(title):
        problems.append("is a placeholder")
    return problems


def check_wording(ctx: FileContext) -> None:
    """``question-length``, ``answer-missing``, ``title`` and ``scenario-length``."""
    item = ctx.item
    question = item.question
    if question and ctx.applies("question-length"):
        text = question.strip()
        if len(text) > MAX_QUESTION_CHARS:
            ctx.add(
                "question-length",
                f"question is {len(text)} characters, more than {MAX_QUESTION_CHARS}",
                ("question",),
            )
        if not text.endswith("?"):
            ctx.add("question-length", "question does not end with '?'", ("question",))
    if ctx.applies("answer-missing") and not (item.details.realistic_solution or "").strip():
        ctx.add("answer-missing", "quiz question has no model answer", ("question",))
    if item.title is not None:
        problems = _title_problems(item.title)
        if problems:
            ctx.add("title", f"title {'; '.join(problems)}: {item.title[:60]!r}", ("title",))
    scenario = item.scenario
    if scenario is not None and ctx.applies("scenario-length"):
        length = len(scenario.strip())
        if length < MIN_SCENARIO_CHARS:
            ctx.add(
                "scenario-length",
                f"scenario is {length} characters, fewer than {MIN_SCENARIO_CHARS}",
                ("scenario",),
            )
