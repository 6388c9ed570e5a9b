"""Chapter quiz text: a title, then ``Question N`` / question / ``Answer`` / answer.

Text copied from a book page often runs an answer straight into the next
``Question N+1`` on the same line; a ``Question N`` marker is therefore
recognised anywhere, as long as the numbers follow each other. Text is kept
as written (LaTeX in ``$...$``, Markdown emphasis); a question without an
answer is imported and reported.
"""

from __future__ import annotations

import re
from pathlib import Path

from sysdrill.errors import ImportFailed
from sysdrill.interop.formats import slugify, tidy_text
from sysdrill.interop.source import ImportNote, ParsedItem, ParsedSource
from sysdrill.interop.text import read_source_text

__all__ = ["read_quiz_text"]

# "Question N" alone on its line (possibly run on from the previous answer), or
# "Question N: text" at the start of a line.
_MARKER = re.compile(
    r"Question[ \t]+(\d+)[ \t]*[:.)]?[ \t]*(?:\n|\Z)|^Question[ \t]+(\d+)[ \t]*[:.)][ \t]+",
    re.MULTILINE,
)
# "Answer" alone on its line, or "Answer: text".
_ANSWER = re.compile(r"^Answer[ \t]*(?::[ \t]*(?=\S)|[:.]?[ \t]*$)", re.MULTILINE)


def _markers(text: str) -> list[tuple[int, int, int]]:
    """(number, start, end) of each ``Question N`` marker, numbers in sequence."""
    found: list[tuple[int, int, int]] = []
    expected = None
    for match in _MARKER.finditer(text):
        number = int(match.group(1) or match.group(2))
        if expected is None or number == expected:
            found.append((number, match.start(), match.end()))
            expected = number + 1
    return found


def read_quiz_text(path: Path) -> ParsedSource:
    """Read a chapter quiz: one item per ``Question N``, in one deck named for the chapter.

    Args:
        path: The quiz text.

    Returns:
        Parsed quiz items keyed ``<deck>/question-<N>``; questions without an
        answer carry a note.

    Raises:
        ImportFailed: If no ``Question N`` marker is found.
    """
    decoded = read_source_text(path)
    text = decoded.text
    markers = _markers(text)
    if not markers:
        raise ImportFailed(
            f"'{path.name}' has no 'Question N' lines; pass --format for the format it is in"
        )
    head = text[: markers[0][1]].strip().splitlines()
    title = head[0].strip() if head else path.stem
    deck = slugify(title)
    source = ParsedSource(format="quiz-text", path=str(path), deck=title)
    if decoded.note:
        source.notes.append(ImportNote(decoded.note, path.name))
    for index, (number, _start, end) in enumerate(markers):
        stop = markers[index + 1][1] if index + 1 < len(markers) else len(text)
        body = text[end:stop]
        where = f"{path.name}:{text.count(chr(10), 0, _start) + 1}"
        answer_at = _ANSWER.search(body)
        question_lines = body[: answer_at.start()] if answer_at else body
        question = tidy_text(question_lines.split("\n"))
        answer = tidy_text(body[answer_at.end() :].split("\n")) if answer_at else ""
        if not question:
            source.notes.append(
                ImportNote(f"skipped question {number}: no question text", where, skipped=True)
            )
            continue
        data: dict[str, object] = {"format": "quiz", "question": question}
        notes: tuple[ImportNote, ...] = ()
        if answer:
            data["details"] = {"realistic_solution": answer}
        else:
            data["has_reference_answer"] = False
            notes = (
                ImportNote(
                    f"question {number} has no answer in the source; imported without one",
                    where,
                ),
            )
        source.items.append(ParsedItem(key=f"{deck}/question-{number}", data=data, notes=notes))
    return source
