r"""One item chosen for export (:class:`ExportedItem`) and how it looks as a card.

Every card-shaped export (Anki package, Anki text, CSV, Markdown) draws on
these functions, so an item reads the same in each of them. Text stays
Markdown here; :class:`FieldRenderer` turns it into the sanitised HTML Anki
shows, with math handed to MathJax as ``\( \)`` and ``\[ \]``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sysdrill.content.enums import ItemKind
from sysdrill.content.models import Item

__all__ = [
    "ANKI_ROOT_DECK",
    "ExportedItem",
    "FieldRenderer",
    "ItemsWritten",
    "anki_deck_name",
    "anki_tags",
    "back_markdown",
    "correct_option",
    "front_markdown",
    "options_markdown",
    "parts_markdown",
]

ANKI_ROOT_DECK = "sysdrill"
"""Top-level Anki deck every exported deck sits under."""

ItemsWritten = Callable[[int], None]
"""A writer's progress callback: called with the number of items written so far."""


@dataclass(frozen=True, slots=True)
class ExportedItem:
    """One item chosen for export: the validated model and the mapping as stored."""

    item: Item
    raw: dict[str, Any]
    rel: str
    """Path of its file relative to the vault."""
    deck: str | None = None
    """Deck the item belongs to: its ``deck`` field, else the first deck listing it."""
    deck_title: str | None = None
    """Title of that deck from ``decks.yaml``, else its name."""


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SPACES = re.compile(r"\s+")
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
# Pandoc's rule: no space just inside the dollars, no digit right after the
# closing one, so "$5 and $10" stays prose.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])([^$\n]+?)(?<![\s\\])\$(?!\d)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_BETWEEN_TAGS = re.compile(r">\n+<")


def _option_text(option: Any) -> str:
    if isinstance(option, dict):
        for key in ("text", "option", "label", "value"):
            if key in option:
                return str(option[key])
    return str(option)


def options_markdown(item: Item) -> str:
    """Multiple-choice options as ``A. ...`` lines, or ``""`` when there are none."""
    options = item.details.options or []
    return "\n".join(f"{_LETTERS[n % 26]}. {_option_text(o)}" for n, o in enumerate(options))


def correct_option(item: Item) -> str:
    """The correct option as ``B. text``, or ``""`` when unknown."""
    options = item.details.options or []
    index = item.details.correct_index
    if index is None or not 0 <= index < len(options):
        return ""
    return f"{_LETTERS[index % 26]}. {_option_text(options[index])}"


def parts_markdown(item: Item, *, with_answers: bool) -> str:
    """Exercise sub-parts as ``(a) text`` paragraphs, answers appended when asked."""
    chunks = []
    for part in item.parts or []:
        label = part.label.strip()
        label = label if label.startswith("(") else f"({label})"
        text = f"{label} {part.text.strip()}"
        if with_answers and part.answer:
            text += f"\n\n{part.answer.strip()}"
        chunks.append(text)
    return "\n\n".join(chunks)


def _join(*chunks: str | None) -> str:
    return "\n\n".join(chunk.strip() for chunk in chunks if chunk and chunk.strip())


def front_markdown(item: Item) -> str:
    """The prompt side: scenario and question, options or parts, as Markdown."""
    kind = item.kind
    if kind == ItemKind.QUESTION:
        return _join(item.scenario, item.question, options_markdown(item))
    if kind == ItemKind.EXERCISE:
        return _join(item.question, parts_markdown(item, with_answers=False))
    return _join(item.question, options_markdown(item))


def back_markdown(item: Item, *, placeholder: bool = True) -> str:
    """The answer side: the correct option, model answer, napkin math, pitfall.

    Args:
        item: The item.
        placeholder: Say "No reference answer" when there is nothing to show
            (cards need a back); with False an empty string comes back instead.
    """
    details = item.details
    answer = details.realistic_solution
    if item.kind == ItemKind.NUMERIC and item.answer_value is not None:
        unit = f" {item.answer_unit}" if item.answer_unit else ""
        tolerance = (
            f" (within {item.answer_tolerance:.0%})" if item.answer_tolerance is not None else ""
        )
        answer = _join(f"**{item.answer_value:g}{unit}**{tolerance}", answer)
    chosen = correct_option(item)
    parts_with_answers = (
        parts_markdown(item, with_answers=True)
        if any(part.answer for part in item.parts or [])
        else ""
    )
    back = _join(
        f"**Answer: {chosen}**" if chosen else None,
        answer,
        parts_with_answers,
        f"**Napkin math**\n\n{details.napkin_math}" if details.napkin_math else None,
        f"**Common mistake**\n\n{details.common_mistake}" if details.common_mistake else None,
    )
    if back or not placeholder:
        return back
    if item.kind == ItemKind.EXERCISE or item.has_reference_answer is False:
        return "*No reference answer.*"
    return "*No answer in the source.*"


def demote_headings(text: str) -> str:
    """Turn Markdown headings inside a field into bold lines (cards have no outline)."""
    return _HEADING.sub(lambda m: f"**{m.group(2)}**", text)


def anki_deck_name(item: Item, *, deck: str | None) -> str:
    """``sysdrill::<deck or track>::<level>``, leaving out the parts an item lacks.

    Args:
        item: The item.
        deck: The deck's display name (its title), or None when in no deck.
    """
    parts = [ANKI_ROOT_DECK]
    if deck:
        parts.extend(p.strip() for p in deck.split("::") if p.strip())
    elif item.track is not None:
        parts.append(item.track.value)
    if item.level is not None:
        parts.append(item.level.value)
    return "::".join(parts)


def _tag(text: str) -> str:
    return _SPACES.sub("_", text.strip())


def anki_tags(item: Item) -> list[str]:
    """Anki tags: the item's own, then ``track::``, ``level::``, ``topic::``, ``kind::``.

    Anki tags cannot hold spaces, so spaces become underscores.
    """
    tags = [_tag(tag) for tag in item.tags if tag.strip()]
    if item.track is not None:
        tags.append(f"track::{item.track.value}")
    if item.level is not None:
        tags.append(f"level::{item.level.value}")
    if item.topic:
        tags.append(f"topic::{_tag(item.topic)}")
    if item.competency_area is not None:
        tags.append(f"area::{item.competency_area.value}")
    tags.append(f"kind::{item.kind.value}")
    return list(dict.fromkeys(tags))


# A fence of three or more backticks or tildes, closed by the same (a longer one holds ```).
_FENCE = re.compile(
    r"^[ ]{0,3}(`{3,}|~{3,})[^\n`]*\n(.*?)^[ ]{0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL
)
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_BLOCK_SLOT = re.compile(r"(?:<p>)?SYSDRILLBLOCK(\d+)X(?:</p>)?")
_SPAN_SLOT = re.compile(r"SYSDRILLSPAN(\d+)X")
# Text without any of these renders as plain paragraphs; it skips the parser.
_SYNTAX_CHARS = re.compile(r"[*_`\[\]<>&#|\\!~$^]")
# What the importers write for <sup>/<sub>: 10^{4}, H_{2}O (outside math, where LaTeX reads it).
# Not after a backslash: x\^{4} is the text "x^{4}" (the importers escape it so).
_SUP_SUB = re.compile(r"(?<=[^\s\\])([\^_])\{([^{}\n$]{1,80})\}")
# Lines that start a block: a list item, indented code, a setext underline, a rule.
_LINE_SYNTAX = re.compile(
    r"^[ \t]*(?:[-+]|\d+[.)])(?:[ \t]|$)|^(?: {4}|\t)|^[=-]+[ \t]*$"
    r"|^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$",
    re.M,
)


def _cut_code_spans(text: str, code: Callable[[str], str]) -> str:
    """Replace each code span by ``code(its text)``, as CommonMark finds them.

    A run of backticks opens a span closed by the next run of the same length; a
    backslash escapes the character after it (an escaped backslash leaves the
    backtick after it free to open a span), but not inside a span. A span never
    crosses a blank line.
    """
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "\\" and index + 1 < size:
            out.append(text[index : index + 2])
            index += 2
            continue
        if char != "`":
            out.append(char)
            index += 1
            continue
        end = index
        while end < size and text[end] == "`":
            end += 1
        run = end - index
        closing = end
        while (closing := text.find("`", closing)) >= 0:
            stop = closing
            while stop < size and text[stop] == "`":
                stop += 1
            if stop - closing == run:
                break
            closing = stop
        if closing < 0 or "\n\n" in text[end:closing]:
            out.append(text[index:end])
            index = end
            continue
        out.append(code(text[end:closing]))
        index = closing + run
    return "".join(out)


class FieldRenderer:
    r"""Markdown to the sanitised HTML of an Anki field, math left for MathJax.

    Rendering is GitHub-flavoured CommonMark (tables, strikethrough) by
    cmark-gfm, with single line breaks kept. Before it runs, code blocks, code
    spans, math and ``^{...}``/``_{...}`` (superscript and subscript, as the
    importers write ``<sup>``/``<sub>``) are cut out (so ``*`` and ``_`` inside math are not read as
    emphasis) and put back escaped; math goes between ``\( \)`` or ``\[ \]``
    for MathJax. Text that looks like an HTML tag is escaped and shown as
    text, never interpreted; the result is cleaned with nh3 all the same, so a
    field can never carry a script into Anki.
    """

    def __init__(self) -> None:
        import cmarkgfm  # type: ignore[import-untyped]
        import nh3
        from cmarkgfm.cmark import Options  # type: ignore[import-untyped]

        self._to_html = cmarkgfm.github_flavored_markdown_to_html
        self._options = Options.CMARK_OPT_HARDBREAKS
        # A Cleaner builds its allow-lists once; nh3.clean rebuilds them per call.
        cleaner = getattr(nh3, "Cleaner", None)
        self._clean = cleaner().clean if cleaner is not None else nh3.clean
        self._memo: dict[str, str] = {}

    def __call__(self, text: str | None) -> str:
        """Render one field; ``None`` and blank text give ``""``."""
        if not text or not text.strip():
            return ""
        cached = self._memo.get(text)
        if cached is None:
            cached = self._memo[text] = self._render(text)
        return cached

    def _render(self, text: str) -> str:
        if not _SYNTAX_CHARS.search(text) and not _LINE_SYNTAX.search(text):
            paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
            return "".join(
                "<p>" + html.escape(p, quote=False).replace("\n", "<br>") + "</p>"
                for p in paragraphs
            )
        blocks: list[str] = []
        spans: list[str] = []

        def block(match: re.Match[str]) -> str:
            blocks.append(f"<pre><code>{html.escape(match.group(2), quote=False)}</code></pre>")
            return f"\n\nSYSDRILLBLOCK{len(blocks) - 1}X\n\n"

        def span(content: str) -> str:
            spans.append(content)
            return f"SYSDRILLSPAN{len(spans) - 1}X"

        def code(content: str) -> str:
            inner = content.replace("\n", " ")
            inner = inner[1:-1] if inner.startswith(" ") and inner.endswith(" ") else inner
            return span(f"<code>{html.escape(inner, quote=False)}</code>")

        def math(opening: str, closing: str) -> Any:
            def replace(match: re.Match[str]) -> str:
                body = html.escape(match.group(1).strip(), quote=False)
                return span(f"{opening}{body}{closing}")

            return replace

        if "`" in text or "~~~" in text:
            text = _FENCE.sub(block, text)
            text = _cut_code_spans(text, code)
        if "$" in text:
            text = _DISPLAY_MATH.sub(math("\\[", "\\]"), text)
            text = _INLINE_MATH.sub(math("\\(", "\\)"), text)
        if "{" in text:
            text = _SUP_SUB.sub(
                lambda m: span(
                    ("<sup>{}</sup>" if m.group(1) == "^" else "<sub>{}</sub>").format(
                        html.escape(m.group(2), quote=False)
                    )
                ),
                text,
            )
        if "<" in text:
            text = _TAG_START.sub("&lt;", text)
        rendered = self._clean(self._to_html(text, options=self._options)).strip()
        if blocks:
            rendered = _BLOCK_SLOT.sub(lambda m: blocks[int(m.group(1))], rendered)
        if spans:
            rendered = _SPAN_SLOT.sub(lambda m: spans[int(m.group(1))], rendered)
        return _BETWEEN_TAGS.sub("><", rendered)
