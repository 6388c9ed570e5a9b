r"""Read Markdown notes with front matter (Obsidian-style): a file or a folder of them.

Cards are written the ways Obsidian users write them (the spaced-repetition
plugin's syntax, and plain ``Q:``/``A:`` pairs):

- ``question::answer`` on one line; ``question:::answer`` makes a reversed
  pair (two items, one per direction);
- a paragraph, a line ``?``, then the answer up to the next blank line
  (``??`` for a reversed pair);
- ``Q:`` / ``A:`` pairs (also ``Question:``/``Answer:``, optionally bold),
  the answer running to the next question or heading;
- in a note tagged ``#flashcards``, a paragraph with ``==highlights==``: a
  cloze card per highlight, linked like an Anki cloze note's blanks.

YAML front matter between ``---`` lines gives the deck (``deck`` or
``cards-deck``) and tags (``tags``); a ``#flashcards/Deck/Sub`` tag gives the
deck ``Deck::Sub`` as the plugin reads it; otherwise the deck is the note's
folder (``A::B`` for ``A/B/``) or, for a single file, its name. Fenced code
is never read as a card. Images embedded as ``![[name.png]]`` or
``![alt](path.png)`` are looked up beside the note, then in the folder
imported (by name anywhere in it, as Obsidian does), checked and brought into
``media/``. The plugin's review stamps (``<!--SR:...-->``) are dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from sysdrill.content.media import media_type_of_name
from sysdrill.errors import HostileInput, ImportFailed
from sysdrill.interop.cloze import cloze_cards, cloze_link
from sysdrill.interop.formats._common import card_item, finish_source, split_tags, text_key
from sysdrill.interop.media import MediaIntake, read_folder_media
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.text import WHOLE_TEXT_MAX_BYTES, read_source_text

__all__ = ["MAX_NOTE_FILES", "MAX_NOTES_TOTAL_BYTES", "read_obsidian"]

MAX_NOTE_FILES = 100_000
"""Most Markdown files one folder import reads."""
MAX_NOTES_TOTAL_BYTES = 256 * 1024 * 1024
"""Most Markdown bytes one folder import reads, in bytes (256 MiB)."""

_SUFFIXES = (".md", ".markdown")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}[ \t]+\S")
_QUESTION = re.compile(r"^\s*(?:\*\*|__)?(?:Q|Question)\s*:(?:\*\*|__)?\s?(.*)$", re.I)
_ANSWER = re.compile(r"^\s*(?:\*\*|__)?(?:A|Answer)\s*:(?:\*\*|__)?\s?(.*)$", re.I)
_SR_STAMP = re.compile(r"<!--\s*SR:[^>]*-->")
_TAG_LINE = re.compile(r"^\s*(?:#[\w/-]+\s*)+$")
_TAG = re.compile(r"(?<![\w#])#([\w][\w/-]*)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_BREAK = re.compile(r"<br\s*/?>", re.I)
_WIKI_EMBED = re.compile(r"!\[\[([^\]|#\n]+)(?:[|#][^\]\n]*)?\]\]")
_MD_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
_WIKI_LINK = re.compile(r"(?<!!)\[\[([^\]|\n]+)(?:\|([^\]\n]+))?\]\]")
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FLASHCARDS_TAG = "flashcards"
_HIGHLIGHT = re.compile(r"==(?=\S)([^=\n]+?)(?<=\S)==")


@dataclass(slots=True)
class _Card:
    line: int
    front: str
    back: str
    reversed: bool = False
    cloze: bool = False
    """A paragraph with ``==highlights==``: one card per highlight, the others shown."""


@dataclass(slots=True)
class _Note:
    """One Markdown file being read."""

    relative: str
    lines: list[str]
    cards: list[_Card] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)


def _front_matter(text: str, where: str) -> tuple[dict[str, Any], str, int, list[ImportNote]]:
    """Split YAML front matter off; returns it, the body, the body's first line number, notes."""
    if not text.startswith("---\n"):
        return {}, text, 1, []
    lines = text.split("\n")
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            body = "\n".join(lines[number + 1 :])
            try:
                data = yaml.safe_load("\n".join(lines[1:number]))
            except yaml.YAMLError:
                note = ImportNote("front matter is not valid YAML; ignored", f"{where}:1")
                return {}, body, number + 2, [note]
            return (data if isinstance(data, dict) else {}), body, number + 2, []
    return {}, text, 1, []


def _split_card_line(line: str) -> tuple[str, str, bool] | None:
    """``front::back`` or ``front:::back`` outside code spans, else None."""
    masked = _CODE_SPAN.sub(lambda m: "\0" * len(m.group()), line)
    at = masked.find("::")
    if at < 0:
        return None
    width = 3 if masked.startswith(":::", at) else 2
    front = _LIST_MARKER.sub("", line[:at]).strip()
    back = line[at + width :].strip()
    if not front or not back:
        return None
    return front, back, width == 3


def _cards(note: _Note, first_line: int, *, clozes: bool) -> None:
    """Find the cards of a note body (after its front matter).

    With ``clozes`` (a note tagged ``#flashcards``, as the plugin asks), a
    paragraph holding ``==highlights==`` is a cloze card.
    """
    lines = note.lines
    para: list[str] = []
    para_line = first_line
    fenced = False
    index = 0

    def flush() -> None:
        text = "\n".join(para)
        if clozes and _HIGHLIGHT.search(_CODE_SPAN.sub("", text)) and not _FENCE.search(text):
            note.cards.append(_Card(para_line, text, "", cloze=True))

    while index < len(lines):
        line = lines[index]
        number = first_line + index
        index += 1
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(line):
            para.append(line)
            continue
        stripped = line.strip()
        if not stripped or _HEADING.match(line):
            flush()
            para, para_line = [], number + 1
            continue
        if stripped in ("?", "??"):
            answer, index = _answer_lines(lines, index, until_blank=True)
            note.cards.append(_Card(para_line, "\n".join(para), answer, stripped == "??"))
            para, para_line = [], first_line + index
            continue
        question = _QUESTION.match(line)
        if question:
            flush()
            front = [question.group(1)]
            while index < len(lines) and not _ANSWER.match(lines[index]):
                if _QUESTION.match(lines[index]) or _HEADING.match(lines[index]):
                    break
                front.append(lines[index])
                index += 1
            answer_match = _ANSWER.match(lines[index]) if index < len(lines) else None
            back = ""
            if answer_match:
                rest, index = _answer_lines(lines, index + 1, until_blank=False)
                back = "\n".join([answer_match.group(1), rest]).strip()
            note.cards.append(_Card(number, "\n".join(front), back))
            para, para_line = [], first_line + index
            continue
        single = _split_card_line(line)
        if single is not None and not _TAG_LINE.match(line):
            flush()
            front_text, back_text, reverse = single
            note.cards.append(
                _Card(number, _BREAK.sub("\n", front_text), _BREAK.sub("\n", back_text), reverse)
            )
            para, para_line = [], number + 1
            continue
        if not para:
            para_line = number
        para.append(line)
    flush()


def _answer_lines(lines: list[str], index: int, *, until_blank: bool) -> tuple[str, int]:
    """Lines of an answer from ``index``: to a blank line (or a new card or heading)."""
    answer: list[str] = []
    fenced = False
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            if _HEADING.match(line) or _QUESTION.match(line):
                break
            if until_blank and not line.strip():
                break
            after_blank = bool(answer) and not answer[-1].strip()
            if after_blank and (line.strip() in ("?", "??") or _split_card_line(line)):
                break  # a new card after a blank line ends a Q:/A: answer
        answer.append(line)
        index += 1
    while answer and not answer[-1].strip():
        answer.pop()
    return "\n".join(answer).rstrip(), index


def _clean(text: str) -> str:
    text = _SR_STAMP.sub("", text)
    kept = [line.rstrip() for line in text.split("\n") if not _TAG_LINE.match(line)]
    text = "\n".join(kept).strip()
    text = _WIKI_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    return re.sub(r"\n{3,}", "\n\n", text)


class _Media:
    """Finds the files a note embeds, by path beside the note or by name in the folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.intake = MediaIntake()
        self._by_name: dict[str, str] | None = None

    def _index(self) -> dict[str, str]:
        if self._by_name is None:
            self._by_name = {}
            for folder, dirs, files in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if media_type_of_name(name):
                        relative = Path(folder, name).relative_to(self.root).as_posix()
                        self._by_name.setdefault(name, relative)
        return self._by_name

    def stored(self, target: str, note_folder: str) -> str | None:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            return None  # a web address: not a file of the notes
        from urllib.parse import unquote

        target = unquote(target)
        beside = (PurePosixPath(note_folder) / target).as_posix()
        for candidate in (beside, target):
            if (self.root / candidate).is_file() or ".." in PurePosixPath(candidate).parts:
                return read_folder_media(self.root, candidate, intake=self.intake)
        found = self._index().get(PurePosixPath(target).name)
        return read_folder_media(self.root, found, intake=self.intake) if found else None

    def rewrite(self, text: str, note_folder: str, missing: list[str]) -> str:
        def embed(target: str, alt: str) -> str:
            stored = self.stored(target.strip(), note_folder)
            if stored is None:
                missing.append(target.strip())
                return ""
            if (media_type_of_name(stored) or "").startswith("audio/"):
                return f"[sound:media/{stored}]"
            return f"![{alt}](media/{stored})"

        # Markdown images first: the embeds' rewritten references are Markdown images too.
        text = _MD_IMAGE.sub(
            lambda m: (
                m.group(0)
                if re.match(r"^[a-z][a-z0-9+.-]*:", m.group(2), re.I)
                else embed(m.group(2), m.group(1))
            ),
            text,
        )
        return _WIKI_EMBED.sub(lambda m: embed(m.group(1), ""), text)


def _deck_of(meta: dict[str, Any], body: str, fallback: str) -> str:
    for key in ("deck", "cards-deck"):
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().replace("/", "::")
    tags: list[str] = _meta_tags(meta) + _TAG.findall(_CODE_SPAN.sub("", body))
    for tag in tags:
        head, _, rest = tag.partition("/")
        if head.casefold() == _FLASHCARDS_TAG and rest:
            return rest.strip("/").replace("/", "::")
    return fallback


def _meta_tags(meta: dict[str, Any]) -> list[str]:
    value = meta.get("tags") or meta.get("tag") or []
    if isinstance(value, str):
        value = split_tags(value)
    if not isinstance(value, list):
        return []
    return [str(tag).strip().lstrip("#") for tag in value if str(tag).strip()]


def _files(path: Path) -> Iterator[Path]:
    """Markdown files of a folder in a stable order, hidden folders (``.obsidian``) skipped."""
    count = total = 0
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.lower().endswith(_SUFFIXES) or name.startswith("."):
                continue
            file = Path(folder, name)
            count += 1
            total += file.stat().st_size
            if count > MAX_NOTE_FILES or total > MAX_NOTES_TOTAL_BYTES:
                raise HostileInput(
                    f"'{path.name}' holds more than {MAX_NOTE_FILES:,} Markdown files or "
                    f"{MAX_NOTES_TOTAL_BYTES // 1_048_576} MiB of them; import its folders "
                    "one by one"
                )
            yield file


def _read_note(
    file: Path,
    *,
    root: Path,
    folder_import: bool,
    source: ParsedSource,
    media: _Media,
    seen: set[str],
) -> None:
    relative = file.relative_to(root).as_posix()
    try:
        decoded = read_source_text(file, kind="Markdown note", limit_bytes=WHOLE_TEXT_MAX_BYTES)
    except HostileInput:
        raise
    except ImportFailed as exc:
        if not folder_import:
            raise
        source.notes.append(ImportNote(str(exc), relative, skipped=True))
        return
    if decoded.note:
        source.notes.append(ImportNote(decoded.note, relative))
    meta, body, first_line, notes = _front_matter(decoded.text, relative)
    source.notes.extend(notes)
    parent = PurePosixPath(relative).parent
    if folder_import:
        fallback = "::".join(parent.parts) if parent.parts else root.name
    else:
        fallback = file.stem
    deck = _deck_of(meta, body, fallback)
    tags = [t for t in _meta_tags(meta) if t.split("/")[0].casefold() != _FLASHCARDS_TAG]
    note = _Note(relative, body.split("\n"))
    _cards(note, first_line, clozes=_flashcards_tagged(meta, body))
    for card in note.cards:
        where = f"{relative}:{card.line}"
        missing: list[str] = []
        front = _clean(media.rewrite(card.front, parent.as_posix(), missing))
        back = _clean(media.rewrite(card.back, parent.as_posix(), missing))
        if not front:
            source.notes.append(ImportNote("card has an empty question", where, skipped=True))
            continue
        key = text_key(relative, front)
        if key in seen:
            source.notes.append(ImportNote("repeats an earlier card", where, skipped=True))
            continue
        seen.add(key)
        if card.cloze:
            source.items.extend(_cloze_items(key, front, deck, tags, where, missing))
            continue
        data, card_notes = card_item(
            front=front, back=back, deck=deck, tags=tags, where=where, media=missing
        )
        if not card.reversed or not back:
            source.items.append(ParsedItem(key, data, notes=card_notes))
            continue
        kind = {"type": "Basic (and reversed card)"}
        data["note_link"] = {"card": "forward", **kind}
        source.items.append(ParsedItem(f"{key}#forward", data, notes=card_notes, group=key))
        reverse, _ = card_item(front=back, back=front, deck=deck, tags=tags, where=where)
        reverse["note_link"] = {"card": "reverse", **kind}
        source.items.append(ParsedItem(f"{key}#reverse", reverse, group=key))


def _flashcards_tagged(meta: dict[str, Any], body: str) -> bool:
    tags: list[str] = _meta_tags(meta) + _TAG.findall(_CODE_SPAN.sub("", body))
    return any(tag.split("/")[0].casefold() == _FLASHCARDS_TAG for tag in tags)


def _cloze_items(
    key: str, text: str, deck: str, tags: list[str], where: str, missing: list[str]
) -> list[ParsedItem]:
    """The cards of a highlighted paragraph, linked as an Anki cloze note's blanks."""
    counter = iter(range(1, 1_000_000))
    cloze_text = _HIGHLIGHT.sub(lambda m: f"{{{{c{next(counter)}::{m.group(1)}}}}}", text)
    link = cloze_link("Cloze", cloze_text, "")
    items: list[ParsedItem] = []
    for cloze in cloze_cards(cloze_text):
        data, notes = card_item(
            front=cloze.prompt,
            back=cloze.revealed,
            deck=deck,
            tags=tags,
            where=where,
            media=missing,
        )
        data["note_link"] = {"card": cloze.card, **link}
        items.append(ParsedItem(f"{key}#{cloze.card}", data, notes=notes, group=key))
    return items


def read_obsidian(path: Path) -> ParsedSource:
    """Read Markdown notes (one file, or every ``.md`` file below a folder) into items.

    Args:
        path: A Markdown file or a folder of them (an Obsidian vault).

    Returns:
        One ``flashcard`` per card (two, linked, for a reversed card), with
        its deck and the front matter's tags, and the checked images and
        sounds the cards embed.

    Raises:
        ImportFailed: If a single file is empty or not text.
        HostileInput: If a file is over the text size limit, or a folder holds
            too many Markdown files or bytes.
    """
    source = ParsedSource(format="obsidian", path=str(path))
    folder_import = path.is_dir()
    root = path if folder_import else path.parent
    media = _Media(root)
    files = _files(path) if folder_import else iter([path])
    count = 0
    seen: set[str] = set()
    for file in files:
        count += 1
        _read_note(
            file, root=root, folder_import=folder_import, source=source, media=media, seen=seen
        )
    finish_source(source, media.intake.media)
    if not count:
        source.notes.append(ImportNote("the folder holds no Markdown files", skipped=True))
    return source
