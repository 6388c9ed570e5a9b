"""Chapter exercises text: section headings, ``Exercise N.M (**)``, parts (a) (b) (c).

Stars give the difficulty (1 to 4) and the level: one star L3, two L4, three
L5, four L6+. A section heading is a short title-like line standing right
before an exercise; it becomes the item's ``section`` and a tag. Lines
starting ``(a)``, ``(b)``... open sub-parts; everything else, Markdown tables
and bullet lists included, is kept as written. Exercise sets carry no answers,
so every item is marked ``has_reference_answer: false``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats import slugify, tidy_text
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.text import read_source_text

__all__ = ["STAR_LEVELS", "read_exercises_text"]

STAR_LEVELS: dict[int, str] = {1: "L3", 2: "L4", 3: "L5", 4: "L6+"}
"""Level of an exercise by its number of stars."""

_HEADER = re.compile(r"^Exercise[ \t]+(\d+(?:\.\d+)*)[ \t]*\((\*{1,4})\)[ \t]*(.*)$")
_PART = re.compile(r"^\(([a-z])\)[ \t]+(.*)$")


def _is_heading(line: str) -> bool:
    """Whether a line standing before an exercise is a section heading, not body text."""
    text = line.strip()
    if not text or len(text) > 80 or len(text.split()) > 10:
        return False
    if text[-1] in ".?!:;,)$|" or text[0] in "(-*|#>$0123456789":
        return False
    return text[0].isupper()


def _parts(lines: list[str]) -> tuple[str, list[dict[str, Any]]]:
    intro: list[str] = []
    parts: list[dict[str, Any]] = []
    current: list[str] | None = None
    for line in lines:
        match = _PART.match(line.strip())
        if match:
            current = [match.group(2)]
            parts.append({"label": match.group(1), "lines": current})
        elif current is not None:
            current.append(line)
        else:
            intro.append(line)
    return tidy_text(intro), [
        {"label": part["label"], "text": tidy_text(part["lines"])} for part in parts
    ]


def read_exercises_text(path: Path) -> ParsedSource:
    """Read a chapter's exercises: one item per ``Exercise N.M (*)``.

    Args:
        path: The exercises text.

    Returns:
        Parsed exercise items keyed ``<deck>/exercise-<N.M>``, with
        ``difficulty``, ``level``, ``section`` (also a tag) and ``parts``.

    Raises:
        ImportFailed: If no ``Exercise N (*)`` header is found.
    """
    decoded = read_source_text(path)
    lines = decoded.text.split("\n")
    headers = [i for i, line in enumerate(lines) if _HEADER.match(line.strip())]
    if not headers:
        raise ImportFailed(
            f"'{path.name}' has no 'Exercise N (*)' lines; pass --format for the format it is in"
        )
    # Section headings: a title-like line right before an exercise header.
    headings = {i - 1 for i in headers if i > 0 and _is_heading(lines[i - 1])}
    # The title is the first line, unless that line is already a section heading.
    first = next((i for i, line in enumerate(lines[: headers[0]]) if line.strip()), None)
    title = lines[first].strip() if first is not None and first not in headings else path.stem
    deck = slugify(title)
    source = ParsedSource(format="exercises-text", path=str(path), deck=title)
    if decoded.note:
        source.notes.append(ImportNote(decoded.note, path.name))
    section: str | None = None
    sections: list[str] = []
    for position, start in enumerate(headers):
        if start - 1 in headings:
            section = lines[start - 1].strip()
            sections.append(section)
        end = headers[position + 1] if position + 1 < len(headers) else len(lines)
        if end - 1 in headings:
            end -= 1
        match = _HEADER.match(lines[start].strip())
        assert match is not None  # headers only holds matching lines
        number, stars, heading_title = match.group(1), len(match.group(2)), match.group(3)
        intro, parts = _parts(lines[start + 1 : end])
        where = f"{path.name}:{start + 1}"
        if not intro and not parts:
            source.notes.append(
                ImportNote(f"skipped exercise {number}: no text", where, skipped=True)
            )
            continue
        data: dict[str, Any] = {
            "format": "exercise",
            "level": STAR_LEVELS[stars],
            "question": intro or f"Answer parts {', '.join(p['label'] for p in parts)}.",
        }
        if section:
            data["tags"] = [section]
            data["section"] = section
        if heading_title.strip():
            # A bare "Exercise 26.1" would be a placeholder title; only a real one is kept.
            data["title"] = heading_title.strip()
        data["difficulty"] = stars
        if parts:
            data["parts"] = parts
        data["has_reference_answer"] = False
        source.items.append(ParsedItem(key=f"{deck}/exercise-{number}", data=data))
    if not sections:
        source.notes.append(
            ImportNote("no section headings found; exercises carry no section", path.name)
        )
    return source
