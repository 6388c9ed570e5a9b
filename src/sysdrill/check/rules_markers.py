"""Item rules about answer text: markers, options, markup and links."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from sysdrill.check.context import FileContext, iter_strings

__all__ = [
    "MISTAKE_MARKERS",
    "check_answer_text",
    "check_links_and_markup",
    "check_options",
]

MISTAKE_MARKERS = ("**The Pitfall:**", "**The Rationale:**", "**The Consequence:**")
"""The markers ``common_mistake`` must hold, in this order."""

CALCULATIONS_MARKER = "**Calculations:**"
_ASSUMPTIONS = re.compile(r"\*\*Assumptions\b[^*\n]*:\*\*")
_CONCLUSION = re.compile(r"\*\*Conclusion\b[^*\n]*:\*\*")
# Near misses of the canonical marker: "**Calculation:**", "Calculations:" without bold,
# "**Calculations**:", "**Math:**".
_CALC_VARIANT = re.compile(
    r"(?:\*\*)?(?:Calculations?|Math|Computation|Calc)\s*(?:\*\*\s*:|:\s*(?:\*\*)?)",
    re.IGNORECASE,
)

_UNSAFE = re.compile(
    r"<\s*(?:script|iframe|object|embed)\b"
    r"|javascript\s*:"
    r"|data\s*:\s*text/html"
    r"|<[a-z][^<>]{0,500}?\son[a-z]+\s*=",
    re.IGNORECASE,
)


def _in_order(
    ctx: FileContext, code: str, loc: tuple[str, str], found: list[tuple[str, int]]
) -> None:
    """Report the first marker that comes before one it should follow."""
    for (previous, before), (name, at) in zip(found, found[1:], strict=False):
        if at < before:
            ctx.add(code, f"{name} comes before {previous}", loc, needle=name)
            return


def _check_mistake(ctx: FileContext, text: str) -> None:
    loc = ("details", "common_mistake")
    positions = [(marker, text.find(marker)) for marker in MISTAKE_MARKERS]
    missing = [marker for marker, at in positions if at < 0]
    if missing:
        ctx.add("common-mistake-markers", f"common_mistake lacks {', '.join(missing)}", loc)
        return
    _in_order(ctx, "common-mistake-markers", loc, positions)


def _check_napkin(ctx: FileContext, text: str) -> None:
    loc = ("details", "napkin_math")
    assumptions = _ASSUMPTIONS.search(text)
    conclusion = _CONCLUSION.search(text)
    calculations = text.find(CALCULATIONS_MARKER)
    variant = _CALC_VARIANT.search(text) if calculations < 0 else None
    if variant is not None:
        ctx.add(
            "napkin-markers",
            f"napkin_math uses {variant.group(0).strip()!r} instead of the canonical "
            f"{CALCULATIONS_MARKER}",
            loc,
            needle=variant.group(0),
            fix=f"write the marker exactly as {CALCULATIONS_MARKER}",
        )
    # One finding for all the headers a text lacks: free-form napkin math (common in
    # real vaults) lacks all three, and three lines for it buried the other findings.
    missing = [
        header
        for header, absent in (
            ("an **Assumptions...:** header", assumptions is None),
            (f"the {CALCULATIONS_MARKER} marker", calculations < 0 and variant is None),
            ("a **Conclusion...:** header", conclusion is None),
        )
        if absent
    ]
    if missing:
        named = ", ".join(missing[:-1]) + " and " + missing[-1] if missing[1:] else missing[0]
        ctx.add("napkin-markers", f"napkin_math lacks {named}", loc)
    if assumptions is not None and conclusion is not None and calculations >= 0:
        _in_order(
            ctx,
            "napkin-markers",
            loc,
            [
                (assumptions.group(0), assumptions.start()),
                (CALCULATIONS_MARKER, calculations),
                (conclusion.group(0), conclusion.start()),
            ],
        )


def check_answer_text(ctx: FileContext) -> None:
    """``common-mistake-markers`` and ``napkin-markers``."""
    details = ctx.item.details
    if details.common_mistake and ctx.applies("common-mistake-markers"):
        _check_mistake(ctx, details.common_mistake)
    if details.napkin_math and ctx.applies("napkin-markers"):
        _check_napkin(ctx, details.napkin_math)


def check_options(ctx: FileContext) -> None:
    """``option-parsed-as-mapping`` and ``mcq``."""
    details = ctx.item.details
    options = details.options
    base = ("details", "options")
    if options is None:
        if details.correct_index is not None:
            ctx.add(
                "mcq",
                "correct_index is set but the item has no options",
                ("details", "correct_index"),
            )
        return
    strings: list[str] = []
    for index, option in enumerate(options):
        if isinstance(option, dict) and len(option) == 1:
            key, value = next(iter(option.items()))
            ctx.add(
                "option-parsed-as-mapping",
                f"option {index + 1} was read as a mapping {{{key!r}: {value!r}}}, not text",
                (*base, index),
                fix=f"quote it: - '{key}: {value}'",
            )
        elif isinstance(option, str):
            strings.append(option.strip().casefold())
        else:
            ctx.add(
                "mcq",
                f"option {index + 1} is a {type(option).__name__}, not text",
                (*base, index),
                fix="quote the option so that it is text",
            )
    if len(options) != 4:
        ctx.add("mcq", f"item has {len(options)} options, not 4", base)
    duplicates = sorted({s for s in strings if strings.count(s) > 1})
    if duplicates:
        ctx.add("mcq", f"options repeat {duplicates[0]!r}", base)
    correct = details.correct_index
    if correct is None:
        ctx.add(
            "mcq",
            "options are given but correct_index is missing",
            base,
            fix="add correct_index: the 0-based position of the right option",
        )
    elif not 0 <= correct < len(options):
        ctx.add(
            "mcq",
            f"correct_index {correct} is outside 0..{len(options) - 1}",
            ("details", "correct_index"),
        )


# Text Markdown shows as text, never as markup: code blocks, code spans and a
# backslash-escaped "<". (An entity such as "&lt;script&gt;" holds no "<" at all.)
_SHOWN_AS_TEXT = re.compile(
    r"^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n.*?^[ ]{0,3}\1[ \t]*$"
    r"|(`+)(?!`).+?(?<!`)\2(?!`)"
    r"|(?<!\\)\\<",
    re.MULTILINE | re.DOTALL,
)


def _markup_outside_code(text: str) -> re.Match[str] | None:
    """The first unsafe markup in text, leaving out what Markdown shows as text."""
    match = _UNSAFE.search(text)
    if match is None or ("`" not in text and "\\<" not in text):
        return match
    return _UNSAFE.search(_SHOWN_AS_TEXT.sub(" ", text))


def _may_hold_unsafe_markup(text: str | None) -> bool:
    """Cheap test of the whole file text; only files that pass it are scanned field by field."""
    if text is None:
        return True
    if "<" in text and _UNSAFE.search(text):
        return True
    lowered = text.lower()
    return "javascript" in lowered or "text/html" in lowered


_KEPT_FROM_ANKI: tuple[tuple[str, ...], ...] = (("source", "anki"), ("note", "templates"))
"""Fields where an import keeps Anki's own note type and note as Anki stored them (card
templates, field HTML), only to write them back on export: never shown as the item's
text, and not the author's to fix, so ``unsafe-markup`` does not read them."""


def _kept_from_anki(loc: tuple[str | int, ...]) -> bool:
    return any(loc[: len(prefix)] == prefix for prefix in _KEPT_FROM_ANKI)


def check_links_and_markup(ctx: FileContext) -> None:
    """``unsafe-markup`` and ``resource-url``."""
    strings = iter_strings(ctx.raw) if _may_hold_unsafe_markup(ctx.loaded.text) else ()
    for loc, text in strings:
        if _kept_from_anki(loc):
            continue
        match = _markup_outside_code(text)
        if match is not None:
            dotted = ".".join(str(part) for part in loc)
            ctx.add(
                "unsafe-markup", f"{dotted} holds {match.group(0)!r}", loc, needle=match.group(0)
            )
    for index, resource in enumerate(ctx.item.details.resources or ()):
        parts = urlsplit(resource.url.strip())
        if parts.scheme != "https" or not parts.netloc:
            ctx.add(
                "resource-url",
                f"resource URL {resource.url[:80]!r} is not https",
                ("details", "resources", index, "url"),
            )
