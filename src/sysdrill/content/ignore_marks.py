"""The ``# sysdrill: ignore[CODE]`` marker: where it applies, and keeping it from learners.

An author who has judged a ``check`` finding wrong silences it with this comment
(:mod:`sysdrill.check.suppress` applies it). The marker is for ``check`` only:
written inside a block scalar (``napkin_math: |``) it is part of the field's
text, and a learner must never read it. So every place that shows an item to a
learner or writes it out (practice, the item page, ``show``, exports) takes its
text through :func:`without_ignore_marks` or :func:`strip_ignore_marks`.

The rules of scope live here too (rather than in ``check``) because the item
page honours a silenced claim: a claim an author silenced is not marked wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from sysdrill.content.models import Item

__all__ = [
    "IGNORE_COMMENT",
    "IgnoreScope",
    "ignore_scopes",
    "silenced_codes",
    "strip_ignore_marks",
    "strip_ignore_marks_in",
    "without_ignore_marks",
]

IGNORE_COMMENT = re.compile(r"#\s*sysdrill:\s*ignore\[([^\]\n]*)\]")
"""The comment, with the comma-separated codes it silences as group 1."""

IgnoreScope = tuple[int, int, tuple[str, ...]]
"""First and last line (1-based) a comment covers, and the codes it silences (plain
data, so the check cache keeps it beside a file's findings)."""

_MARKER = "sysdrill:"
"""Text every marker holds: a cheap test before any regular expression runs."""

_SPACED_MARK = re.compile(r"[ \t]*#\s*sysdrill:\s*ignore\[[^\]\n]*\]")
"""A marker with the blanks before it, as removed from a learner's text."""


def _indent(line: str) -> int:
    stripped = line.lstrip(" ")
    width = len(line) - len(stripped)
    # A sequence entry (`- x`) written at its key's own indentation still sits
    # under that key.
    return width + 1 if stripped.startswith("- ") or stripped == "-" else width


def ignore_scopes(text: str) -> tuple[IgnoreScope, ...]:
    """The ignore comments of a text and the lines each one covers.

    A comment covers its own line and the lines nested under it: those that
    follow while every non-blank line is indented deeper than the comment's line.

    Args:
        text: A file's text (or one field's).
    """
    if _MARKER not in text:
        return ()
    lines = text.splitlines()
    scopes: list[IgnoreScope] = []
    for number, line in enumerate(lines, 1):
        codes: set[str] = set()
        for match in IGNORE_COMMENT.finditer(line):
            codes.update(code.strip() for code in match.group(1).split(",") if code.strip())
        if not codes:
            continue
        width = _indent(line)
        last = number
        for below in range(number + 1, len(lines) + 1):
            text_below = lines[below - 1]
            if text_below.strip():
                if _indent(text_below) <= width:
                    break
                last = below
        scopes.append((number, last, tuple(sorted(codes))))
    return tuple(scopes)


def silenced_codes(scopes: Iterable[IgnoreScope], line: int) -> set[str]:
    """Codes silenced at a 1-based ``line`` (0, the whole file, is never silenced)."""
    codes: set[str] = set()
    for first, last, named in scopes:
        if line > 0 and first <= line <= last:
            codes.update(named)
    return codes


def strip_ignore_marks(text: str) -> str:
    """``text`` without its ignore markers, as a learner should read it.

    A marker is removed with the blanks before it; a line that held nothing
    else is removed whole, so no empty line is left where it stood.

    Args:
        text: Any item text (Markdown, a title, an option).

    Returns:
        The text unchanged (the same object) when it holds no marker.
    """
    if _MARKER not in text or IGNORE_COMMENT.search(text) is None:
        return text
    kept: list[str] = []
    for line in text.splitlines(keepends=True):
        if IGNORE_COMMENT.search(line) is None:
            kept.append(line)
            continue
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        cleaned = _SPACED_MARK.sub("", body).rstrip(" \t")
        if cleaned.strip():
            kept.append(cleaned + ending)
        elif not ending and kept:
            # The last line was only a marker: the line before keeps no trailing newline.
            kept[-1] = kept[-1].rstrip("\r\n")
    return "".join(kept)


def strip_ignore_marks_in(value: Any) -> Any:
    """A plain value (a raw YAML mapping, say) with every string's markers removed.

    Mappings and lists are copied only where something changed; keys are kept.
    """
    if isinstance(value, str):
        return strip_ignore_marks(value)
    if isinstance(value, dict):
        changed = {key: strip_ignore_marks_in(child) for key, child in value.items()}
        return value if all(changed[k] is value[k] for k in value) else changed
    if isinstance(value, list):
        items = [strip_ignore_marks_in(child) for child in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _plain_has_marks(value: Any) -> bool:
    """Whether a plain value (strings, mappings, lists) holds a marker; a few µs an item."""
    kind = type(value)
    if kind is str:
        return _MARKER in value and IGNORE_COMMENT.search(value) is not None
    if kind is dict:
        return any(_plain_has_marks(child) for child in value.values())
    if kind is list:
        return any(_plain_has_marks(child) for child in value)
    return False


def _has_marks(value: Any) -> bool:
    kind = type(value)
    if kind is str or kind is dict or kind is list:
        return _plain_has_marks(value)
    if isinstance(value, BaseModel):
        extra = value.__pydantic_extra__
        return any(
            child is not None and _has_marks(child) for child in value.__dict__.values()
        ) or bool(extra and _plain_has_marks(extra))
    if isinstance(value, str):  # an enum's value: no marker fits a vocabulary
        return False
    return isinstance(value, tuple) and any(_has_marks(child) for child in value)


def without_ignore_marks(item: Item, *, raw: Any = None) -> Item:
    """The item as a learner sees it: every text without its ignore markers.

    Args:
        item: A validated item.
        raw: The mapping the item was validated from, when the caller has it: a
            vault of 10,000 items is then searched for markers in about 40 ms
            rather than 100 ms.

    Returns:
        ``item`` itself when no text holds a marker (the common case, found
        without copying anything); otherwise a copy whose strings are cleaned.
    """
    marked = _plain_has_marks(raw) if raw is not None else _has_marks(item)
    if not marked:
        return item
    # Only the keys that were set, so the copy dumps (and hashes) as the item would.
    data = strip_ignore_marks_in(item.model_dump(mode="python", exclude_unset=True))
    return Item.model_validate(data)
