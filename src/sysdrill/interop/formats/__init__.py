"""The registry of import formats: name, reader and a one-line description.

Every reader is ``read_<name>(path: Path) -> ParsedSource`` and lives in its
own module, imported only when its format is used, so a broken or missing
module breaks that one format and nothing else.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sysdrill.errors import ImportFailed, UsageError
from sysdrill.interop.source import ParsedSource

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "FormatSpec",
    "deck_slug",
    "get_reader",
    "slugify",
    "tidy_text",
]

Reader = Callable[[Path], ParsedSource]


@dataclass(frozen=True, slots=True)
class FormatSpec:
    """One import format."""

    name: str
    """Name given to ``--format`` and recorded as ``source.format``."""
    target: str
    """Reader as ``module:function``, relative to this package."""
    description: str


FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (
        FormatSpec(
            "staffml",
            "staffml:read_staffml",
            "StaffML question YAML: one file, a folder tree, or a corpus.json array",
        ),
        FormatSpec(
            "staffml-web",
            "staffml_web:read_staffml_web",
            "StaffML YAML copied from a web code viewer (flattened indentation)",
        ),
        FormatSpec(
            "quiz-text",
            "quiz_text:read_quiz_text",
            "chapter quiz text: 'Question N' / question / 'Answer' / answer",
        ),
        FormatSpec(
            "exercises-text",
            "exercises_text:read_exercises_text",
            "chapter exercises text: sections, 'Exercise N.M (**)', parts (a) (b)",
        ),
        FormatSpec(
            "flashcards-text",
            "flashcard_text:read_flashcards_text",
            "flashcard deck text: numbered Q/A cards or '*Topic:* front' lines",
        ),
        FormatSpec("apkg", "apkg:read_apkg", "Anki package (.apkg/.colpkg)"),
        FormatSpec(
            "anki-text",
            "anki_text:read_anki_text",
            "Anki text export with #separator/#html/#deck column/#tags column headers",
        ),
        FormatSpec("csv", "csv_text:read_csv", "CSV or TSV with a header row (front, back, ...)"),
        FormatSpec("markdown", "markdown_qa:read_markdown_qa", "Markdown Q/A file"),
        FormatSpec(
            "obsidian",
            "obsidian:read_obsidian",
            "Markdown notes with front matter (Obsidian): 'q::a', 'q:::a', '?' cards, Q:/A:; "
            "a file or a folder",
        ),
        FormatSpec("mochi", "mochi:read_mochi", "Mochi export (.mochi: data.edn or data.json)"),
        FormatSpec(
            "crowdanki", "crowdanki:read_crowdanki", "CrowdAnki export folder (deck.json, media/)"
        ),
    )
}
"""Every import format by name, in the order ``--help`` lists them."""

FORMAT_NAMES: tuple[str, ...] = tuple(FORMATS)
"""Format names accepted by ``--format`` (besides ``auto``)."""


def get_reader(name: str) -> Reader:
    """Return the reader of a format, importing its module now.

    Args:
        name: A format name from :data:`FORMATS`.

    Returns:
        The reader function.

    Raises:
        UsageError: If no format has that name.
        ImportFailed: If the format's module cannot be imported.
    """
    spec = FORMATS.get(name)
    if spec is None:
        raise UsageError(f"unknown format '{name}'; use one of: auto, {', '.join(FORMAT_NAMES)}")
    module_name, _, function = spec.target.partition(":")
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
        reader: Reader = getattr(module, function)
    except (ImportError, AttributeError) as exc:
        raise ImportFailed(
            f"the '{name}' importer is not available ({exc}); reinstall sysdrill "
            "or choose another --format"
        ) from exc
    return reader


def slugify(text: str) -> str:
    """Turn a title into a name safe for files on every system.

    ``Chapter 26: Quiz`` becomes ``chapter-26-quiz``; other scripts are
    transliterated (``日本語`` becomes ``ribenyu``, ``Русский`` ``russkiy``).

    Args:
        text: Any title.

    Returns:
        Lowercase ASCII letters, digits and single hyphens; ``imported`` when
        nothing usable is left.
    """
    from anyascii import anyascii

    latin = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = latin if latin.strip() == text.strip() else anyascii(text)
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:64].rstrip("-") or "imported"


def deck_slug(text: str) -> str:
    """Turn a deck title into a deck name, keeping every script.

    Lower case, with runs of anything but letters, digits and combining marks
    turned into single hyphens: ``Chapter 26: Quiz`` becomes
    ``chapter-26-quiz``, ``日本語 文法`` becomes ``日本語-文法`` and ``Русский
    язык`` ``русский-язык``. File names use :func:`slugify` instead.

    Returns:
        The name; ``imported`` when nothing usable is left.
    """
    normal = unicodedata.normalize("NFKC", text).lower()
    chars = [ch if unicodedata.category(ch)[0] in "LNM" else "-" for ch in normal]
    slug = re.sub(r"-+", "-", "".join(chars)).strip("-")
    return slug[:64].rstrip("-") or "imported"


def tidy_text(lines: list[str]) -> str:
    """Join lines into one text without trailing spaces or blank lines at either end.

    Trailing spaces are removed because they would force YAML to quote the
    text instead of writing a readable block.
    """
    text = "\n".join(line.rstrip() for line in lines).strip()
    return re.sub(r"\n{3,}", "\n\n", text)
